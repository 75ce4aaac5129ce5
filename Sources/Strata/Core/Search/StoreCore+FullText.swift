/// A Store reads its full-text indexes in the transaction it reads rows in: its snapshot, or its open
/// write (whose pending index changes are written first, so a query inside a write sees them).
extension StoreCore: FullTextReading {
    func withIndexCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(StoreError) -> R {
        try StoreError.mapping { () throws(LMDBError) in try withCursor(table, body) }
    }

    func value(in table: Table, at key: [UInt8]) throws(StoreError) -> [UInt8]? {
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (raw) throws(LMDBError) in try get(table, key: raw).map(Array.init) }
        }
    }

    /// What answers queries from `index` in this Store's current transaction.
    ///
    /// - Throws: `.storage` or `.mapFull` writing the write's pending index changes, `.corrupted`.
    func searcher(for index: FullTextIndex) throws(StoreError) -> FullTextSearcher<StoreCore> {
        if let session, !session.fullTextChanges.isEmpty {
            try session.fullTextChanges.flush(index, to: session)
        }
        return FullTextSearcher(index: index, storage: self)
    }
}
