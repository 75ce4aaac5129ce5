/// Reads a snapshot's tables: a Store's current view, or a plain read transaction.
protocol SnapshotReading: ~Copyable {
    func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer?
    func count(_ table: Table) throws(LMDBError) -> Int
    func withCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(LMDBError) -> R
}

extension ReadTransaction: SnapshotReading {}
extension StoreCore: SnapshotReading {}
