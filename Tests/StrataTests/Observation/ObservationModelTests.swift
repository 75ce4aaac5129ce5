import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// Observation against a plain reference: seeded rounds of random tracking (accessors, two of some
/// rows, each reading a random set of properties) and random commits (this thread's and another's,
/// one or two per round: titles, bodies, tags, deletions, insertions, a row deleted and added again),
/// then the `onChange` calls compared with the reference's rule: an accessor's tracking is told when
/// a commit changed a property it read, or deleted its row. A sentinel note changed by a round's last
/// commit says when the round's commits were delivered (all of them, in one turn of the main queue).
final class ObservationModelTests: XCTestCase {
    private static let properties = ["title", "body", "tags"]

    private final class Tracker: @unchecked Sendable {  // written and read on the main thread
        let accessor: Int
        let row: Int
        let properties: Set<String>
        var calls = 0

        init(accessor: Int, row: Int, properties: Set<String>) {
            self.accessor = accessor
            self.row = row
            self.properties = properties
        }
    }

    private enum Operation: Sendable {
        case set(row: Int, property: String, value: String)
        case delete(row: Int)
        case insert(row: Int)
    }

    private static let sentinel = 1_000

    func testRandomTrackingAndCommitsAgainstAReference() throws {
        for seed: UInt64 in [1, 2, 3] { try run(seed: seed, rounds: 100) }
    }

    private func run(seed: UInt64, rounds: Int) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([WatchedNote.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...6 { try store.add(WatchedNote(id: id, title: "t\(id)")) }
            try store.add(WatchedNote(id: Self.sentinel))
        }
        var rows = Set(1...6)
        var accessors: [(row: Int, note: WatchedNote)] = []
        func refill() {
            accessors.removeAll { !rows.contains($0.row) }
            for row in rows.sorted() where !accessors.contains(where: { $0.row == row }) {
                accessors.append((row, store.object(ofType: WatchedNote.self, forPrimaryKey: row)!))
                if Bool.random(using: &random) {  // a second accessor of the row
                    accessors.append((row, store.objects(WatchedNote.self).where { $0.id == row }.first!))
                }
            }
        }
        refill()
        let sentinel = try XCTUnwrap(store.object(ofType: WatchedNote.self, forPrimaryKey: Self.sentinel))
        var nextRow = 7
        var told = 0
        var untold = 0
        for round in 0..<rounds {
            var trackers: [Tracker] = []
            for (index, accessor) in accessors.enumerated() where Int.random(in: 0..<10, using: &random) < 6 {
                var read = Set(Self.properties.filter { _ in Bool.random(using: &random) })
                if read.isEmpty { read = [Self.properties.randomElement(using: &random)!] }
                let tracker = Tracker(accessor: index, row: accessor.row, properties: read)
                let note = accessor.note
                withObservationTracking {
                    if read.contains("title") { _ = note.title }
                    if read.contains("body") { _ = note.body }
                    if read.contains("tags") { _ = note.tags.count }
                } onChange: {
                    tracker.calls += 1
                }
                trackers.append(tracker)
            }
            let delivered = expectation(description: "round \(round) delivered")
            withObservationTracking {
                _ = sentinel.title
            } onChange: {
                delivered.fulfill()
            }
            var deleted: Set<Int> = []
            var changed: [Int: Set<String>] = [:]
            let commits = Int.random(in: 1...2, using: &random)
            for commit in 0..<commits {
                var operations: [Operation] = []
                for step in 0..<Int.random(in: 1...3, using: &random) {
                    let value = "r\(round)c\(commit)s\(step)"
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<6 where !rows.isEmpty:
                        let row = rows.sorted().randomElement(using: &random)!
                        let property = Self.properties.randomElement(using: &random)!
                        operations.append(.set(row: row, property: property, value: value))
                        changed[row, default: []].insert(property)
                    case 6..<8 where !rows.isEmpty:
                        let row = rows.sorted().randomElement(using: &random)!
                        operations.append(.delete(row: row))
                        rows.remove(row)
                        deleted.insert(row)
                    default:
                        // A new row, or one deleted in this round added again.
                        let row = deleted.subtracting(rows).sorted().randomElement(using: &random) ?? nextRow
                        if row == nextRow { nextRow += 1 }
                        operations.append(.insert(row: row))
                        rows.insert(row)
                    }
                }
                // Only the last commit: a write begun on this thread delivers the commits before it.
                if commit == commits - 1 {
                    operations.append(.set(row: Self.sentinel, property: "title", value: "\(round)"))
                }
                if Bool.random(using: &random) {
                    try store.write { try Self.apply(operations, in: store) }
                } else {
                    let done = DispatchSemaphore(value: 0)
                    let configuration = fixture.configuration
                    let operations = operations
                    let failure = Locked<String?>(nil)
                    DispatchQueue.global().async {
                        do {
                            let background = try Store(configuration: configuration)
                            try background.write { try Self.apply(operations, in: background) }
                        } catch {
                            failure.withLock { $0 = "\(error)" }
                        }
                        done.signal()
                    }
                    XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
                    XCTAssertNil(failure.withLock { $0 })
                }
            }
            wait(for: [delivered], timeout: 30)  // the whole delivery runs in one turn of the main queue
            for tracker in trackers {
                let expected =
                    deleted.contains(tracker.row)
                    || !(changed[tracker.row] ?? []).isDisjoint(with: tracker.properties)
                XCTAssertEqual(
                    tracker.calls, expected ? 1 : 0,
                    "seed \(seed) round \(round): accessor \(tracker.accessor) of row \(tracker.row) read "
                        + "\(tracker.properties.sorted()); changed \(changed[tracker.row]?.sorted() ?? []), "
                        + "deleted \(deleted.contains(tracker.row))")
                if expected { told += 1 } else { untold += 1 }
            }
            // Accessors of rows deleted this round are invalidated (or show a row added again): new ones.
            accessors.removeAll { deleted.contains($0.row) }
            refill()
        }
        XCTAssertGreaterThan(told, rounds / 2, "seed \(seed)")
        XCTAssertGreaterThan(untold, rounds, "seed \(seed)")
    }

    private static func apply(_ operations: [Operation], in store: Store) throws {
        for operation in operations {
            switch operation {
            case .set(let row, let property, let value):
                let note = store.object(ofType: WatchedNote.self, forPrimaryKey: row)!
                switch property {
                case "title": note.title = value
                case "body": note.body = value
                default: note.tags.append(value)
                }
            case .delete(let row):
                try store.delete(store.object(ofType: WatchedNote.self, forPrimaryKey: row)!)
            case .insert(let row):
                try store.add(WatchedNote(id: row, title: "new \(row)"))
            }
        }
    }
}
