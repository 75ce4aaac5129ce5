import Foundation
import GRDB

/// The workloads in GRDB: prepared statements, or the Record API (what users write). WAL journal,
/// `synchronous=NORMAL`.
final class GRDBBench: BenchSystem {
    private let queue: DatabaseQueue
    private let records: Bool

    /// A database at `path` as every GRDB workload opens it: WAL journal, `synchronous=NORMAL`.
    static func openQueue(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode=WAL")
            try db.execute(sql: "PRAGMA synchronous=NORMAL")
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    init(directory: URL, records: Bool) throws {
        queue = try Self.openQueue(path: directory.appendingPathComponent("bench.sqlite").path)
        self.records = records
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, score REAL, name TEXT)")
        }
    }

    func insert(_ ids: Range<Int>, perTransaction: Int) throws {
        var start = ids.lowerBound
        while start < ids.upperBound {
            let end = min(start + perTransaction, ids.upperBound)
            try queue.write { db in
                if records {
                    for id in start..<end {
                        try GRDBItem(id: Int64(id), score: Double(id), name: itemName).insert(db)
                    }
                } else {
                    let statement = try db.cachedStatement(sql: "INSERT INTO item (id, score, name) VALUES (?, ?, ?)")
                    for id in start..<end {
                        try statement.execute(arguments: [id, Double(id), itemName])
                    }
                }
            }
            start = end
        }
    }

    func updateAll() throws {
        try queue.write { db in
            for var item in try GRDBItem.fetchAll(db) {
                item.score += 1
                try item.update(db)
            }
        }
    }

    func randomReads(_ ids: [Int]) throws -> Double {
        try queue.read { db in
            var sum = 0.0
            if records {
                for id in ids {
                    guard let item = try GRDBItem.fetchOne(db, key: id) else { throw WorkloadError("GRDB lost \(id)") }
                    sum += item.score
                }
            } else {
                let statement = try db.makeStatement(sql: "SELECT score FROM item WHERE id = ?")
                for id in ids {
                    guard let score = try Double.fetchOne(statement, arguments: [id]) else {
                        throw WorkloadError("GRDB lost \(id)")
                    }
                    sum += score
                }
            }
            return sum
        }
    }

    func scanFiltered(above threshold: Double) throws -> (sum: Double, rows: Int) {
        try queue.read { db in
            var sum = 0.0
            var count = 0
            let rows = try Double.fetchCursor(db, sql: "SELECT score FROM item WHERE score > ?", arguments: [threshold])
            while let score = try rows.next() {
                sum += score
                count += 1
            }
            return (sum, count)
        }
    }

    func countFiltered(above threshold: Double) throws -> Int {
        try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE score > ?", arguments: [threshold]) ?? 0
        }
    }

    /// `SUM` and `COUNT(*)` in one statement (Strata's count reads the table's count).
    func sumScores() throws -> (sum: Double, rows: Int) {
        try queue.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT SUM(score), COUNT(*) FROM item") else { return (0, 0) }
            return (row[0] ?? 0, row[1])
        }
    }

    func scan() throws -> (sum: Double, rows: Int) {
        try queue.read { db in
            var sum = 0.0
            var count = 0
            if records {
                let items = try GRDBItem.fetchCursor(db)
                while let item = try items.next() {
                    sum += item.score
                    count += 1
                }
            } else {
                let rows = try Row.fetchCursor(db, sql: "SELECT id, score, name FROM item")
                while let row = try rows.next() {
                    sum += row[1] as Double
                    count += 1
                }
            }
            return (sum, count)
        }
    }
}
