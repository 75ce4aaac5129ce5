import CLMDB

/// Per table of rows, a counter of the commits that changed it, kept in LMDB's unnamed table
/// (`Table.main`) beside the table's own record: what tells a reader of any process whether a copy of
/// a column made at an earlier version still shows the rows (`ColumnCopies`).
///
/// Every write transaction notes the tables it changes (`WriteTransaction.noteChanged`) and, as it
/// commits, adds one to each changed table's stamp, in that same commit: a reader sees a table's rows
/// and its stamp from one version, and two versions of a table's rows never share a stamp (the
/// counter only grows, in every process, and a compacted copy keeps it). A change to a table this
/// registry does not know yet (opened inside the write, as a migration's new tables are) adds one to
/// the stamp under `anyKey` instead, which every copy checks too.
///
/// Why the unnamed table: every commit that changes a named table rewrites the unnamed table's page
/// that holds the table's record (its root moved), and the stamp's key sorts right after the table's
/// name, on that page: the stamp costs the commit no page of its own (a stamp in the meta table cost
/// W2's one-object writes 20%). LMDB keeps the named tables' records there as keys; the stamps are
/// plain values under keys no table is named (`\u{1}` is in no table name), which `mdb_dbi_open`
/// refuses to open as a table (`MDB_INCOMPATIBLE`), as the outbox's head is (`OutboxHead`).
final class ChangeStamps: Sendable {
    /// The stamp key of a table of rows; nil for a table whose changes no copy depends on.
    private typealias Known = [MDB_dbi: [UInt8]?]

    private struct State {
        var known: Known = [:]
        /// The size of the table registry `known` was made from.
        var registered = -1
    }

    private let state = Locked<State>(State())
    /// Whether the tables of sealed keys (rows, indexes, backlinks) all have stamps: an encrypted
    /// file's kept `SealedOrder`s are checked against them.
    private let stampsKeyedTables: Bool

    init(stampsKeyedTables: Bool = false) {
        self.stampsKeyedTables = stampsKeyedTables
    }

    /// The stamp key of a table of rows named `table`.
    static func key(ofTable table: String) -> [UInt8] { Array("\(table)\u{1}changed".utf8) }

    /// The stamp key every commit that changes a table unknown to it writes.
    static let anyKey = Array("strata.changed\u{1}any".utf8)

    /// Learns the tables published in the environment's registry (called under its lock).
    func update(from registry: [String: Table]) {
        state.withLock { state in
            guard state.registered != registry.count else { return }
            var known: Known = [Table.main.dbi: nil]
            for (name, table) in registry {
                let stamped =
                    name.hasPrefix(StrataFormat.rowTablePrefix)
                    || (stampsKeyedTables && FileSealing.sealsKeys(ofTable: name))
                let key: [UInt8]? = stamped ? Self.key(ofTable: name) : nil
                known[table.dbi] = .some(key)
            }
            state.known = known
            state.registered = registry.count
        }
    }

    /// The stamp keys to count up for a commit that changed `tables`; empty when none needs a stamp.
    func keys(forChanged tables: [MDB_dbi]) -> [[UInt8]] {
        state.withLock { state in
            var keys: [[UInt8]] = []
            var unknown = false
            for dbi in tables {
                switch state.known[dbi] {
                case .some(.some(let key)): keys.append(key)
                case .some(.none): continue
                case .none: unknown = true
                }
            }
            if unknown { keys.append(Self.anyKey) }
            return keys
        }
    }
}

extension WriteTransaction {
    /// Adds one to the stamp of each table this transaction changed (`ChangeStamps`), before it
    /// commits.
    mutating func stampChangedTables() throws(LMDBError) {
        guard !changedTables.isEmpty else { return }
        for key in environment.changeStamps.keys(forChanged: changedTables) {
            try key.withBytes { (key) throws(LMDBError) in
                _ = try poisoning { handle throws(LMDBError) in
                    let stamp = try LMDB.get(handle, Table.main.dbi, key: key).map(ChangeStamps.decode) ?? 0
                    return try withBytes(of: (stamp &+ 1).littleEndian) { (value) throws(LMDBError) in
                        try LMDB.put(handle, Table.main.dbi, key: key, value: value, flags: 0)
                    }
                }
            }
        }
    }
}

extension ChangeStamps {
    /// A stored stamp; 0 (none) for bytes that are not one (a damaged stamp counts on from 0; while
    /// it is damaged, readers use no copy: `QueryEngine.changeStamp()`).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.count == 8 ? UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) : 0
    }
}
