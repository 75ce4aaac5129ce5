import Foundation
import GRDB
import Strata

/// T1, T2: substring search with no index, counted, against SQLite's `LIKE '%x%'` on the same rows.
/// SQLite's `LIKE` folds ASCII case: T1's needle appears in one case only, so that `CONTAINS` (which
/// does not fold) counts what `LIKE` counts; T2's appears in three, and `CONTAINS[c]` folds them.
public enum TextBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "T1", title: "`name CONTAINS $0` count, no index", peer: "GRDB `LIKE '%x%'`", goal: .ratio(2)),
        PeerWorkload(
            id: "T2", title: "`name CONTAINS[c] $0` count, no index", peer: "GRDB `LIKE '%x%'`", goal: .ratio(2)),
    ]

    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        try PeerComparison.run(
            workloads, name: "t", directory: directory, count: count, rounds: rounds,
            strata: { try StrataText(directory: $0, count: count) },
            peer: { try GRDBText(directory: $0, count: count) }, report: report)
    }

    /// Dish names of about 25 bytes: three words and a number, the same on both sides.
    static func names(count: Int) -> [String] {
        let words = [
            "Taco", "Burrito", "BURRITO", "burrito", "Salsa", "Nacho", "Queso", "Pizza", "Pasta", "Sushi", "Ramen",
            "Curry", "Falafel", "Kebab", "Paella", "Risotto", "Tapas", "Gyoza", "Pho", "Laksa",
        ]
        var random = SplitMix64(seed: 53)
        return (0..<count).map { _ in
            let picked = (0..<3).map { _ in words[Int(random.next() % UInt64(words.count))] }
            return picked.joined(separator: " ") + " \(random.next() % 100_000)"
        }
    }

    static let needles = (t1: "Taco", t2: "burrito")
}

private final class StrataText: PeerSide {
    let store: Store

    init(directory: URL, count: Int) throws {
        store = try Store(
            configuration: Store.Configuration(
                fileURL: directory.appendingPathComponent("text.strata"), objectTypes: [BenchRow.self]))
        let names = TextBench.names(count: count)
        try store.write {
            for (id, name) in names.enumerated() {
                let row = BenchRow()
                row.id = id
                row.name = name
                try store.add(row)
            }
        }
    }

    func run(_ id: String, count: Int) throws -> Int {
        let rows = store.objects(BenchRow.self)
        return id == "T1"
            ? rows.where { $0.name.contains(TextBench.needles.t1) }.count
            : rows.where { $0.name.contains(TextBench.needles.t2, options: .caseInsensitive) }.count
    }
}

private final class GRDBText: PeerSide {
    let queue: DatabaseQueue

    init(directory: URL, count: Int) throws {
        queue = try GRDBBench.openQueue(path: directory.appendingPathComponent("text.sqlite").path)
        let names = TextBench.names(count: count)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE row (id INTEGER PRIMARY KEY, name TEXT)")
            let statement = try db.makeStatement(sql: "INSERT INTO row (id, name) VALUES (?, ?)")
            for (id, name) in names.enumerated() { try statement.execute(arguments: [id, name]) }
        }
    }

    func run(_ id: String, count: Int) throws -> Int {
        let needle = id == "T1" ? TextBench.needles.t1 : TextBench.needles.t2
        return try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row WHERE name LIKE ?", arguments: ["%\(needle)%"]) ?? 0
        }
    }
}
