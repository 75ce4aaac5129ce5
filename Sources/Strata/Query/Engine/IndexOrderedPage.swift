extension QueryEngine {
    /// The route `.indexOrderedPage`: the first page of a sort whose first key has an index, read
    /// from that index in order. The index is walked from its start (or its end, descending) and
    /// stops once the page is full and the value of its last entry is passed; that run is sorted by
    /// every key (ties and long strings, which the index holds by prefix). O(k) rows read for a page
    /// of k when `filter` (a condition no index serves) refuses nothing.
    ///
    /// - Throws: `.corrupted` when the index names a missing row, `.storage`.
    func indexOrderedPage(filter: BoundCondition?, keys: [SortKey<Element>], limit: Int, index: IndexBinding)
        throws(StoreError) -> [(key: RowKey, row: RowView)]
    {
        let first = keys[0]
        guard limit > 0 else { return [] }
        let reader = core.rows
        let evaluator = filter.map { BoundEvaluator($0, binding: binding, rows: reader) }
        var page: [(key: RowKey, row: RowView)] = []
        let ascending = first.ascending
        let failure: StoreError?
        do {
            failure = try core.withCursor(index.table) { (cursor) throws(LMDBError) -> StoreError? in
                /// The index key of the page's last entry, once the page is full.
                var boundary: [UInt8]?
                var entry = try ascending ? cursor.first() : cursor.last()
                while let current = entry {
                    if let boundary, !current.key.elementsEqual(boundary) { break }
                    do throws(StoreError) {
                        let key = try reader.decodeRowKey(current.value, binding: binding)
                        guard let row = try reader.fetchRow(binding, key: key) else {
                            throw .corrupted(
                                "\(binding.name).\(index.property): the index names a missing row \(binding.describe(key))"
                            )
                        }
                        if try evaluator?.matches(row, .key(key)) ?? true {
                            page.append((key, row))
                            if page.count == limit { boundary = Array(current.key) }
                        }
                    } catch {
                        return error
                    }
                    entry = try ascending ? cursor.next() : cursor.previous()
                }
                return nil
            }
        } catch {
            throw StoreError(error)
        }
        if let failure { throw failure }
        page.sort { $0.key < $1.key }  // ties keep the key order, as in a full sort
        let run = page
        guard
            let sorter = try ColumnSorter(
                keys, rows: run.map(\.row), binding: binding,
                location: { binding.location(of: run[$0].key, column: $1) })
        else { preconditionFailure("Strata: an index-ordered page was planned for keys the rows cannot sort") }
        return sorter.order(count: run.count, limit: limit).map { run[$0] }
    }
}
