import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct FreezeTests {
    private func populated() throws -> (Fixture, Store) {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (0..<500).map { Item(id: $0, score: Double($0), name: "i\($0)") }) }
        return (fixture, store)
    }

    @Test func aFrozenStoreKeepsItsVersionAndIsReadFromManyThreadsAtOnce() throws {
        let (fixture, store) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        let frozen = try store.freeze()
        #expect(frozen.isFrozen)
        #expect(!store.isFrozen)
        try store.write {
            try store.delete(store.objects(Item.self).where { $0.id < 100 })
            store.object(ofType: Item.self, forPrimaryKey: 200)!.score = -1
        }
        #expect(store.objects(Item.self).count == 400)
        let shared = Unchecked(frozen)
        let sums = (0..<4).map { _ in
            Thread.detachNewThreadResult {
                let items = shared.value.objects(Item.self)
                let big = shared.value.objects(Item.self).where { $0.score >= 250 }
                return items.reduce(0) { $0 + $1.score } + Double(items.count) + Double(big.count)
                    + (shared.value.object(ofType: Item.self, forPrimaryKey: 200)?.score ?? 0)
            }
        }.map { $0.wait() }
        let expected = Double((0..<500).reduce(0, +)) + 500 + 250 + 200
        #expect(sums == Array(repeating: expected, count: 4))
        #expect(throws: StoreError.readOnly) { try frozen.write {} }
        #expect(try frozen.refresh() == false)
        let live = try frozen.thaw()
        #expect(live == store)
        #expect(live.objects(Item.self).count == 400)
    }

    /// Documented difference from Realm: a write that changes nothing commits no new version (LMDB
    /// writes nothing for it), so freezing after it gives the frozen Store of the version before.
    @Test func anEmptyWriteMakesNoVersionSoFreezingAfterItGivesTheSameSnapshot() throws {
        let (fixture, store) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        let before = try store.freeze()
        let version = try store.core.version()
        try store.write {}
        #expect(try store.core.version() == version)
        #expect(try store.freeze() == before)
        try store.write { store.object(ofType: Item.self, forPrimaryKey: 1)!.score = 7 }
        let after = try store.freeze()
        #expect(after != before)
        #expect(after.object(ofType: Item.self, forPrimaryKey: 1)?.score == 7)
    }

    @Test func frozenObjectsAndResultsAndThawingThem() throws {
        let (fixture, store) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        let item = store.object(ofType: Item.self, forPrimaryKey: 7)!
        let frozenItem = try item.freeze()
        let frozenResults = try store.objects(Item.self).where { $0.score < 10 }.sorted(by: \.score, ascending: false)
            .freeze()
        #expect(frozenItem.isFrozen)
        #expect(!item.isFrozen)
        #expect(frozenResults.isFrozen)
        try store.write {
            item.score = 1000
            try store.delete(store.object(ofType: Item.self, forPrimaryKey: 9)!)
        }
        let seen = Unchecked((frozenItem, frozenResults))
        let outcome = onAnotherThread { () -> [Double] in
            [seen.value.0.score] + seen.value.1.map(\.score)
        }
        #expect(outcome == [7, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
        #expect(try frozenItem.thaw()?.score == 1000)
        #expect(try frozenResults.thaw().map(\.id) == [8, 6, 5, 4, 3, 2, 1, 0])
        let frozenNine = try store.freeze().objects(Item.self).where { $0.id == 8 }.first!
        try store.write { try store.delete(store.object(ofType: Item.self, forPrimaryKey: 8)!) }
        #expect(try frozenNine.thaw() == nil)
        #expect(throws: StoreError.notManaged) { try Item(id: 1, score: 0, name: "").freeze() }
        #expect { try frozenResults.observe { _ in } } throws: { isCase($0, .invalidArgument("")) }
        #expect { try store.objects(Item.self).filter { _ in true }.freeze() } throws: {
            isCase($0, .invalidArgument(""))
        }
    }

    @Test func diagnosticsNameTheFrozenSnapshotThatPinsAVersion() throws {
        let (fixture, store) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        var frozen: Store? = try store.freeze()
        let pinned = try frozen!.core.version()
        for id in 500..<520 { try store.write { try store.add(Item(id: id, score: 0, name: "")) } }
        let report = try store.diagnostics()
        #expect(report.latestVersion == pinned + 20)
        #expect(report.oldestPinnedVersion == pinned)
        #expect(report.frozenSnapshots.map(\.version) == [pinned])
        #expect(report.readers.contains { $0.processID == getpid() && $0.version == pinned })
        #expect(report.usedBytes <= report.fileBytes)
        #expect(report.description.contains("version \(pinned): process \(getpid())"))
        #expect(report.description.contains("a frozen snapshot of this process, 20 behind"))
        frozen = nil
        let after = try store.diagnostics()
        #expect(after.frozenSnapshots.isEmpty)
        #expect((after.oldestPinnedVersion ?? .max) > pinned)
    }
}

extension Thread {
    /// Runs `body` on a new thread; `wait()` returns its result.
    static func detachNewThreadResult<R: Sendable>(_ body: @escaping @Sendable () -> R) -> PendingResult<R> {
        let pending = PendingResult<R>()
        Thread.detachNewThread {
            pending.box.value = body()
            pending.done.signal()
        }
        return pending
    }
}

final class PendingResult<R: Sendable>: @unchecked Sendable {
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    func wait() -> R {
        done.wait()
        return box.value!
    }
}

/// A frozen object handed to a live Store's write says it is frozen (it is no other thread's object).
@Suite(.fixtureChecks) struct FrozenInAWriteTests {
    @Test func addingDeletingOrLinkingAFrozenObjectSaysItIsFrozen() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let frozen = try #require(store.object(ofType: Person.self, forPrimaryKey: 1)).freeze()
        func isFrozenError(_ error: any Error) -> Bool {
            guard case .invalidArgument(let reason) = error as? StoreError else { return false }
            return reason.contains("frozen")
        }
        try store.write {
            #expect(throws: (any Error).self) { try store.add(frozen, update: .modified) }
            #expect { try store.add(frozen, update: .modified) } throws: { isFrozenError($0) }
            #expect { try store.add(frozen) } throws: { isFrozenError($0) }
            #expect { try store.delete(frozen) } throws: { isFrozenError($0) }
            #expect { try store.add(Dog(name: "Rex", owner: frozen)) } throws: { isFrozenError($0) }
        }
        #expect(store.objects(Dog.self).isEmpty)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Ann")
    }
}
