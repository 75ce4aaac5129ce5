import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// A row whose change says that a round's commit was delivered.
final class RoundMarker: Object, Observable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var round: Int
}

/// Observation of Results against a plain reference: seeded rounds in which random Results (the whole
/// table, conditions, a closure filter, sorts, a prefix, kept across rounds or made anew) are tracked
/// for their count, their objects or an aggregate, then one random commit (this thread's or another's:
/// titles, ranks, deletions, insertions, a row deleted and added again) changes the rows. Each tracking
/// must be told exactly when the reference says what it read changed: the count, the ordered ids, or
/// (an aggregate) the ids or any property of a row held. What each Results holds is checked against
/// the reference every round.
final class ResultsObservationModelTests: XCTestCase {
    private struct Row: Equatable {
        var title: String
        var rank: Int
    }

    private enum Aspect: CaseIterable {
        case count, elements, contents
    }

    private enum Operation: Sendable {
        case title(row: Int, String)
        case rank(row: Int, Int)
        case delete(row: Int)
        case insert(row: Int, title: String, rank: Int)
    }

    private final class Tracker: @unchecked Sendable {  // written and read on the main thread
        let query: Int
        let aspect: Aspect
        var calls = 0

        init(query: Int, aspect: Aspect) {
            self.query = query
            self.aspect = aspect
        }
    }

    /// The queries, as Strata evaluates them and as the reference does (ids in the Results' order).
    private static let queryCount = 6

    private static func results(_ query: Int, in store: Store) -> Results<RankedItem> {
        let all = store.objects(RankedItem.self)
        switch query {
        case 0: return all
        case 1: return all.where { $0.title.starts(with: "a") }
        case 2: return all.sorted(by: [SortKey(\.rank), SortKey(\.id)])
        case 3: return all.where { $0.rank < 5 }.sorted(by: \.title)
        case 4: return all.filter { $0.title.hasSuffix("x") }
        default: return all.sorted(by: [SortKey(\.rank, ascending: false), SortKey(\.id)]).prefix(3)
        }
    }

    private static func reference(_ query: Int, _ rows: [Int: Row]) -> [Int] {
        let byId = rows.sorted { $0.key < $1.key }
        switch query {
        case 0: return byId.map(\.key)
        case 1: return byId.filter { $0.value.title.hasPrefix("a") }.map(\.key)
        case 2: return byId.sorted { ($0.value.rank, $0.key) < ($1.value.rank, $1.key) }.map(\.key)
        case 3:
            return byId.filter { $0.value.rank < 5 }
                .sorted { $0.value.title.utf8.lexicographicallyPrecedes($1.value.title.utf8) }.map(\.key)
        case 4: return byId.filter { $0.value.title.hasSuffix("x") }.map(\.key)
        default: return Array(byId.sorted { ($1.value.rank, $0.key) < ($0.value.rank, $1.key) }.prefix(3).map(\.key))
        }
    }

    func testRandomTrackingOfResultsAgainstAReference() throws {
        for seed: UInt64 in [11, 12, 13] { try run(seed: seed, rounds: 100) }
    }

    private func run(seed: UInt64, rounds: Int) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([RankedItem.self, RoundMarker.self])
        let store = try fixture.open()
        var rows: [Int: Row] = [:]
        func randomTitle(_ tag: String) -> String {
            ["a", "b", "c"].randomElement(using: &random)! + tag + (Bool.random(using: &random) ? "x" : "")
        }
        for id in 1...8 { rows[id] = Row(title: randomTitle("\(id)"), rank: Int.random(in: 0..<8, using: &random)) }
        try store.write {
            for (id, row) in rows { try store.add(RankedItem(id: id, title: row.title, rank: row.rank)) }
            try store.add(RoundMarker(value: ["id": 1, "round": -1]))
        }
        let marker = try XCTUnwrap(store.object(ofType: RoundMarker.self, forPrimaryKey: 1))
        var kept = (0..<Self.queryCount).map { Self.results($0, in: store) }
        var nextRow = 9
        var told = 0
        var untold = 0
        for round in 0..<rounds {
            for query in kept.indices where Int.random(in: 0..<4, using: &random) == 0 {
                kept[query] = Self.results(query, in: store)  // a Results made anew
            }
            var trackers: [Tracker] = []
            var before: [[Int]] = []
            for (query, results) in kept.enumerated() {
                let ids = Array(results.values(of: \.id))
                XCTAssertEqual(ids, Self.reference(query, rows), "seed \(seed) round \(round) query \(query)")
                before.append(ids)
                for aspect in Aspect.allCases where Bool.random(using: &random) {
                    let tracker = Tracker(query: query, aspect: aspect)
                    withObservationTracking {
                        switch aspect {
                        case .count: _ = results.count
                        case .elements:
                            if Bool.random(using: &random) { for _ in results {} } else { _ = results.first }
                        case .contents: _ = results.sum(of: \.rank)
                        }
                    } onChange: {
                        tracker.calls += 1
                    }
                    trackers.append(tracker)
                }
            }
            let delivered = expectation(description: "round \(round) delivered")
            withObservationTracking {
                _ = marker.round
            } onChange: {
                delivered.fulfill()
            }

            var operations: [Operation] = []
            var modified: Set<Int> = []
            var deleted: Set<Int> = []
            for step in 0..<Int.random(in: 1...3, using: &random) {
                let ids = rows.keys.sorted()
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3 where !ids.isEmpty:
                    let row = ids.randomElement(using: &random)!
                    let title = randomTitle("r\(round)s\(step)")
                    operations.append(.title(row: row, title))
                    rows[row]!.title = title
                    modified.insert(row)
                case 3..<6 where !ids.isEmpty:
                    let row = ids.randomElement(using: &random)!
                    let rank =
                        rows[row]!.rank + Int.random(in: 1...4, using: &random) * (Bool.random(using: &random) ? 1 : -1)
                    operations.append(.rank(row: row, rank))
                    rows[row]!.rank = rank
                    modified.insert(row)
                case 6..<8 where !ids.isEmpty:
                    let row = ids.randomElement(using: &random)!
                    operations.append(.delete(row: row))
                    rows[row] = nil
                    deleted.insert(row)
                default:
                    // A new row, or one deleted in this round added again (all its values count as changed).
                    let row = deleted.subtracting(rows.keys).sorted().randomElement(using: &random) ?? nextRow
                    if row == nextRow { nextRow += 1 }
                    let new = Row(title: randomTitle("n\(round)"), rank: Int.random(in: 0..<8, using: &random))
                    operations.append(.insert(row: row, title: new.title, rank: new.rank))
                    rows[row] = new
                    if deleted.contains(row) { modified.insert(row) }
                }
            }
            try commit(operations, round: round, fixture: fixture, store: store, own: Bool.random(using: &random))
            wait(for: [delivered], timeout: 30)  // the whole delivery runs in one turn of the main queue

            for tracker in trackers {
                let old = before[tracker.query]
                let new = Self.reference(tracker.query, rows)
                let expected: Bool
                switch tracker.aspect {
                case .count: expected = old.count != new.count
                case .elements: expected = old != new
                case .contents: expected = old != new || !modified.isDisjoint(with: old)
                }
                XCTAssertEqual(
                    tracker.calls, expected ? 1 : 0,
                    "seed \(seed) round \(round): query \(tracker.query) \(tracker.aspect) read \(old), now \(new); "
                        + "modified \(modified.sorted()), deleted \(deleted.sorted())")
                if expected { told += 1 } else { untold += 1 }
            }
        }
        XCTAssertGreaterThan(told, rounds, "seed \(seed)")
        XCTAssertGreaterThan(untold, rounds, "seed \(seed)")
    }

    /// One commit of `operations` and the round's marker, on this thread or another's Store.
    private func commit(_ operations: [Operation], round: Int, fixture: Fixture, store: Store, own: Bool) throws {
        guard !own else {
            try store.write { try Self.apply(operations, round: round, in: store) }
            return
        }
        let done = DispatchSemaphore(value: 0)
        let configuration = fixture.configuration
        let failure = Locked<String?>(nil)
        DispatchQueue.global().async {
            do {
                let background = try Store(configuration: configuration)
                try background.write { try Self.apply(operations, round: round, in: background) }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertNil(failure.withLock { $0 })
    }

    private static func apply(_ operations: [Operation], round: Int, in store: Store) throws {
        for operation in operations {
            switch operation {
            case .title(let row, let title): store.object(ofType: RankedItem.self, forPrimaryKey: row)!.title = title
            case .rank(let row, let rank): store.object(ofType: RankedItem.self, forPrimaryKey: row)!.rank = rank
            case .delete(let row): try store.delete(store.object(ofType: RankedItem.self, forPrimaryKey: row)!)
            case .insert(let row, let title, let rank): try store.add(RankedItem(id: row, title: title, rank: rank))
            }
        }
        store.object(ofType: RoundMarker.self, forPrimaryKey: 1)!.round = round
    }
}
