import Foundation
import Observation
import StrataTestSupport
import Testing

@testable import Strata

/// Observation of commits another process made: the Store cannot tell which rows they changed, so
/// every watched accessor is told, once the Store moves to them.
@Suite("Observation across processes", .fixtureChecks)
struct ObservationProcessTests {
    @Test("another process's commit calls onChange when the Store refreshes")
    func anotherProcess() throws {
        let fixture = Fixture([SharedNote.self])
        let store = try fixture.open()
        try store.write {
            let note = SharedNote()
            note.id = 1
            note.title = "here"
            try store.add(note)
        }
        let note = try #require(store.object(ofType: SharedNote.self, forPrimaryKey: 1))
        let changed = Locked(0)
        withObservationTracking {
            _ = note.title
        } onChange: {
            changed.withLock { $0 += 1 }
        }
        let writer = try StressProcess(["retitle", fixture.path, "1", "there"])
        #expect(writer.remainingLines() == ["done"])
        #expect(writer.wait().status == 0)
        #expect(changed.withLock { $0 } == 0, "a Store of a thread without queue moves on refresh()")
        try store.refresh()
        #expect(changed.withLock { $0 } == 1)
        #expect(note.title == "there")
    }

    @Test("another process's commit is evaluated again for a tracked Results: told only what changed")
    func resultsOfAnotherProcess() throws {
        let fixture = Fixture([SharedNote.self])
        let store = try fixture.open()
        try store.write {
            for (id, title) in [(1, "a"), (2, "b")] {
                let note = SharedNote()
                note.id = id
                note.title = title
                try store.add(note)
            }
        }
        let byTitle = store.objects(SharedNote.self).sorted(by: \.title)
        let order = Locked(0)
        let count = Locked(0)
        withObservationTracking {
            _ = byTitle.first
        } onChange: {
            order.withLock { $0 += 1 }
        }
        withObservationTracking {
            _ = byTitle.count
        } onChange: {
            count.withLock { $0 += 1 }
        }
        let writer = try StressProcess(["retitle", fixture.path, "1", "c"])
        #expect(writer.remainingLines() == ["done"])
        #expect(writer.wait().status == 0)
        try store.refresh()
        #expect(order.withLock { $0 } == 1)
        #expect(count.withLock { $0 } == 0, "the count stayed 2")
        #expect(byTitle.map(\.id) == [2, 1])
    }
}
