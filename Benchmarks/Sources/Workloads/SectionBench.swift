import Foundation
import GRDB
import Strata

/// SC1–SC3: a list of sections, a screen's first call. SC1 and SC2 against GRDB's SQL on the same
/// rows (no index on the letter); SC3, the block form, against a plain sort of the same objects.
/// A fifth of the table's count: 200,000 objects at full scale, in 26 sections.
public enum SectionBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "SC1", title: "`sectioned(by: \\.letter)`: the layout, then every section's count",
            peer: "GRDB `GROUP BY letter` with `COUNT(*)`", goal: .ratio(2)),
        PeerWorkload(
            id: "SC2", title: "then 20 cells by `IndexPath`", peer: "GRDB, each cell by `LIMIT 1 OFFSET`",
            goal: .seconds(0.001)),
    ]

    public static let blockWorkloads: [PeerWorkload] = [
        PeerWorkload(
            id: "SC3", title: "block form: sections by a name's first letter, read in order",
            peer: "`sorted(by: \\.name)` of the same objects", goal: .ratio(1 / 1.5))
    ]

    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        let objects = max(1000, count / 5)
        return try PeerComparison.run(
            workloads, name: "sc", directory: directory, count: objects, rounds: rounds,
            strata: { try StrataSections(directory: $0, count: objects) },
            peer: { try GRDBSections(directory: $0, count: objects) }, report: report)
    }

    public static func runBlock(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        let objects = max(1000, count / 5)
        return try PeerComparison.run(
            blockWorkloads, name: "sb", directory: directory, count: objects, rounds: rounds,
            strata: { try StrataSections(directory: $0, count: objects) },
            peer: { try StrataSections(directory: $0, count: objects, sortsOnly: true) }, report: report)
    }

    static let letters = (0..<26).map { String(UnicodeScalar(UInt8(65 + $0))) }

    /// The row of `id`: its letter and a name that starts with it.
    static func row(_ id: Int) -> (letter: String, name: String) {
        let letter = letters[(id &* 7919) % 26]
        return (letter, "\(letter)\((id &* 104_729) % 1_000_003)")
    }

    /// The 20 cells read: spread over the sections (each holds at least 20 objects at every scale).
    static let cells = (0..<20).map { (section: ($0 * 5) % 26, item: ($0 * 7) % 20) }
}

/// A row of the sections workloads.
public final class SectionRow: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var letter: String
    @Persisted public var name: String

    /// The block form's key.
    var initial: String { String(name.prefix(1)) }
}

private final class StrataSections: PeerSide {
    let store: Store
    /// SC3's peer: the plain sort.
    let sortsOnly: Bool
    private var sections: SectionedResults<String, SectionRow>?

    init(directory: URL, count: Int, sortsOnly: Bool = false) throws {
        self.sortsOnly = sortsOnly
        store = try Store(
            configuration: Store.Configuration(
                fileURL: directory.appendingPathComponent("sections.strata"), objectTypes: [SectionRow.self]))
        try store.write {
            for id in 0..<count {
                let row = SectionRow()
                row.id = id
                (row.letter, row.name) = SectionBench.row(id)
                try store.add(row)
            }
        }
    }

    func prepare(_ id: String, count: Int) throws {
        guard id == "SC2" else { return }
        let sections = store.objects(SectionRow.self).sectioned(by: \.letter)
        _ = sections.count  // the layout SC1 made, as a screen has it before its cells
        self.sections = sections
    }

    func run(_ id: String, count: Int) throws -> Int {
        var hash = 0
        switch id {
        case "SC1":
            let sections = store.objects(SectionRow.self).sectioned(by: \.letter)
            for section in sections { QueryBench.fold(&hash, section.count) }
        case "SC2":
            guard let sections else { return 0 }
            for cell in SectionBench.cells {
                QueryBench.fold(&hash, sections[IndexPath(indexes: [cell.section, cell.item])].id)
            }
        default:
            let rows = store.objects(SectionRow.self)
            if sortsOnly {
                for row in rows.sorted(by: \.name) { QueryBench.fold(&hash, row.id) }
            } else {
                let sections = rows.sectioned(sortDescriptors: [SortKey(\.name)]) { $0.initial }
                for section in sections { for row in section { QueryBench.fold(&hash, row.id) } }
            }
        }
        return hash
    }
}

private final class GRDBSections: PeerSide {
    let queue: DatabaseQueue

    init(directory: URL, count: Int) throws {
        queue = try GRDBBench.openQueue(path: directory.appendingPathComponent("sections.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE row (id INTEGER PRIMARY KEY, letter TEXT, name TEXT)")
            let statement = try db.makeStatement(sql: "INSERT INTO row (id, letter, name) VALUES (?, ?, ?)")
            for id in 0..<count {
                let row = SectionBench.row(id)
                try statement.execute(arguments: [id, row.letter, row.name])
            }
        }
    }

    func run(_ id: String, count: Int) throws -> Int {
        try queue.read { db in
            var hash = 0
            if id == "SC1" {
                let counts = try Int.fetchCursor(
                    db, sql: "SELECT COUNT(*) FROM row GROUP BY letter ORDER BY letter")
                while let count = try counts.next() { QueryBench.fold(&hash, count) }
                return hash
            }
            let letters = try String.fetchAll(db, sql: "SELECT DISTINCT letter FROM row ORDER BY letter")
            let cell = try db.makeStatement(sql: "SELECT id FROM row WHERE letter = ? ORDER BY id LIMIT 1 OFFSET ?")
            for (section, item) in SectionBench.cells {
                QueryBench.fold(&hash, try Int.fetchOne(cell, arguments: [letters[section], item]) ?? -1)
            }
            return hash
        }
    }
}
