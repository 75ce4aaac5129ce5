/// Backlinks: which rows link to a row. Kept with every row change (like an index), they find the
/// links to clear when a row is deleted and serve `LinkingObjects`.
extension StoreCore {
    /// The keys of the rows of `origin` whose `link` holds `target`, in key order.
    func backlinks(to target: RowKey, through link: LinkBinding, origin: TableBinding) throws(StoreError) -> [RowKey] {
        var keys: [RowKey] = []
        let bytes = target.withBytes { Array($0) }
        try rows.scanRanges([KeyRange(lower: bytes, upper: bytes)], table: link.table) {
            (_, originKey) throws(StoreError) in
            keys.append(try rows.decodeRowKey(originKey, binding: origin))
        }
        return keys
    }

    /// Before a row is deleted: clears every to-one link to it, removes it from every List and
    /// MutableSet, and sets the Map values that link to it to nil (as Realm).
    func unlinkIncoming(to key: RowKey, binding: TableBinding, session: WriteSession) throws(StoreError) {
        let incoming = tables.incomingLinks[binding.ordinal]
        guard !incoming.isEmpty else { return }
        let targetBytes = key.withBytes { Array($0) }
        for (origin, link) in incoming {
            for originKey in try backlinks(to: key, through: link, origin: origin) {
                let buffer = ScratchBuffer()
                guard let old = try copyOfRow(origin, key: originKey, session: session, into: buffer) else {
                    throw .corrupted(
                        "\(origin.name).\(link.property): a backlink names a missing row \(origin.describe(originKey))")
                }
                var encoder = _RowEncoder()
                encoder.beginRow(columns: origin.columnCount)
                do throws(RowDamage) {
                    for column in 0..<origin.columnCount {
                        guard column == link.column else {
                            encoder.appendColumn(copying: try old.column(column))
                            continue
                        }
                        guard link.isCollection, let bytes = try old.column(column) else {
                            encoder.appendNullColumn()
                            continue
                        }
                        try CollectionLinks.appendRewritten(bytes, type: link.type, into: &encoder) {
                            $0.elementsEqual(targetBytes) ? nil : Array($0)
                        }
                    }
                } catch {
                    throw .damaged(at: origin.location(of: originKey), error)
                }
                try encoder.withEncodedRow(columns: origin.columnCount) { (encoded) throws(StoreError) in
                    try replaceRow(encoded, old: old, key: originKey, binding: origin, session: session)
                }
            }
        }
    }
}
