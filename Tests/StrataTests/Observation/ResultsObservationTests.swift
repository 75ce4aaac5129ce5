import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// An observable type whose Results the tests track.
final class RankedItem: Object, Observable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
    @Persisted var rank: Int

    convenience init(id: Int, title: String = "", rank: Int = 0) {
        self.init()
        self.id = id
        self.title = title
        self.rank = rank
    }
}

/// `withObservationTracking` over a Results of an observable type: its count, its objects (which and
/// in what order) and the values it aggregates. The Store is the main thread's; every wait waits on a
/// condition.
final class ResultsObservationTests: XCTestCase {
    /// Commits `body` on a Store of another thread, and waits until the main thread's `store` has
    /// delivered it (a Store-wide observer registered now is told after the Results' watch).
    private func commitInBackground(
        _ fixture: Fixture, delivered store: Store, _ body: @escaping @Sendable (Store) throws -> Void
    ) throws {
        let delivered = expectation(description: "delivered")
        let target = Locked<Int?>(nil)
        var token: NotificationToken?
        token = try store.observe { _, store in
            guard let wanted = target.withLock({ $0 }), (try? store.core.version()) ?? 0 >= wanted else { return }
            delivered.fulfill()
            token?.invalidate()
        }
        let configuration = fixture.configuration
        let committed = expectation(description: "committed")
        DispatchQueue.global().async {
            do {
                let background = try Store(configuration: configuration)
                try background.write { try body(background) }
                target.withLock { $0 = try? background.core.version() }
            } catch {
                XCTFail("\(error)")
            }
            committed.fulfill()
        }
        wait(for: [committed], timeout: 30)
        if (try store.core.version()) >= target.withLock({ $0 }) ?? .max {
            delivered.fulfill()  // delivered before the target was known
            token?.invalidate()
        }
        wait(for: [delivered], timeout: 30)
    }

    private func seeded(_ count: Int = 3) throws -> (Fixture, Store) {
        let fixture = Fixture([RankedItem.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...count { try store.add(RankedItem(id: id, title: "t\(id)", rank: id)) }
        }
        return (fixture, store)
    }

    func testAnotherThreadsInsertionTellsTheCountOnTheMainThread() throws {
        let (fixture, store) = try seeded()
        let items = store.objects(RankedItem.self)
        let changed = expectation(description: "count")
        withObservationTracking {
            XCTAssertEqual(items.count, 3)
        } onChange: {
            XCTAssertTrue(Thread.isMainThread)
            changed.fulfill()
        }
        try commitInBackground(fixture, delivered: store) { try $0.add(RankedItem(id: 4)) }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(items.count, 4)  // the Store moved to the commit before telling
    }

    func testACommitThatKeepsTheCountDoesNotTellIt() throws {
        let (fixture, store) = try seeded()
        let items = store.objects(RankedItem.self)
        let never = track("count", inverted: true) { _ = items.count }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 1)!.title = "changed"
            try store.delete(store.object(ofType: RankedItem.self, forPrimaryKey: 2)!)
            try store.add(RankedItem(id: 9))
        }
        wait(for: [never], timeout: 0.2)
    }

    func testAQueryTellsItsCountWhenAChangeMovesAnObjectOut() throws {
        let (fixture, store) = try seeded()
        let low = store.objects(RankedItem.self).where { $0.rank < 3 }
        let changed = track("count") { XCTAssertEqual(low.count, 2) }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 1)!.rank = 10
        }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(low.map(\.id), [2])
    }

    func testElementsAreToldWhenTheOrderChangesAndNotForAnotherProperty() throws {
        let (fixture, store) = try seeded()
        let byRank = store.objects(RankedItem.self).sorted(by: \.rank)
        let never = track("elements", inverted: true) { for _ in byRank {} }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 1)!.title = "same order"
        }
        wait(for: [never], timeout: 0.2)
        let changed = track("elements") { XCTAssertEqual(byRank.first?.id, 1) }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 1)!.rank = 99
        }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(byRank.map(\.id), [2, 3, 1])
    }

    func testAnAggregateIsToldOfAHeldObjectsChangeOnly() throws {
        let (fixture, store) = try seeded()
        let low = store.objects(RankedItem.self).where { $0.rank < 3 }
        let never = track("sum", inverted: true) { XCTAssertEqual(low.sum(of: \.rank), 3) }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 3)!.title = "not held"
        }
        wait(for: [never], timeout: 0.2)
        let changed = track("sum") { XCTAssertEqual(low.sum(of: \.rank), 3) }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 2)!.title = "held"
        }
        wait(for: [changed], timeout: 30)
        let values = track("values") { XCTAssertEqual(Array(low.values(of: \.title)), ["t1", "held"]) }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 1)!.rank = 2
        }
        wait(for: [values], timeout: 30)
        XCTAssertEqual(low.sum(of: \.rank), 4)
    }

    func testOwnCommitAndAReadInsideAWriteAreTold() throws {
        let (_, store) = try seeded()
        let items = store.objects(RankedItem.self)
        let own = track("own commit") { _ = items.count }
        try store.write { try store.add(RankedItem(id: 4)) }
        wait(for: [own], timeout: 30)
        let inside = expectation(description: "read inside a write")
        try store.write {
            withObservationTracking {
                XCTAssertEqual(items.count, 4)
            } onChange: {
                inside.fulfill()
            }
            try store.add(RankedItem(id: 5))
        }
        wait(for: [inside], timeout: 30)
    }

    /// A read made after the Store moved to a commit, before the commit's delivery (here: right
    /// after this thread's write), must not hide the change from trackings made before it.
    func testAReadBetweenACommitAndItsDeliveryHidesNothing() throws {
        let (_, store) = try seeded()
        let low = store.objects(RankedItem.self).where { $0.rank < 10 }
        let counted = track("count") { XCTAssertEqual(low.count, 3) }
        let ordered = track("elements") { XCTAssertEqual(low.first?.id, 1) }
        let total = track("whole table") { XCTAssertEqual(store.objects(RankedItem.self).count, 3) }
        try store.write {
            try store.add(RankedItem(id: 0, rank: 0))
            XCTAssertEqual(low.count, 4)  // read inside the write
        }
        XCTAssertEqual(low.count, 4)  // read before the delivery
        XCTAssertEqual(low.first?.id, 0)
        XCTAssertEqual(store.objects(RankedItem.self).count, 4)
        wait(for: [counted, ordered, total], timeout: 30)
    }

    func testAWholeTableMadeAnewInsideTheTrackedClosureIsTold() throws {
        let (fixture, store) = try seeded()
        let counted = track("count") { XCTAssertEqual(store.objects(RankedItem.self).count, 3) }
        let first = track("first") { XCTAssertEqual(store.objects(RankedItem.self).first?.id, 1) }
        let never = track("a modification", inverted: true) { _ = store.objects(RankedItem.self).last }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 3)!.title = "modified"
        }
        wait(for: [never], timeout: 0.2)
        try commitInBackground(fixture, delivered: store) { try $0.add(RankedItem(id: 0)) }
        wait(for: [counted, first], timeout: 30)
    }

    func testCopiesShareTheWatchAndEveryTrackingIsTold() throws {
        let (fixture, store) = try seeded()
        let items = store.objects(RankedItem.self)
        let copy = items
        let first = track("first") { _ = items.count }
        let second = track("second") { _ = copy.last }
        try commitInBackground(fixture, delivered: store) { try $0.add(RankedItem(id: 4, rank: 4)) }
        wait(for: [first, second], timeout: 30)
    }

    func testFrozenResultsAndTypesThatAreNotObservableAreNotWatched() throws {
        let fixture = Fixture([RankedItem.self, UnwatchedNote.self])
        let store = try fixture.open()
        try store.write {
            try store.add(RankedItem(id: 1))
            try store.add(UnwatchedNote(value: ["id": 1, "title": "x"]))
        }
        let frozen = try store.objects(RankedItem.self).freeze()
        let notes = store.objects(UnwatchedNote.self)
        let frozenNever = track("frozen", inverted: true) { XCTAssertEqual(frozen.count, 1) }
        let plainNever = track("not observable", inverted: true) { XCTAssertEqual(notes.count, 1) }
        XCTAssertNil(frozen.cache.observation)
        XCTAssertNil(notes.cache.observation)
        try commitInBackground(fixture, delivered: store) { store in
            try store.add(RankedItem(id: 2))
            try store.add(UnwatchedNote(value: ["id": 2, "title": "y"]))
        }
        wait(for: [frozenNever, plainNever], timeout: 0.2)
        XCTAssertEqual(frozen.count, 1)
        XCTAssertEqual(notes.count, 2)
    }

    func testAListsQueryIsToldWhenItsOwnerIsDeleted() throws {
        let fixture = Fixture([RankedItem.self, RankedShelf.self])
        let store = try fixture.open()
        try store.write {
            let shelf = RankedShelf()
            shelf.id = 1
            for id in 1...3 { shelf.items.append(RankedItem(id: id, rank: id)) }
            try store.add(shelf)
        }
        let shelf = try XCTUnwrap(store.object(ofType: RankedShelf.self, forPrimaryKey: 1))
        let high = try shelf.items.where("rank > 1")
        let changed = track("list query") { XCTAssertEqual(high.count, 2) }
        try commitInBackground(fixture, delivered: store) { store in
            store.object(ofType: RankedItem.self, forPrimaryKey: 3)!.rank = 0
        }
        wait(for: [changed], timeout: 30)
        XCTAssertEqual(high.map(\.id), [2])
    }
}

/// An owner of a List of `RankedItem`s.
final class RankedShelf: Object, Observable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var items: List<RankedItem>
}
