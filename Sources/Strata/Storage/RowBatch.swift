import CLMDB

/// Rows of a table of sealed rows, read from a cursor a batch at a time (`Cursor.fillRows`): one
/// call into C per `capacity` rows, each row's seal and header checked there. The bytes are LMDB's,
/// valid while the transaction is; the batch owns only the room for their addresses.
struct RowBatch: ~Copyable {
    /// What ended the last fill.
    enum Stop {
        /// The batch is full: more rows may follow.
        case full
        /// The table has no more rows.
        case end
        /// The pair after the batch's rows is not an intact row.
        case damaged(SealedEntry)
    }

    static let capacity = 64

    private let keys: UnsafeMutablePointer<MDB_val>
    private let rows: UnsafeMutablePointer<MDB_val>
    private(set) var count = 0
    private(set) var stop = Stop.full

    init() {
        keys = .allocate(capacity: Self.capacity)
        rows = .allocate(capacity: Self.capacity)
    }

    deinit {
        keys.deallocate()
        rows.deallocate()
    }

    /// The stored key of row `index` (`0..<count`).
    @inline(__always)
    func key(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: keys[index].mv_data, count: keys[index].mv_size)
    }

    /// Row `index` (`0..<count`), without its seal.
    @inline(__always)
    func row(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: rows[index].mv_data, count: rows[index].mv_size)
    }

    /// Fills the batch from `cursor`: `op` for its first row, then the rows after it. With `start`,
    /// `op` is `MDB_SET_RANGE`: the first row is the first whose key is `start` or sorts after it.
    mutating func fill(
        from cursor: OpaquePointer, op: MDB_cursor_op, columns: Int, start: UnsafeRawBufferPointer? = nil
    ) throws(LMDBError) {
        if let start {
            keys[0] = MDB_val(mv_size: start.count, mv_data: UnsafeMutableRawPointer(mutating: start.baseAddress))
        }
        var code: Int32 = 0
        #if Encryption
            if let (sealing, policy) = LMDB.sealing(cursor: cursor) {
                count = try fillOpened(
                    from: cursor, op: op, columns: columns, start: start, sealing, policy, code: &code)
            } else {
                count = strata_cursor_get_rows(cursor, op, columns, keys, rows, Self.capacity, &code)
            }
        #else
            count = strata_cursor_get_rows(cursor, op, columns, keys, rows, Self.capacity, &code)
        #endif
        switch code {
        case MDB_SUCCESS: stop = .full
        case MDB_NOTFOUND: stop = .end
        case STRATA_ROW_DAMAGED, STRATA_ROW_BAD_HEADER:
            stop = .damaged(
                SealedEntry(
                    key: key(count), value: row(count),
                    state: code == STRATA_ROW_DAMAGED ? .sealBroken : .headerDamaged))
        default: throw LMDBError(code: code)
        }
    }

    /// Drops the rows whose key is `end` or sorts after it (the table's order, `mdb_cmp`), and a
    /// damaged pair there: they belong to the next key range. Dropping any ends the walk (`stop` is
    /// `.end`).
    #if Encryption
        /// `strata_cursor_get_rows` on an encrypted file: each pair opened, then checked as a row.
        private func fillOpened(
            from cursor: OpaquePointer, op: MDB_cursor_op, columns: Int, start: UnsafeRawBufferPointer?,
            _ sealing: FileSealing, _ policy: FileSealing.Policy, code: inout Int32
        ) throws(LMDBError) -> Int {
            if policy.sealsKeys {
                return try fillOrdered(
                    from: cursor, op: op, columns: columns, start: start, sealing, policy, code: &code)
            }
            var op = op
            for index in 0..<Self.capacity {
                guard
                    let entry = try LMDB.sealedCursorGetRow(
                        cursor, op: op, columns: columns, start: index == 0 ? start : nil, sealing, policy)
                else {
                    code = MDB_NOTFOUND
                    return index
                }
                op = MDB_NEXT
                keys[index] = MDB_val(
                    mv_size: entry.key.count, mv_data: UnsafeMutableRawPointer(mutating: entry.key.baseAddress))
                rows[index] = MDB_val(
                    mv_size: entry.value.count, mv_data: UnsafeMutableRawPointer(mutating: entry.value.baseAddress))
                switch entry.state {
                case .intact: continue
                case .sealBroken: code = STRATA_ROW_DAMAGED
                case .headerDamaged: code = STRATA_ROW_BAD_HEADER
                }
                return index
            }
            code = MDB_SUCCESS
            return Self.capacity
        }

        /// `fillOpened` on a table with sealed keys: a run of its `SealedOrder`, each pair checked as a row.
        private func fillOrdered(
            from cursor: OpaquePointer, op: MDB_cursor_op, columns: Int, start: UnsafeRawBufferPointer?,
            _ sealing: FileSealing, _ policy: FileSealing.Policy, code: inout Int32
        ) throws(LMDBError) -> Int {
            let run = try LMDB.orderedCursorRun(
                cursor, op: op, start: start, limit: Self.capacity, sealing, policy)
            var index = 0
            defer {
                // The cursor stands on the last row handed out, or on the damaged one that stopped the run.
                if !run.isEmpty { LMDB.orderedCursorStand(cursor, at: run.startIndex + min(index, run.count - 1)) }
            }
            for entry in run {
                keys[index] = MDB_val(
                    mv_size: entry.key.count, mv_data: UnsafeMutableRawPointer(mutating: entry.key.baseAddress))
                rows[index] = MDB_val(
                    mv_size: entry.value.count, mv_data: UnsafeMutableRawPointer(mutating: entry.value.baseAddress))
                let check = strata_row_check(&keys[index], &rows[index], columns)
                if check != MDB_SUCCESS {
                    code = check == STRATA_ROW_DAMAGED ? STRATA_ROW_DAMAGED : STRATA_ROW_BAD_HEADER
                    return index
                }
                index += 1
            }
            code = index == Self.capacity ? MDB_SUCCESS : MDB_NOTFOUND
            return index
        }
    #endif

    mutating func keepRows(before end: UnsafeRawBufferPointer, in cursor: OpaquePointer) {
        let transaction = mdb_cursor_txn(cursor)
        let table = mdb_cursor_dbi(cursor)
        var bound = MDB_val(mv_size: end.count, mv_data: UnsafeMutableRawPointer(mutating: end.baseAddress))
        let examined: Int
        if case .damaged = stop { examined = count + 1 } else { examined = count }
        guard examined > 0, mdb_cmp(transaction, table, &keys[examined - 1], &bound) >= 0 else { return }
        var kept = 0
        while kept < count, mdb_cmp(transaction, table, &keys[kept], &bound) < 0 { kept += 1 }
        count = kept
        stop = .end
    }
}
