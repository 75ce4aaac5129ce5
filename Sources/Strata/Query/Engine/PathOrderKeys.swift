/// The order keys of the values at the end of paths through to-one links (`SetOrder.key`: null
/// first, numbers as numbers, strings and data by their bytes, equal keys for equal values): what the
/// string language's `SORT(account.balance ASC)` and `DISTINCT(account.id)` compare. Properties of
/// the type itself are sorted and compared from their columns (`ColumnSorter`, `ColumnDistinct`).
struct PathOrderKeys {
    let rows: RowReader
    let binding: TableBinding

    /// The key of the value at the end of `path` for the row `key` names; nil when a link on the way
    /// is nil or names a deleted row.
    ///
    /// - Throws: `.corrupted` naming a damaged row on the way, `.storage`.
    func key(_ path: PropertyPath, row: RowView, key: RowKey) throws(StoreError) -> [UInt8]? {
        guard let end = try PredicateEvaluator(rows: rows).pathEnd(path, row: row, binding: binding, key: .key(key))
        else { return nil }
        do throws(RowDamage) {
            return try SetOrder.key(try end.row.column(end.column), type: end.binding.columnTypes[end.column])
        } catch {
            throw .damaged(at: end.binding.location(of: end.key, column: end.column), error)
        }
    }

    /// The items whose values at the ends of `paths` no earlier item has, in order; an item whose
    /// link on the way to one of them is nil is left out, as Realm does.
    func distinct(_ items: [(key: RowKey, row: RowView)], by paths: [PropertyPath]) throws(StoreError)
        -> [(key: RowKey, row: RowView)]
    {
        var seen = Set<[[UInt8]]>()
        var kept: [(key: RowKey, row: RowView)] = []
        items: for item in items {
            var values: [[UInt8]] = []
            for path in paths {
                guard let value = try key(path, row: item.row, key: item.key) else { continue items }
                values.append(value)
            }
            if seen.insert(values).inserted { kept.append(item) }
        }
        return kept
    }

    /// The key a sort compares for an object: through a nil link, null's (it sorts with the nulls).
    /// A damaged row on the way sorts with them too (`verify()` names it; a sort cannot throw).
    static func sortKey<Root: Object>(of object: Root, path: PropertyPath) -> [UInt8] {
        guard let core = object._core, let binding = object._tableBinding,
            let row = try? core.rows.fetchRow(binding, key: object._key),
            let key = try? PathOrderKeys(rows: core.rows, binding: binding).key(path, row: row, key: object._key)
        else { return [KeyEncoding.nullTag] }
        return key
    }
}

extension SortKey {
    /// A key of the string language through to-one links (`SORT(account.balance ASC)`): compared by
    /// the order keys of the values its objects reach (`PathOrderKeys`).
    init(path: PropertyPath, ascending: Bool) {
        self.init(
            keyPath: nil, property: nil, ascending: ascending,
            comparator: { objects in
                let keys = objects.map { PathOrderKeys.sortKey(of: $0, path: path) }
                return { a, b in
                    let order = keys[a] == keys[b] ? 0 : keys[a].lexicographicallyPrecedes(keys[b]) ? -1 : 1
                    return ascending ? order : -order
                }
            })
    }
}
