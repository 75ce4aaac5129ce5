import Foundation
import StrataTestSupport
import Testing

@testable import Strata

final class StampedRow: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var created: Double?
    @Persisted var group: Int
}

/// A first page by a column with no index starts from a bound read at both ends of the table
/// (`QueryEngine.sampledBound`): values growing or shrinking with insertion ("newest first"), ties
/// at the bound, nulls at the ends; checked against a plain sort.
@Suite(.fixtureChecks) struct FirstPageBoundTests {
    static func filled(_ count: Int, seed: UInt64, in fixture: Fixture, value: (Int) -> Double) throws -> (
        Store, [(id: Int, created: Double?, group: Int)]
    ) {
        var random = SplitMix64(state: seed)
        let store = try fixture.open()
        var rows: [(id: Int, created: Double?, group: Int)] = []
        try store.write {
            for id in 0..<count {
                let row = StampedRow()
                row.id = id
                // Nulls now and then, at the ends too.
                let isNull = Int.random(in: 0..<25, using: &random) == 0 || id == 0 || id == count - 1
                row.created = isNull ? nil : value(id)
                row.group = Int.random(in: 0..<4, using: &random)
                rows.append((id, row.created, row.group))
                try store.add(row)
            }
        }
        return (store, rows)
    }

    static func expected(
        _ rows: [(id: Int, created: Double?, group: Int)], ascending: Bool, limit: Int
    ) -> [Int] {
        let sorted = rows.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element.created, rhs.element.created)
            if (a == nil) != (b == nil) { return (a == nil) == ascending }
            if let a, let b, a != b { return ascending ? a < b : a > b }
            return lhs.offset < rhs.offset
        }
        return sorted.prefix(limit).map(\.element.id)
    }

    @Test(
        "growing, shrinking and tied values, nulls at the ends: the page equals a plain sort's", arguments: [0, 1, 2])
    func pagesMatchAPlainSort(shape: Int) throws {
        let fixture = Fixture([StampedRow.self])
        let value: (Int) -> Double =
            switch shape {
            case 0: { Double($0) }  // newest first, descending
            case 1: { -Double($0 / 3) }  // shrinking, in threes
            default: { Double(($0 &* 7919) % 50) }  // random, many ties
            }
        let (store, rows) = try Self.filled(3_000, seed: UInt64(shape), in: fixture, value: value)
        let all = store.objects(StampedRow.self)
        for limit in [1, 5, 20, 64, 700] {
            for ascending in [true, false] {
                let page = all.sorted(by: \.created, ascending: ascending).prefix(limit)
                #expect(page.queryPlan.route == .heapPage)
                #expect(
                    page.map(\.id) == Self.expected(rows, ascending: ascending, limit: limit),
                    "shape \(shape) limit \(limit) ascending \(ascending)")
                let filtered = all.where { $0.group < 2 }.sorted(by: \.created, ascending: ascending).prefix(limit)
                #expect(
                    filtered.map(\.id)
                        == Self.expected(rows.filter { $0.group < 2 }, ascending: ascending, limit: limit),
                    "shape \(shape) limit \(limit) ascending \(ascending), filtered")
            }
        }
    }

    @Test("newest first over a table walked in split ranges")
    func splitWalk() throws {
        let fixture = Fixture([StampedRow.self])
        let (store, rows) = try Self.filled(ScanSplit.minimumRows + 3_000, seed: 9, in: fixture) { Double($0) }
        let page = store.objects(StampedRow.self).sorted(by: \.created, ascending: false).prefix(20)
        #expect(page.map(\.id) == Self.expected(rows, ascending: false, limit: 20))
    }

    @Test("a damaged row at an end of the table: no bound is taken from it, and the walk names it")
    func aDamagedEndRowIsNamed() throws {
        let fixture = Fixture([StampedRow.self])
        let (store, _) = try Self.filled(3_000, seed: 4, in: fixture) { Double($0) }
        let key = RawAccess.key(of: store.object(ofType: StampedRow.self, forPrimaryKey: 2_999)!)
        try RawAccess.rewriteStoredRow(of: StampedRow.self, key: key, in: store) { $0[$0.count / 2] ^= 0x20 }
        let page = store.objects(StampedRow.self).sorted(by: \.created, ascending: false).prefix(20)
        guard
            case .heapPage(let access, let column, let order, let ascending, let limit, let readsCopy) = page.plan.route
        else {
            Issue.record("route \(page.queryPlan)")
            return
        }
        let engine = QueryEngine(core: page.core, binding: page.binding)
        #expect {
            _ = try engine.heapPage(
                access, column: column, order: order, ascending: ascending, limit: limit, readsCopy: readsCopy)
        } throws: { error in
            "\(error)".contains("StampedRow[2999]")
        }
    }
}
