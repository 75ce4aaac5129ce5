import CLMDB

/// A position in a table. Lives only inside `withCursor`, so it never outlives its transaction.
struct Cursor: ~Copyable {
    typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    private let handle: OpaquePointer

    init(transaction: OpaquePointer, table: Table) throws(LMDBError) {
        handle = try LMDB.openCursor(transaction, table.dbi)
    }

    deinit {
        LMDB.closeCursor(handle)
    }

    func first() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_FIRST) }
    func last() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_LAST) }
    func next() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_NEXT) }
    func previous() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_PREV) }

    /// The first row of a table of sealed rows of `columns` columns, its seal and header checked
    /// (`LMDB.cursorGetRow`).
    func firstRow(columns: Int) throws(LMDBError) -> SealedEntry? {
        try LMDB.cursorGetRow(handle, op: MDB_FIRST, columns: columns)
    }

    /// The next row of a table of sealed rows, its seal and header checked.
    @inline(__always)
    func nextRow(columns: Int) throws(LMDBError) -> SealedEntry? {
        try LMDB.cursorGetRow(handle, op: MDB_NEXT, columns: columns)
    }

    /// The next batch of rows of a table of sealed rows, seals and headers checked (`RowBatch`). The
    /// first batch (`first`) starts at the table's first row, or with `start` at the first row whose
    /// key is `start` or sorts after it; with `end`, the walk ends before the first key that is `end`
    /// or sorts after it (`batch.stop` is then `.end`).
    @inline(__always)
    func fillRows(
        _ batch: inout RowBatch, first: Bool, from start: UnsafeRawBufferPointer? = nil,
        before end: UnsafeRawBufferPointer? = nil, columns: Int
    ) throws(LMDBError) {
        if first, let start {
            try LMDB.cursorGetRows(handle, op: MDB_SET_RANGE, columns: columns, start: start, into: &batch)
        } else {
            try LMDB.cursorGetRows(handle, op: first ? MDB_FIRST : MDB_NEXT, columns: columns, into: &batch)
        }
        if let end { batch.keepRows(before: end, in: handle) }
    }

    /// The first pair whose key is `key` or sorts after it.
    func seek(atLeast key: UnsafeRawBufferPointer) throws(LMDBError) -> Entry? {
        try LMDB.cursorGet(handle, key: key, op: MDB_SET_RANGE)
    }

    /// Visits the entries from `entry` on while `admits` accepts their key. A visit's failure stops
    /// the walk and is returned (the cursor's own failures are thrown).
    func walk<VisitFailure: Error>(
        from entry: Entry?, while admits: (UnsafeRawBufferPointer) -> Bool = { _ in true },
        _ visit: (Entry) throws(VisitFailure) -> Void
    ) throws(LMDBError) -> VisitFailure? {
        var entry = entry
        while let current = entry, admits(current.key) {
            do throws(VisitFailure) {
                try visit(current)
            } catch {
                return error
            }
            entry = try next()
        }
        return nil
    }

    /// The pair `key`/`value` in a table with duplicates, if present.
    func find(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(LMDBError) -> Entry? {
        try LMDB.cursorGet(handle, key: key, value: value, op: MDB_GET_BOTH)
    }
}
