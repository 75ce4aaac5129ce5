extension RowReader {
    /// Visits the rows of `binding`'s table in key order, each as its stored key and its row, straight
    /// from the cursor (seal and header checked in the cursor's call, `strata_cursor_get_row`). No key
    /// is decoded and nothing is copied: the bytes are valid while the snapshot (or the write) is.
    /// `visit` returns false to stop.
    ///
    /// - Throws: `.corrupted` naming the damaged row, `.storage`, or what `visit` throws.
    func forEachRow(
        _ binding: TableBinding, _ visit: (UnsafeRawBufferPointer, RowView) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let columns = binding.columnCount
        let failure: StoreError?
        do {
            failure = try core.withCursor(binding.table) { (cursor) throws(LMDBError) -> StoreError? in
                var entry = try cursor.firstRow(columns: columns)
                while let current = entry {
                    guard case .intact = current.state else {
                        do throws(StoreError) {
                            return damage(
                                of: current, binding: binding, key: try decodeRowKey(current.key, binding: binding))
                        } catch {
                            return error
                        }
                    }
                    do throws(StoreError) {
                        guard try visit(current.key, RowView(encoded: current.value, columns: columns)) else {
                            return nil
                        }
                    } catch {
                        return error
                    }
                    entry = try cursor.nextRow(columns: columns)
                }
                return nil
            }
        } catch {
            throw StoreError(error)
        }
        if let failure { throw failure }
    }

    /// Visits the rows of `binding`'s table in key order a batch at a time (`RowBatch`: seals and
    /// headers checked in one call into C per batch), for the loops that read one column of every
    /// row (`ColumnKernel`): every row, or those of one key range of a split walk (`ScanPart`). The
    /// rows before a damaged one are visited, then the walk throws. `visit` returns false to stop.
    ///
    /// - Throws: `.corrupted` naming the damaged row, `.storage`, or what `visit` throws.
    func forEachRowBatch(
        _ binding: TableBinding, in part: ScanPart = .whole,
        _ visit: (borrowing RowBatch) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let columns = binding.columnCount
        func walk(_ cursor: borrowing Cursor) throws(LMDBError) -> StoreError? {
            try part.withBounds { (start, end) throws(LMDBError) -> StoreError? in
                var batch = RowBatch()
                var first = true
                while true {
                    try cursor.fillRows(&batch, first: first, from: start, before: end, columns: columns)
                    first = false
                    if batch.count > 0 {
                        do throws(StoreError) {
                            guard try visit(batch) else { return nil }
                        } catch {
                            return error
                        }
                    }
                    switch batch.stop {
                    case .full: continue
                    case .end: return nil
                    case .damaged(let entry):
                        do throws(StoreError) {
                            return damage(
                                of: entry, binding: binding, key: try decodeRowKey(entry.key, binding: binding))
                        } catch {
                            return error
                        }
                    }
                }
            }
        }
        let failure: StoreError?
        do {
            if let transaction = part.transaction {
                failure = try transaction.withCursor(binding.table, walk)
            } else {
                failure = try core.withCursor(binding.table, walk)
            }
        } catch {
            throw StoreError(error)
        }
        if let failure { throw failure }
    }
}
