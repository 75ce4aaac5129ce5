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
}
