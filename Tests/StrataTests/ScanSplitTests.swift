import Dispatch
import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Walks over a large table split into key ranges read at once (`ScanSplit`): the same answers as
/// the objects give, whatever the keys look like; the helpers read the Store's version or nothing; a
/// write's own rows are seen; damage is named as a walk on one thread names it.
@Suite(.fixtureChecks, .offThePool) struct ScanSplitTests {
    static let count = 60_000

    /// How the primary keys of the table spread.
    enum Keys: String, CaseIterable, Sendable {
        /// 0..<count.
        case dense
        /// Most keys near zero, a few near Int.max and Int.min: the ranges' rows are uneven.
        case skewed
        /// Strings with a long shared prefix (Town's name).
        case sharedPrefix
    }

    static func intKey(_ index: Int, _ keys: Keys) -> Int {
        guard keys == .skewed else { return index }
        switch index % 1_000 {
        case 0: return Int.max - index
        case 1: return Int.min + index
        default: return index
        }
    }

    /// Scores with many ties (a first page's order among equal scores is the key order).
    static func score(_ index: Int) -> Double { Double((index &* 7_919) % 97) - 40.5 }

    static func filled(_ keys: Keys, in fixture: Fixture) throws -> Store {
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for index in 0..<count {
                switch keys {
                case .dense, .skewed:
                    try store.add(Item(id: intKey(index, keys), score: score(index), name: "n\(index % 13)"))
                case .sharedPrefix:
                    try store.add(Town(name: "town-of-the-long-shared-prefix-\(index)", population: index % 89))
                }
            }
        }
        return store
    }

    /// Runs `body` on a thread of its own (a Store there is not this thread's) and waits for it.
    static func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () throws -> R) throws -> R {
        let outcome = Locked<Result<R, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            outcome.withLock { $0 = Result(catching: body) }
            done.signal()
        }.start()
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    @Test(arguments: Keys.allCases)
    func aSplitWalkGivesWhatTheObjectsGive(_ keys: Keys) throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.filled(keys, in: fixture)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            // The answers below come from a split walk, not from a fallback to one thread.
            let splits =
                keys == .sharedPrefix
                ? store.objects(Town.self).splitsItsWalk : store.objects(Item.self).splitsItsWalk
            #expect(splits, "\(keys)")
        }
        if keys == .sharedPrefix {
            let towns = store.objects(Town.self)
            let all = Array(towns).map { (name: $0.name, population: $0.population) }
            #expect(towns.where { $0.population > 40 }.count == all.filter { $0.population > 40 }.count)
            #expect(towns.count == Self.count)
            #expect(towns.sum(of: \.population) == all.reduce(0) { $0 + $1.population })
            let reference = all.enumerated()
                .sorted {
                    $0.element.population != $1.element.population
                        ? $0.element.population > $1.element.population : $0.offset < $1.offset
                }
                .prefix(30).map(\.element.name)
            // Asked three times: walked, then copied by a split walk (`ColumnCopyBuilder`), then the copy.
            for round in 0..<3 {
                let page = towns.sorted(by: \.population, ascending: false).prefix(30).map(\.name)
                #expect(page == Array(reference), "round \(round)")
            }
            #expect(store.core.shared.columnCopies.usage.count == 1)
            return
        }
        let items = store.objects(Item.self)
        let all = Array(items).map { (id: $0.id, score: $0.score) }  // in key order
        #expect(all.count == Self.count)
        #expect(items.count == Self.count)
        #expect(items.where { $0.score > 3 }.count == all.filter { $0.score > 3 }.count)
        #expect(Array(items.where { $0.score < 0 }.values(of: \.score)) == all.filter { $0.score < 0 }.map(\.score))
        #expect(Array(items.values(of: \.score)) == all.map(\.score))
        if keys == .dense { #expect(items.sum(of: \.id) == all.reduce(0) { $0 + $1.id }) }
        var scoresSeen = Set<Double>()
        #expect(
            items.distinct(by: [\.score]).map(\.id) == all.filter { scoresSeen.insert($0.score).inserted }.map(\.id))
        var aboveSeen = Set<Double>()
        let firstAbove = all.filter { $0.score > 3 && aboveSeen.insert($0.score).inserted }.map(\.id)
        #expect(items.where { $0.score > 3 }.distinct(by: [\.score]).map(\.id) == firstAbove)
        let scoreSum = all.reduce(0.0) { $0 + $1.score }
        #expect(abs(items.sum(of: \.score) - scoreSum) <= 1e-9 * all.reduce(0.0) { $0 + abs($1.score) })
        for ascending in [true, false] {
            // Asked three times: walked, then copied by a split walk (`ColumnCopyBuilder`), then the copy.
            let pages = (0..<3).map { _ in items.sorted(by: \.score, ascending: ascending).prefix(50).map(\.id) }
            let reference = all.enumerated()
                .sorted { lhs, rhs in
                    if lhs.element.score != rhs.element.score {
                        return ascending ? lhs.element.score < rhs.element.score : lhs.element.score > rhs.element.score
                    }
                    return lhs.offset < rhs.offset
                }
                .prefix(50).map(\.element.id)
            #expect(pages.allSatisfy { $0 == Array(reference) }, "ascending: \(ascending)")
        }
        #expect(store.core.shared.columnCopies.usage.count == 1, "the score column, copied once for both directions")
    }

    @Test func theTableIsSplitWhenMoreThanOneThreadIsAllowed() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.filled(.dense, in: fixture)
        let results = store.objects(Item.self)
        let split = ScanSplit(results.binding, reader: results.core.rows)
        guard ProcessInfo.processInfo.activeProcessorCount > 1 else {
            #expect(split == nil)
            return
        }
        let parts = try #require(split)
        #expect(parts.boundaries.count == parts.threads * ScanSplit.partsPerThread - 1)
        let rows = try parts.run { (_, part) throws(StoreError) in
            try results.core.rows.count(results.binding, where: 0, passes: EveryRow(), in: part)
        }
        #expect(rows.reduce(0, +) == Self.count)
        #expect(rows.allSatisfy { $0 > 0 }, "\(rows)")

        let one = {
            var configuration = fixture.configuration
            configuration.maximumQueryThreads = 1
            return configuration
        }()
        let single = try Self.onAnotherThread { () throws -> Int in
            let store = try Store(configuration: one)
            let results = store.objects(Item.self)
            #expect(ScanSplit(results.binding, reader: results.core.rows) == nil)
            return results.where { $0.score > 3 }.count
        }
        #expect(single == results.where { $0.score > 3 }.count)
    }

    @Test func helpersReadTheStoresVersionOrLeaveTheirRangesToIt() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.filled(.dense, in: fixture)
        let items = store.objects(Item.self)
        #expect(items.where { $0.score > 3 }.count == 0 + Array(items).filter { $0.score > 3 }.count)
        let before = items.where { $0.score > 3 }.count

        // Another thread commits: this thread's Store stays at its version until it refreshes.
        try Self.onAnotherThread {
            let other = try Store(configuration: fixture.configuration)
            try other.write {
                for index in 0..<5_000 { try other.add(Item(id: Self.count + index, score: 99, name: "new")) }
            }
        }
        if let split = ScanSplit(items.binding, reader: items.core.rows) {
            let throughHelpers = try split.run { (_, part) throws(StoreError) in part.transaction != nil }
            #expect(!throughHelpers.contains(true), "a helper read a newer version")
        }
        #expect(items.where { $0.score > 3 }.count == before)
        #expect(items.count == Self.count)
        #expect(items.sorted(by: \.score, ascending: false).prefix(1).first?.score != 99)

        try store.refresh()
        #expect(items.where { $0.score > 3 }.count == before + 5_000)
        #expect(items.sorted(by: \.score, ascending: false).prefix(1).first?.score == 99)
        if let split = ScanSplit(items.binding, reader: items.core.rows) {
            let throughHelpers = try split.run { (_, part) throws(StoreError) in part.transaction != nil }
            #expect(throughHelpers.contains(true), "no helper read the Store's version")
        }
    }

    /// With every reader slot taken, helpers get no transaction: the calling thread walks every range
    /// through its own snapshot, and the answer is the same.
    @Test func withoutAFreeReaderSlotTheCallingThreadWalksEveryRange() throws {
        let fixture = Fixture([Item.self, Town.self]) { $0.maximumReaders = 12 }
        let store = try Self.filled(.dense, in: fixture)
        let items = store.objects(Item.self)
        var frozen: [Store] = []
        var failure: (any Error)?
        while failure == nil, frozen.count < 100 {
            do {
                frozen.append(try store.freeze())
                // Each freeze pins a version of its own: move the file on.
                try store.write { items.first!.name = "version \(frozen.count)" }
            } catch {
                failure = error
            }
        }
        #expect(failure as? StoreError == .storage(.readersFull))
        let reference = Array(items).filter { $0.score > 3 }.map(\.id)
        if let split = ScanSplit(items.binding, reader: items.core.rows) {
            let throughHelpers = try split.run { (_, part) throws(StoreError) in part.transaction != nil }
            #expect(!throughHelpers.contains(true), "a helper found a reader slot")
        }
        #expect(items.where { $0.score > 3 }.count == reference.count)
        #expect(Array(items.where { $0.score > 3 }.values(of: \.id)) == reference)
        frozen.removeAll()
        #expect(items.where { $0.score > 3 }.count == reference.count)
    }

    @Test func insideAWriteTheWalkSeesTheWritesRows() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.filled(.dense, in: fixture)
        let items = store.objects(Item.self)
        let before = items.where { $0.score > 3 }.count
        try store.write {
            for index in 0..<100 { try store.add(Item(id: -1 - index, score: 99, name: "written")) }
            #expect(ScanSplit(items.binding, reader: items.core.rows) == nil)
            #expect(items.where { $0.score > 3 }.count == before + 100)
            #expect(items.sorted(by: \.score, ascending: false).prefix(3).map(\.id) == [-100, -99, -98])
            try store.cancelWrite()
        }
        #expect(items.where { $0.score > 3 }.count == before)
    }

    @Test func aDamagedRowIsNamedAsOneThreadNamesIt() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.filled(.dense, in: fixture)
        for id in [52_000, 31_000] {
            let key = RawAccess.key(of: store.object(ofType: Item.self, forPrimaryKey: id)!)
            try RawAccess.rewriteStoredRow(of: Item.self, key: key, in: store) { $0[$0.count / 2] ^= 0x20 }
        }
        let items = store.objects(Item.self)
        let above = items.where { $0.score > 3 }
        let score = try #require(items.binding.columnNames.firstIndex(of: "score"))
        for access in [items.plan.matches, above.plan.matches] {
            let engine = QueryEngine(core: items.core, binding: items.binding)
            let matches = try #require(access)
            let scanner = try #require(engine.scanner(matches))
            #expect {
                _ = try scanner.count()
            } throws: { error in
                "\(error)".contains("Item[31000]")
            }
            #expect {
                _ = try scanner.values(of: score, into: DoubleValues())
            } throws: { error in
                "\(error)".contains("Item[31000]")
            }
        }
    }
}

extension Results {
    /// Whether a walk over the Results' table is cut into ranges (`ScanSplit`).
    fileprivate var splitsItsWalk: Bool { ScanSplit(binding, reader: core.rows) != nil }
}

extension ScanSplit: Equatable {
    public static func == (lhs: ScanSplit, rhs: ScanSplit) -> Bool { lhs.boundaries == rhs.boundaries }
}

extension ScanSplitTests {
    /// A copy made by a split walk holds the ranges as chunks: nulls and ties across them keep the
    /// key order, for pages that end among the nulls, among the values, or span both.
    @Test func aCopyInChunksOrdersNullsAndTiesAcrossThem() throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try Store(configuration: fixture.configuration)
        let values: [Double] = [1.5, -2, 0, 7]
        try store.write {
            for index in 0..<Self.count {
                let object = AllTypes()
                object.key = String(format: "k%05d", index)
                let tenth = (index &* 7_919) % 10 == 0
                // Mostly nil (descending pages reach the nulls), or rarely nil (ascending ones pass them).
                object.optDouble = tenth ? values[(index &* 31) % values.count] : nil
                object.optInt = tenth ? nil : (index &* 31) % 5
                try store.add(object)
            }
        }
        let all = store.objects(AllTypes.self)
        if ProcessInfo.processInfo.activeProcessorCount > 1 { #expect(all.splitsItsWalk) }
        let objects = Array(all)
        func check(_ sorted: (Bool) -> Results<AllTypes>, _ value: (AllTypes) -> Double?, _ name: String) {
            for ascending in [true, false] {
                let expected = CollectedRowsTests.reference(objects, value, ascending: ascending, <)
                for limit in [1, 5_999, 6_001, 10_000] {
                    for round in 0..<3 {
                        let page = Array(sorted(ascending).prefix(limit)).map(\.key)
                        let differs = page != Array(expected.prefix(limit))
                        #expect(!differs, "\(name) ascending \(ascending), first \(limit), round \(round)")
                    }
                }
            }
        }
        check({ all.sorted(by: \.optDouble, ascending: $0) }, { $0.optDouble }, "optDouble")
        check({ all.sorted(by: \.optInt, ascending: $0) }, { $0.optInt.map(Double.init) }, "optInt")
        #expect(store.core.shared.columnCopies.usage.count == 2)
    }
}
