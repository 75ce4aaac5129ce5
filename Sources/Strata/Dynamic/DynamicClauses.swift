/// The clauses of a query on a `DynamicStore` (`SORT`, `DISTINCT`, `LIMIT`), applied in the order
/// they are written, as `Results.where(_:_:)` applies them: `LIMIT(2) SORT(age DESC)` sorts the first
/// two, `SORT(age DESC) LIMIT(2)` keeps the two oldest.
enum DynamicClause {
    /// A key of `SORT` or `DISTINCT`: the path to a column-ordered property (through to-one links or not).
    struct Key {
        let steps: [DynamicCondition.Step]
        let type: PropertyType
        let ascending: Bool
    }

    case sort([Key])
    case distinct([Key])
    case limit(Int)
}

extension DynamicStore {
    /// `order` (positions in `rows`, the matches in key order) after `clause`.
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`.
    func applying(
        _ clause: DynamicClause, to order: [Int], rows: [RowView], type: Int, in transaction: borrowing ReadTransaction
    ) throws(StoreError) -> [Int] {
        let current = order.map { rows[$0] }
        func location(_ position: Int, _ column: Int) -> String {
            "\(stored.types[type].name)[\(order[position])].\(stored.types[type].properties[column].name)"
        }
        switch clause {
        case .limit(let count):
            return Array(order.prefix(Swift.max(count, 0)))
        case .sort(let keys) where keys.allSatisfy({ $0.steps.count == 1 }):
            var columns: [SortColumn] = []
            for key in keys {
                guard let sortOrder = ColumnOrder(key.type) else { continue }
                columns.append(
                    SortColumn(
                        values: try ColumnSorter.read(
                            key.steps[0].property, order: sortOrder, rows: current, location: location),
                        ascending: key.ascending))
            }
            return ColumnSorter(columns: columns).order(count: current.count).map { order[$0] }
        case .sort(let keys):
            // Through a link: the values' order keys, a nil link sorting with the nulls.
            var values: [[[UInt8]]] = []
            for row in current {
                var keysOfRow: [[UInt8]] = []
                for key in keys {
                    keysOfRow.append(try orderKey(key, row: row, in: transaction) ?? [KeyEncoding.nullTag])
                }
                values.append(keysOfRow)
            }
            let sorted = current.indices.sorted { a, b in
                for (index, key) in keys.enumerated() where values[a][index] != values[b][index] {
                    return values[a][index].lexicographicallyPrecedes(values[b][index]) == key.ascending
                }
                return a < b  // stable
            }
            return sorted.map { order[$0] }
        case .distinct(let keys) where keys.allSatisfy({ $0.steps.count == 1 }):
            let columns = keys.compactMap { key in
                ColumnOrder(key.type).map { (column: key.steps[0].property, order: $0) }
            }
            return try ColumnDistinct(columns: columns).kept(current, location: location).map { order[$0] }
        case .distinct(let keys):
            // As in Realm, an object whose link on the way to a distinct property is nil is left out.
            var seen = Set<[[UInt8]]>()
            var kept: [Int] = []
            rows: for (position, row) in current.enumerated() {
                var values: [[UInt8]] = []
                for key in keys {
                    guard let value = try orderKey(key, row: row, in: transaction) else { continue rows }
                    values.append(value)
                }
                if seen.insert(values).inserted { kept.append(order[position]) }
            }
            return kept
        }
    }

    /// The order key (`SetOrder.key`) of the value at the end of `key`'s path for `row`; nil when a
    /// link on the way is nil or gone.
    private func orderKey(_ key: DynamicClause.Key, row: RowView, in transaction: borrowing ReadTransaction)
        throws(StoreError) -> [UInt8]?
    {
        guard let bytes = try end(key.steps, row: row, in: transaction) else { return nil }
        do {
            return try SetOrder.key(bytes, type: key.type)
        } catch {
            throw .corrupted("a damaged \(key.type) in a SORT or DISTINCT key: \(error)")
        }
    }
}
