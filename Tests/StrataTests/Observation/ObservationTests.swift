import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// A model type that opts in to Observation by conforming to `Observable`.
final class WatchedNote: Object, Observable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
    @Persisted var body: String
    @Persisted var tags: List<String>

    convenience init(id: Int, title: String = "", body: String = "") {
        self.init()
        self.id = id
        self.title = title
        self.body = body
    }
}

/// The same shape without `Observable`: its reads make no call into Observation.
final class UnwatchedNote: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
}

/// An observable embedded object and its observable owner.
final class WatchedPlace: EmbeddedObject, Observable {
    @Persisted var city: String
}

final class WatchedContact: Object, Observable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var place: WatchedPlace?
}

/// Counts `onChange` calls (made on the thread that changes the object: this test's).
final class OnChangeCount: @unchecked Sendable {
    private(set) var value = 0
    func add() { value += 1 }
}

/// What an `onChange` read (on the thread that changed the object: this test's).
final class Seen: @unchecked Sendable {
    var value: String?
}

/// A note handed to an `onChange` that runs on the test's thread.
final class UncheckedNote: @unchecked Sendable {
    let note: WatchedNote
    init(_ note: WatchedNote) { self.note = note }
}

/// `withObservationTracking` over Strata objects: a Store of the main thread is told of commits on
/// the main queue; `wait(for:)` spins the main run loop. Every wait waits on a condition.
final class ObservationTests: XCTestCase {
    /// Waits until the main-thread Store has delivered the commits of other threads made so far (a
    /// Store-wide observer is told after every observer registered before it, in the same turn of the
    /// main queue as the Store moves to the commit).
    private func waitForDelivery(of store: Store) throws {
        let delivered = expectation(description: "delivered")
        var token: NotificationToken?
        let target = try store.core.environment.latestVersion()
        token = try store.observe { _, store in
            if (try? store.core.version()) ?? 0 >= target {
                delivered.fulfill()
                token?.invalidate()
            }
        }
        if (try store.core.version()) >= target {
            // Already there (the Store moves and delivers in one turn of its queue): nothing is left.
            delivered.fulfill()
            token?.invalidate()
        }
        wait(for: [delivered], timeout: 30)
    }

    func testAnotherThreadsCommitCallsOnChangeOnTheMainThread() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "draft")) }
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let changed = expectation(description: "onChange")
        withObservationTracking {
            XCTAssertEqual(note.title, "draft")
        } onChange: {
            XCTAssertTrue(Thread.isMainThread)
            changed.fulfill()
        }
        DispatchQueue.global().async {
            do {
                let background = try Store(configuration: fixture.configuration)
                try background.write { background.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "final" }
            } catch {
                XCTFail("\(error)")
            }
        }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(note.title, "final")  // the Store moved to the commit before telling
    }

    /// The guide's pattern (Docs/Notifications.md): `onChange` tracks again from a main-actor task,
    /// and every later commit is heard, each showing its own title.
    func testTrackingAgainFromOnChangeHearsEveryCommit() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "0")) }
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let view = TitleRecorder(note: note)
        for round in 1...5 {
            let rendered = expectation(description: "render \(round)")
            view.onRender = { titles in if titles.count == round + 1 { rendered.fulfill() } }
            commitInBackground(fixture.configuration) { store in
                store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "\(round)"
            }
            wait(for: [rendered], timeout: 30)
        }
        XCTAssertEqual(view.titles, ["0", "1", "2", "3", "4", "5"])
    }

    func testOnlyTrackedPropertiesCallOnChange() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write {
            try store.add(WatchedNote(id: 1, title: "a", body: "b"))
            try store.add(WatchedNote(id: 2, title: "c", body: "d"))
        }
        let one = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let two = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 2))
        let untouched = track("title of 1 (body changes)", inverted: true) { _ = one.title }
        let otherObject = track("title of 2 (1 changes)", inverted: true) { _ = two.title }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.body = "changed"
        }
        try waitForDelivery(of: store)
        wait(for: [untouched, otherObject], timeout: 0.1)
        XCTAssertEqual(one.body, "changed")
        let titleChanged = track("title of 1") { _ = one.title }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "changed"
        }
        wait(for: [titleChanged], timeout: 30)
    }

    func testOwnCommitCallsOnChangeOnceTheStoreDelivers() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1)) }
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let changed = track("tags") { _ = note.tags.count }
        try store.write { note.tags.append("swift") }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(Array(note.tags), ["swift"])
    }

    func testReadInsideAWriteIsToldAtItsCommit() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1)) }
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        var changed: XCTestExpectation?
        try store.write {
            changed = track("title read in the write") { _ = note.title }
            note.title = "set in the same write"
        }
        wait(for: [try XCTUnwrap(changed)], timeout: 30)
    }

    func testDeletionCallsOnChangeAndTheObjectIsInvalidated() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "gone soon")) }
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let changed = track("deleted") { _ = note.body }
        commitInBackground(fixture.configuration) { store in
            try store.delete(store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!)
        }
        wait(for: [changed], timeout: 30)
        XCTAssertTrue(note.isInvalidated)
    }

    func testEmbeddedObjectsAreToldOfTheirChangesAndTheirOwnersOfANewOne() throws {
        let fixture = Fixture([WatchedContact.self, WatchedPlace.self])
        let store = try fixture.open()
        try store.write {
            let contact = WatchedContact()
            contact.id = 1
            contact.place = WatchedPlace()
            contact.place?.city = "Oslo"
            try store.add(contact)
        }
        let contact = try XCTUnwrap(store.object(ofType: WatchedContact.self, forPrimaryKey: 1))
        let cityChanged = track("city") { XCTAssertEqual(contact.place?.city, "Oslo") }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedContact.self, forPrimaryKey: 1)!.place!.city = "Bergen"
        }
        wait(for: [cityChanged], timeout: 30)
        XCTAssertEqual(contact.place?.city, "Bergen")
        let placeReplaced = track("place") { _ = contact.place }
        commitInBackground(fixture.configuration) { store in
            let place = WatchedPlace()
            place.city = "Tromsø"
            store.object(ofType: WatchedContact.self, forPrimaryKey: 1)!.place = place
        }
        wait(for: [placeReplaced], timeout: 30)
        XCTAssertEqual(contact.place?.city, "Tromsø")
    }

    func testAnActorsStoreCallsOnChangeOnTheActor() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "draft")) }
        let reader = NoteReader()
        let tracked = expectation(description: "tracked on the actor")
        let changed = expectation(description: "onChange on the actor")
        let configuration = fixture.configuration
        Task {
            do {
                let title = try await reader.track(configuration) { isOnActor in
                    XCTAssertTrue(isOnActor)
                    changed.fulfill()
                }
                XCTAssertEqual(title, "draft")
            } catch {
                XCTFail("\(error)")
            }
            tracked.fulfill()
        }
        wait(for: [tracked], timeout: 30)
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "final"
        }
        wait(for: [changed], timeout: 30)
    }

    func testEveryAccessorOfARowIsTold() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1)) }
        let first = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let second = try XCTUnwrap(store.objects(WatchedNote.self).first)
        XCTAssertFalse(first === second)
        let one = track("first accessor") { _ = first.title }
        let two = track("second accessor") { _ = second.title }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "x"
        }
        wait(for: [one, two], timeout: 30)
    }

    func testAnIterationKeepsTheAccessorsItTracked() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { for id in 1...5 { try store.add(WatchedNote(id: id, title: "\(id)")) } }
        var expectations: [Int: XCTestExpectation] = [:]
        var held: [WatchedNote] = []  // a view holds what it shows; an accessor gone is told nothing
        for note in store.objects(WatchedNote.self) {
            held.append(note)
            let id = note.id
            expectations[id] = track("note \(id)", inverted: id != 3) { _ = note.title }
        }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 3)!.title = "three"
        }
        try waitForDelivery(of: store)
        wait(for: [expectations[3]!], timeout: 30)
        wait(for: expectations.filter { $0.key != 3 }.map(\.value), timeout: 0.1)
        XCTAssertEqual(Set(held.map(\.id)).count, 5)  // five accessors, none re-pointed
    }

    func testUnmanagedSettersCallOnChangeAtOnce() throws {
        let note = WatchedNote(id: 1, title: "local")
        let calls = OnChangeCount()
        withObservationTracking {
            _ = note.title
        } onChange: {
            calls.add()
        }
        note.body = "not tracked"
        XCTAssertEqual(calls.value, 0)
        note.title = "changed"
        XCTAssertEqual(calls.value, 1)  // synchronously, as an @Observable class's setter
        XCTAssertEqual(note.title, "changed")
        // An observer may read the property it was told of (told after the change, outside the
        // wrapper's access: reading it inside would overlap that access).
        let seen = Seen()
        let held = UncheckedNote(note)
        withObservationTracking {
            _ = note.title
        } onChange: {
            seen.value = held.note.title
        }
        note.title = "again"
        XCTAssertEqual(seen.value, "again")
        // Unmanaged objects of other types are plain: nothing is told, and nothing breaks.
        let plain = UnwatchedNote()
        withObservationTracking {
            _ = plain.title
        } onChange: {
            XCTFail("not observable")
        }
        plain.title = "x"
    }

    func testAddedObjectIsToldOfLaterCommits() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        let note = WatchedNote(id: 1, title: "local")
        _ = note.title  // looked up while unmanaged
        try store.write { try store.add(note) }
        let changed = track("managed now") { _ = note.title }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "remote"
        }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(note.title, "remote")
    }

    func testTrackingMadeWhileUnmanagedGoesOnOnceAdded() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        let note = WatchedNote(id: 1, title: "local")
        let changed = track("tracked before the add") { _ = note.title }
        try store.write { try store.add(note) }  // the add sets no property: nothing told
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "remote"
        }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(note.title, "remote")
    }

    func testTypesThatAreNotObservableWatchNothing() throws {
        let fixture = Fixture([UnwatchedNote.self, WatchedNote.self])
        let store = try fixture.open()
        try store.write {
            let plain = UnwatchedNote()
            plain.id = 1
            try store.add(plain)
            try store.add(WatchedNote(id: 1))
        }
        for note in store.objects(UnwatchedNote.self) { _ = note.title }
        XCTAssertTrue(store.core.observers.isEmpty)
        let watched = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        _ = watched.title
        XCTAssertFalse(store.core.observers.isEmpty)
    }

    func testFrozenObjectsAreReadWithoutWatch() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "then")) }
        let frozen = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1)).freeze()
        let never = track("frozen", inverted: true) { XCTAssertEqual(frozen.title, "then") }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "now"
        }
        try waitForDelivery(of: store)
        wait(for: [never], timeout: 0.1)
        XCTAssertEqual(frozen.title, "then")
    }

    /// The watch ends with the accessors: the Store's observer goes, and the Store with its holders.
    func testWatchEndsWithTheAccessors() throws {
        let fixture = Fixture([WatchedNote.self])
        weak var weakCore: StoreCore?
        do {
            let store = try fixture.open()
            weakCore = store.core
            try store.write { try store.add(WatchedNote(id: 1)) }
            do {
                let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
                _ = note.title
                XCTAssertFalse(store.core.observers.isEmpty)
            }
            try store.write { store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "x" }
            // The commit is delivered on a later turn of the main queue.
            let deadline = Date().addingTimeInterval(30)
            while !store.core.observers.isEmpty, Date() < deadline { RunLoop.main.run(until: Date() + 0.01) }
            XCTAssertTrue(store.core.observers.isEmpty)
        }
        XCTAssertNil(weakCore)
    }
}

/// Renders a note's title and tracks it again after each change, as Docs/Notifications.md's
/// `TitleView` does (used on the main thread only: XCTest methods cannot be main-actor isolated).
final class TitleRecorder: @unchecked Sendable {
    let note: WatchedNote
    private(set) var titles: [String] = []
    var onRender: ([String]) -> Void = { _ in }

    init(note: WatchedNote) {
        self.note = note
        render()
    }

    func render() {
        withObservationTracking {
            titles.append(note.title)
        } onChange: { [weak self] in
            Task { @MainActor in self?.render() }
        }
        onRender(titles)
    }
}

/// Tracks a note's title on an actor's Store, keeping the accessor (a watch lives as long as it).
actor NoteReader {
    private var store: Store?
    private var note: WatchedNote?

    /// Opens the actor's Store and tracks note 1's title; `onChange` gets whether it ran on this actor.
    func track(_ configuration: Store.Configuration, onChange: @escaping @Sendable (Bool) -> Void) async throws
        -> String
    {
        let store = try await Store(configuration: configuration, actor: self)
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        self.store = store
        self.note = note
        return withObservationTracking {
            note.title
        } onChange: { [self] in
            onChange(isOnActor())
        }
    }

    /// True on this actor's executor; traps elsewhere (the runtime gives no non-trapping check).
    private nonisolated func isOnActor() -> Bool {
        assumeIsolated { _ in true }
    }
}
