import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// Observation whose first watch begins inside a write: no observer of the file stood when the write
/// began, so the write logged nothing at first. Its commit must tell what it did after the watch
/// began, and nothing else: not "everything changed", and that before the Store shows the next
/// commit (a read in `onChange` would then see the old value).
final class ObservationInsideAWriteTests: XCTestCase {
    func testAnAddThatBeginsTheWatchIsNotToldAsAChangeAtItsCommit() throws {
        let fixture = Fixture([WatchedContact.self, WatchedPlace.self])
        let store = try fixture.open()
        let contact = WatchedContact()
        contact.id = 1
        contact.place = WatchedPlace()
        contact.place?.city = "Oslo"  // the unmanaged setters made its registrar: the add watches it
        try store.write { try store.add(contact) }
        let told = OnChangeCount()
        withObservationTracking {
            XCTAssertEqual(contact.place?.city, "Oslo")
        } onChange: {
            told.add()
        }
        try store.refresh()  // delivers the add's commit now
        XCTAssertEqual(told.value, 0)

        let cityChanged = track("city") { _ = contact.place?.city }
        commitInBackground(fixture.configuration) { store in
            store.object(ofType: WatchedContact.self, forPrimaryKey: 1)!.place!.city = "Bergen"
        }
        wait(for: [cityChanged], timeout: 30)
        XCTAssertEqual(contact.place?.city, "Bergen")
    }

    func testAChangeMadeBeforeAReadInTheSameWriteIsNotTold() throws {
        let (fixture, store) = try storeWithANoteAddedElsewhere()
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let told = try store.write {
            note.title = "set before the read"
            return countChanges { _ = note.title }
        }
        try store.refresh()
        XCTAssertEqual(told.value, 0)
        XCTAssertEqual(note.title, "set before the read")
        _ = fixture
    }

    func testAChangeMadeAfterAReadInTheSameWriteIsTold() throws {
        let (fixture, store) = try storeWithANoteAddedElsewhere()
        let note = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: 1))
        let (told, untouched) = try store.write {
            note.body = "set before the read"
            let tracked = (countChanges { _ = note.title }, countChanges { _ = note.body })
            note.title = "set after the read"
            return tracked
        }
        try store.refresh()
        XCTAssertEqual(told.value, 1)
        XCTAssertEqual(untouched.value, 0)
        XCTAssertEqual(note.title, "set after the read")
        _ = fixture
    }

    /// Only the Store that began the log inside its write may read it: another Store's observers
    /// standing before that commit take it as not logged.
    func testALogBegunInsideAWriteIsReadByItsStoreOnly() {
        let hub = ChangeHub()
        let own = NSObject()
        let other = NSObject()
        var changes = TableChanges()
        changes.noteModified(RowKey.integer(7), columns: [1])
        hub.observersOf(ObjectIdentifier(own), standAt: 1)
        hub.published(CommitLog(version: 2, tables: ["Note": changes], reader: ObjectIdentifier(own)))
        let ownSpan = hub.span(from: 1, to: 2, reader: ObjectIdentifier(own))
        XCTAssertTrue(ownSpan.isComplete)
        XCTAssertEqual(ownSpan.tables["Note"]?.modified[RowKey.integer(7)], [1])
        let otherSpan = hub.span(from: 1, to: 2, reader: ObjectIdentifier(other))
        XCTAssertFalse(otherSpan.isComplete)
        XCTAssertTrue(otherSpan.tables.isEmpty)
    }

    /// The add's commit and a later one reach the Store as one span (it delivers neither between):
    /// to an observer standing at the add's start the row is just inserted, but the accessor read it
    /// after the add, so the later change is told.
    func testARowChangedBeforeItsAddWasDeliveredIsTold() throws {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        let notes = (1...3).map { WatchedNote(id: $0, title: "draft") }
        let told = notes.map { note in countChanges { _ = note.title } }  // unmanaged: the add watches them
        try store.write { try store.add(notes) }
        commitWithoutDelivery(fixture.configuration) { store in
            store.object(ofType: WatchedNote.self, forPrimaryKey: 1)!.title = "final"
            try store.delete(store.object(ofType: WatchedNote.self, forPrimaryKey: 2)!)
        }
        try store.refresh()  // one span: the add, then the change
        XCTAssertEqual(told.map(\.value), [1, 1, 0])
        XCTAssertEqual(notes[0].title, "final")
        XCTAssertTrue(notes[1].isInvalidated)
    }

    func testMergedChangesKeepWhatFollowedAnInsertion() {
        var first = TableChanges()
        first.noteInserted(.integer(1), columns: 3)
        first.noteInserted(.integer(2), columns: 3)
        first.noteInserted(.integer(3), columns: 3)
        var second = TableChanges()
        second.noteModified(.integer(1), columns: [2])
        second.noteDeleted(.integer(2))
        first.append(second)
        XCTAssertEqual(first.inserted, [.integer(1), .integer(3)])
        XCTAssertEqual(first.changedAfterInsertion, [.integer(1): [2], .integer(2): [-1]])
        XCTAssertTrue(first.modified.isEmpty)
        XCTAssertTrue(first.deleted.isEmpty)
    }

    /// The main thread's Store of a file where another thread's Store added note 1 (nothing observed
    /// the file since).
    private func storeWithANoteAddedElsewhere() throws -> (Fixture, Store) {
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        commitInBackground(fixture.configuration) { store in try store.add(WatchedNote(id: 1)) }
        try store.refresh()
        XCTAssertFalse(store.core.shared.changes.isObserved, "a write here would log from its start")
        return (fixture, store)
    }
}
