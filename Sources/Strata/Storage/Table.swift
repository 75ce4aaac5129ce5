import CLMDB

/// Flags of a named table.
struct TableFlags: OptionSet, Hashable, Sendable {
    let rawValue: UInt32
    /// Several sorted values per key (`MDB_DUPSORT`): secondary indexes.
    static let duplicates = TableFlags(rawValue: UInt32(MDB_DUPSORT))
}

/// How `put` treats an existing key.
struct PutOptions: OptionSet, Hashable, Sendable {
    let rawValue: UInt32
    /// Fail (return false) instead of replacing an existing key (`MDB_NOOVERWRITE`).
    static let noOverwrite = PutOptions(rawValue: UInt32(MDB_NOOVERWRITE))
    /// The key sorts after every key of the table: append without searching (`MDB_APPEND`).
    static let append = PutOptions(rawValue: UInt32(MDB_APPEND))
}

/// A named table's handle (`MDB_dbi`), valid in every transaction of its environment.
struct Table: Hashable, Sendable {
    let dbi: MDB_dbi
    let flags: TableFlags

    /// The unnamed table (`MAIN_DBI`): it holds the named tables' records, which only LMDB writes, and
    /// every commit that changes a named table rewrites its root page.
    static let main = Table(dbi: 1, flags: [])  // MAIN_DBI (mdb.c; not in lmdb.h)
}
