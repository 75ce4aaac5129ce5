import Foundation
import GRDB
import Strata

/// M1–M3: Realm's collection types against GRDB storing the same data as JSON columns (what a GRDB
/// user writes: a Codable record whose dictionary and array become JSON text).
public enum ModelBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "M1", title: "add objects with a 4-entry Map and a 4-element MutableSet, one transaction",
            peer: "GRDB Record (JSON columns)", goal: .ratio(2)),
        PeerWorkload(
            id: "M2", title: "read one Map key of every object", peer: "GRDB prepared `json_extract`",
            goal: .ratio(2.5)),
        PeerWorkload(
            id: "M3", title: "count of `map[\"k1\"] == v` over every object",
            peer: "GRDB `COUNT(*) … WHERE json_extract`", goal: .report),
    ]

    /// Runs every workload `rounds` times on both systems, interleaved, each round in fresh files.
    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        try PeerComparison.run(
            workloads, name: "m", directory: directory, count: count, rounds: rounds,
            strata: { try StrataModel(directory: $0) }, peer: { try GRDBModel(directory: $0) }, report: report)
    }

    static func attributes(_ id: Int) -> [String: String] {
        ["k0": "v\(id % 10)", "k1": "v\(id % 7)", "k2": "value-\(id)", "k3": "x"]
    }

    static func tags(_ id: Int) -> [String] {
        ["t\(id % 3)", "u\(id % 5)", "common", "n\(id)"]
    }
}

/// A contact card with a Map and a MutableSet.
public final class BenchCard: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var attributes: Map<String, String>
    @Persisted public var tags: MutableSet<String>
}

private final class StrataModel: PeerSide {
    let store: Store

    init(directory: URL) throws {
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("model.strata"), objectTypes: [BenchCard.self])
        if let size = ProcessInfo.processInfo.environment["STRATA_BENCH_MAXIMUM_SIZE"].flatMap(Int.init) {
            configuration.maximumSize = size
        }
        store = try Store(configuration: configuration)
    }

    /// Runs workload `id`; returns a check value both systems must agree on.
    func run(_ id: String, count: Int) throws -> Int {
        switch id {
        case "M1":
            try store.write {
                for id in 0..<count {
                    let card = BenchCard()
                    card.id = id
                    card.name = "card"
                    for (key, value) in ModelBench.attributes(id) { card.attributes[key] = value }
                    card.tags.insert(objectsIn: ModelBench.tags(id))
                    try store.add(card)
                }
            }
            return store.objects(BenchCard.self).count
        case "M2":
            var bytes = 0
            for card in store.objects(BenchCard.self) { bytes += card.attributes["k2"]?.utf8.count ?? 0 }
            return bytes
        default:
            return store.objects(BenchCard.self).where { $0.attributes["k1"] == "v3" }.count
        }
    }
}

struct GRDBCard: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "card"
    var id: Int64
    var name: String
    var attributes: [String: String]
    var tags: [String]
}

private final class GRDBModel: PeerSide {
    let queue: DatabaseQueue

    init(directory: URL) throws {
        queue = try GRDBBench.openQueue(path: directory.appendingPathComponent("model.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE card (id INTEGER PRIMARY KEY, name TEXT, attributes TEXT, tags TEXT)")
        }
    }

    func run(_ id: String, count: Int) throws -> Int {
        switch id {
        case "M1":
            try queue.write { db in
                for id in 0..<count {
                    try GRDBCard(
                        id: Int64(id), name: "card", attributes: ModelBench.attributes(id),
                        tags: Array(Set(ModelBench.tags(id))).sorted()
                    ).insert(db)
                }
            }
            return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM card") ?? 0 }
        case "M2":
            return try queue.read { db in
                var bytes = 0
                let rows = try Row.fetchCursor(db, sql: "SELECT json_extract(attributes, '$.k2') FROM card")
                while let row = try rows.next() { bytes += (row[0] as String?)?.utf8.count ?? 0 }
                return bytes
            }
        default:
            return try queue.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM card WHERE json_extract(attributes, '$.k1') = ?", arguments: ["v3"])
                    ?? 0
            }
        }
    }
}
