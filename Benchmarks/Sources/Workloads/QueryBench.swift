import Foundation
import GRDB
import Strata

/// S5, S6, S6r, S6i, D1: sorting, the first page of a sort, and distinct, against GRDB's SQL on the
/// same rows (no index on the sorted column, except S6i's, indexed on both sides). S6 is the first
/// page asked for the first time in fresh files; S6r the same page asked again (after two untimed
/// askings on each side), which Strata answers from its copy of the column (`columnCopyLimit`).
public enum QueryBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "S5", title: "sort by a Double, read every object", peer: "GRDB `ORDER BY` (no index)",
            goal: .ratio(1)),
        PeerWorkload(
            id: "S6", title: "sorted by a Double, first 20 (`prefix(20)`)",
            peer: "GRDB `ORDER BY … LIMIT 20` (no index)",
            goal: .ratio(5)),
        PeerWorkload(
            id: "S6r", title: "the same first 20 asked again, the table unchanged",
            peer: "GRDB `ORDER BY … LIMIT 20` asked again (no index)",
            goal: .ratio(5)),
        PeerWorkload(
            id: "S6i", title: "sorted by an indexed Int, first 20", peer: "GRDB `ORDER BY … LIMIT 20` (index)",
            goal: .seconds(0.001)),
        PeerWorkload(
            id: "D1", title: "`distinct(by:)` on a column of 1,000 values", peer: "GRDB `SELECT DISTINCT`",
            goal: .ratio(1)),
    ]

    /// Runs every workload `rounds` times on both systems, interleaved, each round in fresh files
    /// filled (untimed) with the same `count` rows.
    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        try PeerComparison.run(
            workloads, name: "q", directory: directory, count: count, rounds: rounds,
            strata: { try StrataQueries(directory: $0, count: count) },
            peer: { try GRDBQueries(directory: $0, count: count) }, report: report)
    }

    /// S6n: the commonest first page, "newest first": the first 20 by a value that grows with
    /// insertion, descending (the worst case of a heap that takes every row better than its worst).
    public static let newestWorkloads: [PeerWorkload] = [
        PeerWorkload(
            id: "S6n", title: "newest first: first 20 by a Double growing with insertion, descending",
            peer: "GRDB `ORDER BY … DESC LIMIT 20` (no index)", goal: .ratio(5))
    ]

    public static func runNewest(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        try PeerComparison.run(
            newestWorkloads, name: "n", directory: directory, count: count, rounds: rounds,
            strata: { try StrataQueries(directory: $0, count: count, valuesGrow: true) },
            peer: { try GRDBQueries(directory: $0, count: count, valuesGrow: true) }, report: report)
    }

    /// The value of row `id`: distinct, in random order, or growing with insertion.
    static func value(_ id: Int, count: Int, grows: Bool) -> Double {
        Double(grows ? id : permuted(id, count: count)) + 0.5
    }

    /// Q1: the string language against the closure form, on two Stores holding the same rows.
    public static let languageWorkloads: [PeerWorkload] = [
        PeerWorkload(
            id: "Q1", title: "parse and run `value > $0 AND group < $1` (count)",
            peer: "the same query as a `where { }` closure", goal: .ratio(1 / 1.1))
    ]

    public static func runLanguage(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        try PeerComparison.run(
            languageWorkloads, name: "l", directory: directory, count: count, rounds: rounds,
            strata: { try StrataQueries(directory: $0, count: count, usesText: true) },
            peer: { try StrataQueries(directory: $0, count: count, usesText: false) }, report: report)
    }

    /// A bijection of 0..<count (7919 is prime, and prime to every count the bench uses): distinct
    /// sort values, so that both systems agree on one order.
    static func permuted(_ id: Int, count: Int) -> Int { (id &* 7919) % count }

    static func group(_ id: Int) -> Int { (id &* 31) % 1000 }

    /// An order-sensitive hash of ids, which both systems must produce.
    static func fold(_ hash: inout Int, _ id: Int) { hash = hash &* 31 &+ id }
}

/// A row of the query workloads.
public final class BenchRow: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var value: Double
    @Persisted(indexed: true) public var rank: Int
    @Persisted public var group: Int
    @Persisted public var name: String
}

private final class StrataQueries: PeerSide {
    let store: Store
    /// Q1: the string language (else the closure form).
    let usesText: Bool

    init(directory: URL, count: Int, usesText: Bool = false, valuesGrow: Bool = false) throws {
        self.usesText = usesText
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("queries.strata"), objectTypes: [BenchRow.self])
        if let size = ProcessInfo.processInfo.environment["STRATA_BENCH_MAXIMUM_SIZE"].flatMap(Int.init) {
            configuration.maximumSize = size
        }
        store = try Store(configuration: configuration)
        try store.write {
            for id in 0..<count {
                let row = BenchRow()
                row.id = id
                row.value = QueryBench.value(id, count: count, grows: valuesGrow)
                row.rank = QueryBench.permuted(id, count: count)
                row.group = QueryBench.group(id)
                row.name = itemName
                try store.add(row)
            }
        }
    }

    func prepare(_ id: String, count: Int) throws {
        guard id == "S6r" else { return }
        for _ in 0..<2 { _ = try run(id, count: count) }
    }

    func run(_ id: String, count: Int) throws -> Int {
        var hash = 0
        let rows = store.objects(BenchRow.self)
        switch id {
        case "S5":
            for row in rows.sorted(by: \.value) { QueryBench.fold(&hash, row.id) }
        case "S6", "S6r":
            for row in rows.sorted(by: \.value).prefix(20) { QueryBench.fold(&hash, row.id) }
        case "S6n":
            for row in rows.sorted(by: \.value, ascending: false).prefix(20) { QueryBench.fold(&hash, row.id) }
        case "S6i":
            for row in rows.sorted(by: \.rank).prefix(20) { QueryBench.fold(&hash, row.id) }
        case "Q1":
            let (value, group) = (Double(count / 3), 500)
            hash =
                usesText
                ? try rows.where("value > $0 AND group < $1", value, group).count
                : rows.where { $0.value > value && $0.group < group }.count
        default:
            hash = rows.distinct(by: [\.group]).count
        }
        return hash
    }
}

private final class GRDBQueries: PeerSide {
    let queue: DatabaseQueue

    init(directory: URL, count: Int, valuesGrow: Bool = false) throws {
        queue = try GRDBBench.openQueue(path: directory.appendingPathComponent("queries.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE row (id INTEGER PRIMARY KEY, value REAL, rank INTEGER, "group" INTEGER, name TEXT);
                    CREATE INDEX row_rank ON row(rank);
                    """)
            let statement = try db.makeStatement(
                sql: "INSERT INTO row (id, value, rank, \"group\", name) VALUES (?, ?, ?, ?, ?)")
            for id in 0..<count {
                let permuted = QueryBench.permuted(id, count: count)
                try statement.execute(arguments: [
                    id, QueryBench.value(id, count: count, grows: valuesGrow), permuted, QueryBench.group(id), itemName,
                ])
            }
        }
    }

    func prepare(_ id: String, count: Int) throws {
        guard id == "S6r" else { return }
        for _ in 0..<2 { _ = try run(id, count: count) }
    }

    func run(_ id: String, count: Int) throws -> Int {
        try queue.read { db in
            var hash = 0
            let sql: String
            switch id {
            case "S5": sql = "SELECT id FROM row ORDER BY value"
            case "S6", "S6r": sql = "SELECT id FROM row ORDER BY value LIMIT 20"
            case "S6n": sql = "SELECT id FROM row ORDER BY value DESC LIMIT 20"
            case "S6i": sql = "SELECT id FROM row ORDER BY rank LIMIT 20"
            default: return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT DISTINCT \"group\" FROM row)") ?? 0
            }
            let ids = try Int.fetchCursor(db, sql: sql)
            while let id = try ids.next() { QueryBench.fold(&hash, id) }
            return hash
        }
    }
}
