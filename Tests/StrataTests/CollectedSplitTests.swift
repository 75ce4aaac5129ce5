import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A query's rows collected by a split walk (`CollectedRows` read in key ranges at once by helper
/// threads, `ScanSplit`): the objects, their order and their values are those a plain model of the
/// table gives; and the rows a helper read stay valid after its transaction ended, for as long as
/// the Store's snapshot is held, whatever other threads commit meanwhile.
@Suite(.fixtureChecks, .offThePool) struct CollectedSplitTests {
    static let count = 60_000

    /// What the model keeps of an object: its key and the values the queries test and sort by.
    struct Row: Equatable {
        let key: String
        let int: Int
        let int8: Int8
        let optDouble: Double?
        let double: Double
        let date: Date
        let bool: Bool

        init(_ object: AllTypes) {
            (key, int, int8, optDouble) = (object.key, object.int, object.int8, object.optDouble)
            (double, date, bool) = (object.double, object.date, object.bool)
        }
    }

    /// `rows` (in key order) sorted the plain way: stable, nil first ascending and last descending.
    static func sorted<V: Comparable>(_ rows: [Row], by value: (Row) -> V?, ascending: Bool) -> [Row] {
        rows.enumerated()
            .sorted { lhs, rhs in
                switch (value(lhs.element), value(rhs.element)) {
                case (nil, nil): return lhs.offset < rhs.offset
                case (nil, _): return ascending
                case (_, nil): return !ascending
                case (let a?, let b?): return a != b ? (a < b) == ascending : lhs.offset < rhs.offset
                }
            }
            .map(\.element)
    }

    @Test(arguments: [UInt64(3), 11, 29])
    func randomQueriesCollectWhatAPlainModelGives(seed: UInt64) throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try CollectedRowsTests.filled(in: fixture, seed: seed, count: Self.count)
        let all = store.objects(AllTypes.self)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            #expect(ScanSplit(all.binding, reader: all.core.rows) != nil, "the walks below are split")
        }
        let model = Array(all).map(Row.init)  // the table walk: key order
        var random = SplitMix64(state: seed)
        for round in 0..<12 {
            let bound = Int(random.next() % 56) - 28
            let small = Int8(truncatingIfNeeded: bound % 5)
            var results: Results<AllTypes>
            var expected: [Row]
            switch random.next() % 4 {
            case 0: (results, expected) = (all.where { $0.int > bound }, model.filter { $0.int > bound })
            case 1: (results, expected) = (all.where { $0.optDouble == nil }, model.filter { $0.optDouble == nil })
            case 2: (results, expected) = (all.where { $0.int8 < small }, model.filter { $0.int8 < small })
            default: (results, expected) = (all.where { $0.bool }, model.filter(\.bool))
            }
            let ascending = random.next() % 2 == 0
            switch random.next() % 4 {
            case 0:
                results = results.sorted(by: \.optDouble, ascending: ascending)
                expected = Self.sorted(expected, by: \.optDouble, ascending: ascending)
            case 1:
                results = results.sorted(by: \.int, ascending: ascending)
                expected = Self.sorted(expected, by: \.int, ascending: ascending)
            case 2:
                results = results.sorted(by: \.date, ascending: ascending)
                expected = Self.sorted(expected, by: \.date, ascending: ascending)
            default:
                break
            }
            let collected = try #require(try results.collectedRows(), "round \(round): the collected route")
            #expect(collected.keys.count == expected.count, "round \(round)")
            let iterated = Array(results).map(Row.init)
            #expect(iterated.count == expected.count, "round \(round)")
            let difference = iterated.indices.first { $0 < expected.count && iterated[$0] != expected[$0] }
            #expect(
                difference == nil, "round \(round): \(difference.map { "\(iterated[$0]) for \(expected[$0])" } ?? "")")
        }
    }

    @Test func rowsReadByHelpersStayValidWhileTheSnapshotIsHeld() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try ScanSplitTests.filled(.dense, in: fixture)
        let items = store.objects(Item.self)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            #expect(ScanSplit(items.binding, reader: items.core.rows) != nil, "the collection below is split")
        }
        let above = items.where { $0.score > 3 }
        let expected = Array(items).filter { $0.score > 3 }.map { ItemRow(id: $0.id, score: $0.score, name: $0.name) }
        let rows = { (results: Results<Item>) in results.map { ItemRow(id: $0.id, score: $0.score, name: $0.name) } }
        #expect(rows(above) == expected)  // evaluated (split), kept for this snapshot

        // Each pass frees the pages the one before wrote, and the first frees those the helpers read:
        // LMDB would reuse them if nothing held the version they belong to.
        try ScanSplitTests.onAnotherThread {
            let other = try Store(configuration: fixture.configuration)
            for pass in 0..<2 {
                try other.write {
                    for item in other.objects(Item.self) {
                        item.score = 1_000 + Double(pass)
                        item.name = "pass \(pass)"
                    }
                }
            }
        }
        #expect(rows(above) == expected, "the rows collected before the commits")
        let byScore = above.sorted(by: \.score, ascending: false)
        #expect(
            rows(byScore)
                == expected.enumerated().sorted {
                    $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset
                }.map(\.element))

        try store.refresh()
        #expect(rows(above).count == ScanSplitTests.count)
        #expect(rows(above).allSatisfy { $0.score == 1_001 && $0.name == "pass 1" })
    }

    struct ItemRow: Equatable {
        let id: Int
        let score: Double
        let name: String
    }
}
