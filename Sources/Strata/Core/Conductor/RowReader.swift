/// Reads the rows of the snapshot a Store shows, or of its open write: looks rows up and scans key
/// ranges, checking what it hands out (a key of the table's kind, a row header of the table's column
/// count). Objects, queries, iteration and writes read through it.
struct RowReader {
    unowned(unsafe) let core: StoreCore  // a view of the core: used while the core is

    /// The validated row under `key`, or nil.
    ///
    /// - Throws: `.corrupted` (naming type, key and damage), `.storage`.
    func fetchRow(_ binding: TableBinding, key: RowKey) throws(StoreError) -> RowView? {
        try key.withBytes { (keyBytes) throws(StoreError) -> RowView? in
            let stored = try StoreError.mapping { () throws(LMDBError) in try core.get(binding.table, key: keyBytes) }
            guard let stored else { return nil }
            return try storedRow(stored, keyBytes: keyBytes, binding: binding, key: key)
        }
    }

    /// The row inside `stored`, the value under `keyBytes`, once its seal matches (`RowSeal`).
    ///
    /// - Throws: `.corrupted` naming type, key and damage.
    func unsealedRow(
        _ stored: UnsafeRawBufferPointer, keyBytes: UnsafeRawBufferPointer, binding: TableBinding, key: RowKey
    )
        throws(StoreError) -> UnsafeRawBufferPointer
    {
        do {
            return try RowSeal.open(stored, key: keyBytes)
        } catch {
            throw .damaged(at: binding.location(of: key), error)
        }
    }

    /// `bytes` (a copy of a row, its seal already checked) as a row whose every column is checked
    /// (what writes work on).
    func validatedRow(_ bytes: UnsafeRawBufferPointer, binding: TableBinding, key: RowKey) throws(StoreError) -> RowView
    {
        do {
            return try RowView(validating: bytes, expectedColumns: binding.columnCount)
        } catch {
            throw .damaged(at: binding.location(of: key), error)
        }
    }

    /// Visits the pairs of `table` inside each range, in order.
    func scanRanges(
        _ ranges: [KeyRange], table: Table,
        _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(StoreError) -> Void
    ) throws(StoreError) {
        let failure: StoreError?
        do {
            failure = try core.withCursor(table) { (cursor) throws(LMDBError) -> StoreError? in
                for range in ranges {
                    let start =
                        if let lower = range.lower {
                            try lower.withBytes { (key) throws(LMDBError) in try cursor.seek(atLeast: key) }
                        } else {
                            try cursor.first()
                        }
                    if let failure = try cursor.walk(
                        from: start, while: range.admits,
                        { (entry) throws(StoreError) in try visit(entry.key, entry.value) })
                    {
                        return failure
                    }
                }
                return nil
            }
        } catch {
            throw StoreError(error)
        }
        if let failure { throw failure }
    }

    func decodeRowKey(_ bytes: UnsafeRawBufferPointer, binding: TableBinding) throws(StoreError) -> RowKey {
        do {
            return try RowKey(stored: bytes, kind: binding.keyKind)
        } catch {
            throw .corrupted("\(binding.name): a key is damaged: \(error)")
        }
    }

    /// The row stored as `stored` under `keyBytes` (which decode as `key`), its seal and header checked.
    ///
    /// - Throws: `.corrupted` naming type, key and damage.
    func storedRow(
        _ stored: UnsafeRawBufferPointer, keyBytes: UnsafeRawBufferPointer, binding: TableBinding, key: RowKey
    )
        throws(StoreError) -> RowView
    {
        do {
            return try RowView(stored: stored, key: keyBytes, expectedColumns: binding.columnCount)
        } catch {
            throw .damaged(at: binding.location(of: key), error)
        }
    }

    /// The row of `entry`, whose seal and header the cursor checked (`TableCursor.nextRow`).
    ///
    /// - Throws: `.corrupted` naming type, key and damage.
    @inline(__always)
    func checkedRow(_ entry: SealedEntry, binding: TableBinding, key: RowKey) throws(StoreError) -> RowView {
        guard case .intact = entry.state else { throw damage(of: entry, binding: binding, key: key) }
        return RowView(encoded: entry.value, columns: binding.columnCount)
    }

    /// What is wrong with a row the cursor refused (`checkedRow`): out of line, off every row's path.
    @inline(never)
    func damage(of entry: SealedEntry, binding: TableBinding, key: RowKey) -> StoreError {
        do {
            if case .sealBroken = entry.state { throw RowSeal.damage(entry.value) }
            _ = try RowView(checkingHeader: entry.value, expectedColumns: binding.columnCount)
            return .damaged(at: binding.location(of: key), RowDamage("row header refused"))
        } catch {
            return .damaged(at: binding.location(of: key), error)
        }
    }

    /// Every row of the table, in key order.
    func allRows(_ binding: TableBinding) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        var found: [(key: RowKey, row: RowView)] = []
        try scanRanges([KeyRange()], table: binding.table) { (key, value) throws(StoreError) in
            let rowKey = try decodeRowKey(key, binding: binding)
            found.append((rowKey, try storedRow(value, keyBytes: key, binding: binding, key: rowKey)))
        }
        return found
    }
}
