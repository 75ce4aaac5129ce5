import CLMDB

/// A cursor that outlives one call: for walking a table while the caller does other work with the
/// same transaction (iterating a Results). Unlike `Cursor`, it is not scoped by a closure, so its
/// owner must call `transactionEnds()` before the transaction ends (and no later): LMDB frees a write
/// transaction's cursors itself, and a read transaction's cursor must not be used after it.
final class TableCursor {
    typealias Entry = Cursor.Entry

    private var handle: OpaquePointer?
    private let isWrite: Bool
    /// The table the cursor walks.
    let table: Table

    #if Encryption
        /// An encrypted file's sealing of the table, looked up once (each row of a walk would ask).
        private let sealed: (FileSealing, FileSealing.Policy)?
    #endif

    init(transaction: OpaquePointer, table: Table, isWrite: Bool) throws(LMDBError) {
        let handle = try LMDB.openCursor(transaction, table.dbi)
        self.handle = handle
        self.isWrite = isWrite
        self.table = table
        #if Encryption
            sealed = LMDB.sealing(cursor: handle)
        #endif
    }

    deinit {
        transactionEnds()
    }

    /// Whether a walk may read rows ahead in batches (`fillRows`): a read snapshot's cursor on a file
    /// that is not encrypted. An encrypted file's rows are opened a row at a time, as before: its
    /// walks of sealed keys stand on positions of a shared order, which a batch would outlive.
    var readsAhead: Bool {
        #if Encryption
            return !isWrite && sealed == nil
        #else
            return !isWrite
        #endif
    }

    /// Whether the cursor can still move (its transaction has not ended).
    var isOpen: Bool { handle != nil }

    /// Closes the cursor; its transaction is about to end.
    func transactionEnds() {
        guard let handle else { return }
        LMDB.closeCursor(handle)
        self.handle = nil
    }

    private func get(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws(LMDBError) -> Entry? {
        guard let handle else { throw LMDBError.badTransaction }
        return try LMDB.cursorGet(handle, key: key, op: op)
    }

    func first() throws(LMDBError) -> Entry? { try get(MDB_FIRST) }
    func next() throws(LMDBError) -> Entry? { try get(MDB_NEXT) }

    /// The first row of a table of sealed rows of `columns` columns, its seal and header checked
    /// (`LMDB.cursorGetRow`).
    func firstRow(columns: Int) throws(LMDBError) -> SealedEntry? { try getRow(MDB_FIRST, columns: columns) }
    /// The next row of a table of sealed rows, its seal and header checked.
    func nextRow(columns: Int) throws(LMDBError) -> SealedEntry? { try getRow(MDB_NEXT, columns: columns) }

    @inline(__always)
    private func getRow(_ op: MDB_cursor_op, columns: Int) throws(LMDBError) -> SealedEntry? {
        guard let handle else { throw LMDBError.badTransaction }
        #if Encryption
            if let sealed { return try LMDB.cursorGetRow(handle, op: op, columns: columns, sealed: sealed) }
        #endif
        return try LMDB.plainCursorGetRow(handle, op: op, columns: columns)
    }

    /// Fills `batch` with the table's first rows (`first`) or the rows after the one the cursor
    /// stands on, seals and headers checked; the cursor then stands on the batch's last row, or on
    /// the damaged pair that stopped it (`RowBatch.fill`).
    func fillRows(_ batch: inout RowBatch, first: Bool, columns: Int) throws(LMDBError) {
        guard let handle else { throw LMDBError.badTransaction }
        try LMDB.cursorGetRows(handle, op: first ? MDB_FIRST : MDB_NEXT, columns: columns, into: &batch)
    }

    /// Replaces the value of the pair the cursor stands on (`MDB_CURRENT`: no search). `key` must be
    /// that pair's key. The cursor stays on it.
    func replaceCurrent(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(LMDBError) {
        guard let handle, isWrite else { throw LMDBError.badTransaction }
        try LMDB.cursorPut(handle, key: key, value: value, flags: UInt32(MDB_CURRENT))
    }
}

extension ReadTransaction {
    func openTableCursor(_ table: Table) throws(LMDBError) -> TableCursor {
        try TableCursor(transaction: handle, table: table, isWrite: false)
    }
}

extension WriteTransaction {
    mutating func openTableCursor(_ table: Table) throws(LMDBError) -> TableCursor {
        let handle = self.handle
        return try poisoning { _ throws(LMDBError) in try TableCursor(transaction: handle, table: table, isWrite: true)
        }
    }

    /// Replaces the value under the cursor (see `TableCursor.replaceCurrent`); poisons on failure.
    mutating func replaceCurrent(
        _ cursor: TableCursor, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws(LMDBError) {
        noteChanged(cursor.table)
        try poisoning { _ throws(LMDBError) in try cursor.replaceCurrent(key: key, value: value) }
    }
}
