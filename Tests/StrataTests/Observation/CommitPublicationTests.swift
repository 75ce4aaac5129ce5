import Dispatch
import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// A commit of another thread is visible to LMDB's readers a moment before its change log reaches the
/// file's hub. A Store that moves to it in that moment must still be told exactly what it changed: not
/// take it for another process's commit, whose changes are unknown, and tell every property.
final class CommitPublicationTests: XCTestCase {
    func testAStoreThatMovesToACommitBeforeItsLogIsPublishedIsToldExactly() throws {
        let (fixture, store, note) = try watchedNote()
        let (titleTold, bodyTold) = (countChanges { _ = note.title }, countChanges { _ = note.body })
        let changeBody: @Sendable (Store) -> Void = { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.body = "changed"
        }
        try moveWhileItsLogIsHeld(store, fixture) { done in
            Self.commitOnAnotherThread(fixture.configuration, changeBody, then: done)
        }
        XCTAssertEqual(note.body, "changed")
        XCTAssertEqual(bodyTold.value, 1)
        XCTAssertEqual(titleTold.value, 0)
    }

    func testAGroupCommitIsToldExactlyToo() throws {
        let (fixture, store, note) = try watchedNote()
        let (titleTold, bodyTold) = (countChanges { _ = note.title }, countChanges { _ = note.body })
        try moveWhileItsLogIsHeld(store, fixture) { done in
            NoteWriter.setBody("changed", in: fixture.configuration) { failure in
                if let failure { XCTFail("\(failure)") }
                done()
            }
        }
        XCTAssertEqual(note.body, "changed")
        XCTAssertEqual(bodyTold.value, 1)
        XCTAssertEqual(titleTold.value, 0)
    }

    func testACommitThatFailsLeavesNothingPendingAndTheNextIsToldExactly() throws {
        let (fixture, store, note) = try watchedNote()
        let (titleTold, bodyTold) = (countChanges { _ = note.title }, countChanges { _ = note.body })
        let hub = store.core.shared.changes
        LMDBFaults.inject(.noSpace, into: .commit)
        defer { LMDBFaults.clear() }
        XCTAssertThrowsError(try store.write { note.title = "lost" }) {
            XCTAssertEqual($0 as? StoreError, .storage(.noSpace))
        }
        XCTAssertEqual(hub.pendingCommitCount, 0)
        XCTAssertEqual(note.title, "title")
        commitWithoutDelivery(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.body = "changed"
        }
        XCTAssertTrue(try store.refresh())
        XCTAssertEqual(bodyTold.value, 1)
        XCTAssertEqual(titleTold.value, 0)
    }

    func testAGroupCommitThatFailsLeavesNothingPending() throws {
        let (fixture, store, note) = try watchedNote()
        let titleTold = countChanges { _ = note.title }
        let path = fixture.path
        CommitGroup.beforeCommit.withLock { $0[path] = { LMDBError.mapFull } }
        addTeardownBlock { _ = CommitGroup.beforeCommit.withLock { $0.removeValue(forKey: path) } }
        let failed = expectation(description: "the group's commit failed")
        NoteWriter.setBody("lost", in: fixture.configuration) { failure in
            XCTAssertEqual(failure as? StoreError, .mapFull)
            failed.fulfill()
        }
        wait(for: [failed], timeout: 30)
        XCTAssertEqual(store.core.shared.changes.pendingCommitCount, 0)
        XCTAssertFalse(try store.refresh())
        XCTAssertEqual(note.body, "body")
        XCTAssertEqual(titleTold.value, 0)
    }

    /// Another thread commits random changes without pause while this thread moves its Store to the
    /// newest commit as soon as LMDB shows it (the moment before a log is published is hit often),
    /// with random tracking of every note between moves; each move is compared with a plain rule: a
    /// tracking is told when a commit of the move changed a property it read.
    func testCommitsRacingMovesAgainstAReference() throws {
        let fixture = Fixture([WatchedNote.self]) { $0.durability = .noSync }
        let store = try fixture.open()
        let rows = 1...6
        try store.write { for id in rows { try store.add(WatchedNote(id: id, title: "t\(id)")) } }
        let notes = rows.map { store.object(ofType: WatchedNote.self, forPrimaryKey: $0)! }
        // Observed throughout, so every commit is logged: a write begun while nothing observes the
        // file logs nothing, and a tracking begun meanwhile is told every property at its commit.
        let token = try store.observe { _, _ in }
        defer { token.invalidate() }
        let properties = ["title", "body", "tags"]
        // Per version committed by the other thread, the (row, property) pairs it changed.
        let recorded = Locked<[Int: [(Int, String)]]>([:])
        let stop = Locked(false)
        let opened = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        let configuration = fixture.configuration
        DispatchQueue.global().async {
            var random = SplitMix64(state: 7)
            do {
                let background = try Store(configuration: configuration)
                opened.signal()
                var step = 0
                while !stop.withLock({ $0 }) {
                    let changes = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                        (rows.randomElement(using: &random)!, properties.randomElement(using: &random)!)
                    }
                    try background.write {
                        for (row, property) in changes {
                            let note = background.object(ofType: WatchedNote.self, forPrimaryKey: row)!
                            switch property {
                            case "title": note.title = "s\(step)"
                            case "body": note.body = "s\(step)"
                            default: note.tags.append("s\(step)")
                            }
                        }
                    }
                    let version = try background.core.version()
                    recorded.withLock { $0[version] = changes }
                    step += 1
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
                opened.signal()
            }
            finished.signal()
        }
        opened.wait()
        _ = try store.refresh()
        var version = try store.core.version()  // (opening the other Store may have committed)
        var random = SplitMix64(state: 11)
        var (told, untold, moves) = (0, 0, 0)
        while moves < 300, failure.withLock({ $0 }) == nil {
            var trackers: [(row: Int, read: Set<String>, calls: OnChangeCount)] = []
            for (index, note) in notes.enumerated() where Bool.random(using: &random) {
                var read = Set(properties.filter { _ in Bool.random(using: &random) })
                if read.isEmpty { read = ["title"] }
                let calls = OnChangeCount()
                withObservationTracking {
                    if read.contains("title") { _ = note.title }
                    if read.contains("body") { _ = note.body }
                    if read.contains("tags") { _ = note.tags.count }
                } onChange: {
                    calls.add()
                }
                trackers.append((rows.lowerBound + index, read, calls))
            }
            // Polls a condition: the next commit landing (or the other thread failing).
            while try !store.refresh(), failure.withLock({ $0 }) == nil { usleep(50) }
            let now = try store.core.version()
            var changed: [Int: Set<String>] = [:]
            for committed in (version + 1)...now {
                // (The other thread records a commit just after it: wait for the record.)
                var changes: [(Int, String)]?
                while changes == nil, failure.withLock({ $0 }) == nil {
                    changes = recorded.withLock { $0[committed] }
                    if changes == nil { usleep(50) }
                }
                for (row, property) in changes ?? [] { changed[row, default: []].insert(property) }
            }
            for tracker in trackers {
                let expected = !(changed[tracker.row] ?? []).isDisjoint(with: tracker.read)
                XCTAssertEqual(
                    tracker.calls.value, expected ? 1 : 0,
                    "move \(moves) to \(now): row \(tracker.row) read \(tracker.read.sorted()), changed "
                        + "\(changed[tracker.row]?.sorted() ?? [])")
                if expected { told += 1 } else { untold += 1 }
            }
            version = now
            moves += 1
        }
        stop.withLock { $0 = true }
        finished.wait()
        XCTAssertNil(failure.withLock { $0 })
        XCTAssertGreaterThan(told, 100)
        XCTAssertGreaterThan(untold, 100)
    }

    /// The main thread's Store of a file with one note, and the note.
    private func watchedNote() throws -> (Fixture, Store, WatchedNote) {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "title", body: "body")) }
        return (fixture, store, try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1)))
    }

    /// Starts `commit` (which calls its argument once the commit is done, on any thread) with its log
    /// held back, moves `store` to the commit as soon as LMDB shows it (refresh delivers on this
    /// thread), then lets the log go and waits for the commit to end.
    private func moveWhileItsLogIsHeld(
        _ store: Store, _ fixture: Fixture, _ commit: (@escaping @Sendable () -> Void) -> Void
    ) throws {
        let moved = DispatchSemaphore(value: 0)
        // (With the log announced, the move waits for it: the hold then ends after its timeout.)
        holdPublication(of: fixture) { _ = moved.wait(timeout: .now() + 1) }
        let committed = DispatchSemaphore(value: 0)
        commit { committed.signal() }
        while try !store.refresh() { usleep(500) }  // polls a condition: the commit showing
        moved.signal()
        committed.wait()
    }

    /// Runs `hold` on the committing thread of every commit of `fixture`'s file this process makes,
    /// after LMDB committed and before the log is published; until the test ends.
    private func holdPublication(of fixture: Fixture, _ hold: @escaping @Sendable () -> Void) {
        let path = fixture.path
        ChangeHub.beforePublishing.withLock { $0[path] = hold }
        addTeardownBlock { _ = ChangeHub.beforePublishing.withLock { $0.removeValue(forKey: path) } }
    }
}

/// An actor that changes notes with `asyncWrite` (whose commits are a group's).
actor NoteWriter: StoreActor {
    var store: Store?

    func setBody(_ body: String, of id: Int) async throws {
        let store = try XCTUnwrap(store)
        try await store.asyncWrite { store.object(ofType: WatchedNote.self, forPrimaryKey: id)?.body = body }
    }

    /// Sets note 1's body on a new writer's Store, then calls `done` with the failure, if any.
    static func setBody(
        _ body: String, in configuration: Store.Configuration, then done: @escaping @Sendable ((any Error)?) -> Void
    ) {
        Task.detached {
            let writer = NoteWriter()
            var failure: (any Error)?
            do {
                try await writer.open(configuration)
                try await writer.setBody(body, of: 1)
            } catch {
                failure = error
            }
            await writer.close()
            done(failure)
        }
    }
}
