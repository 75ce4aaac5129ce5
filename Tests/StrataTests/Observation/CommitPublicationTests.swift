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
        let (titleTold, bodyTold) = (OnChangeCount(), OnChangeCount())
        withObservationTracking {
            _ = note.title
        } onChange: {
            titleTold.add()
        }
        withObservationTracking {
            _ = note.body
        } onChange: {
            bodyTold.add()
        }

        let moved = DispatchSemaphore(value: 0)
        holdPublication(of: fixture) { _ = moved.wait(timeout: .now() + 1) }
        let committed = DispatchSemaphore(value: 0)
        let changeBody: @Sendable (Store) -> Void = { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.body = "changed"
        }
        Self.commitOnAnotherThread(fixture.configuration, changeBody) { committed.signal() }
        // Moves this Store to the commit as soon as LMDB shows it (refresh delivers on this thread).
        while try !store.refresh() { usleep(500) }
        moved.signal()
        committed.wait()
        XCTAssertEqual(note.body, "changed")
        XCTAssertEqual(bodyTold.value, 1)
        XCTAssertEqual(titleTold.value, 0)
    }

    func testAGroupCommitIsToldExactlyToo() throws {
        let (fixture, store, note) = try watchedNote()
        let (titleTold, bodyTold) = (OnChangeCount(), OnChangeCount())
        withObservationTracking {
            _ = note.title
        } onChange: {
            titleTold.add()
        }
        withObservationTracking {
            _ = note.body
        } onChange: {
            bodyTold.add()
        }

        let moved = DispatchSemaphore(value: 0)
        holdPublication(of: fixture) { _ = moved.wait(timeout: .now() + 1) }
        let committed = DispatchSemaphore(value: 0)
        let configuration = fixture.configuration
        Task.detached {
            let writer = NoteWriter()
            do {
                try await writer.open(configuration)
                try await writer.setBody("changed", of: 1)  // an asyncWrite: a group's commit
            } catch {
                XCTFail("\(error)")
            }
            await writer.close()
            committed.signal()
        }
        while try !store.refresh() { usleep(500) }
        moved.signal()
        committed.wait()
        XCTAssertEqual(note.body, "changed")
        XCTAssertEqual(bodyTold.value, 1)
        XCTAssertEqual(titleTold.value, 0)
    }

    func testACommitThatFailsLeavesNothingPendingAndTheNextIsToldExactly() throws {
        let (fixture, store, note) = try watchedNote()
        let (titleTold, bodyTold) = (OnChangeCount(), OnChangeCount())
        withObservationTracking {
            _ = note.title
        } onChange: {
            titleTold.add()
        }
        withObservationTracking {
            _ = note.body
        } onChange: {
            bodyTold.add()
        }
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
        let titleTold = OnChangeCount()
        withObservationTracking {
            _ = note.title
        } onChange: {
            titleTold.add()
        }
        let path = fixture.path
        CommitGroup.beforeCommit.withLock { $0[path] = { LMDBError.mapFull } }
        addTeardownBlock { _ = CommitGroup.beforeCommit.withLock { $0.removeValue(forKey: path) } }
        let failed = expectation(description: "the group's commit failed")
        let configuration = fixture.configuration
        Task.detached {
            let writer = NoteWriter()
            do {
                try await writer.open(configuration)
                try await writer.setBody("lost", of: 1)
                XCTFail("the commit succeeded")
            } catch {
                XCTAssertEqual(error as? StoreError, .mapFull)
            }
            await writer.close()
            failed.fulfill()
        }
        wait(for: [failed], timeout: 30)
        XCTAssertEqual(store.core.shared.changes.pendingCommitCount, 0)
        XCTAssertFalse(try store.refresh())
        XCTAssertEqual(note.body, "body")
        XCTAssertEqual(titleTold.value, 0)
    }

    /// The main thread's Store of a file with one note, and the note.
    private func watchedNote() throws -> (Fixture, Store, WatchedNote) {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write { try store.add(WatchedNote(id: 1, title: "title", body: "body")) }
        return (fixture, store, try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1)))
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
}
