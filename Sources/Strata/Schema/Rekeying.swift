/// A primary key that changes in a migration (one added to a type without, one moved to another
/// property, one removed): as in Realm, the block runs first, with the objects under their old keys,
/// and may set the new key's property; then every row moves to the key the new schema gives it, and
/// every link to a moved row follows it.
extension MigrationContext {
    /// Keys the rows of the `rekeyed` types anew, then rewrites the links that point at them.
    ///
    /// - Throws: `.alreadyExists` when two objects have the same new primary key (the migration is
    ///   abandoned), `.invalidArgument` for an object without one, `.corrupted`, `.storage`.
    func rekeyRows() throws(StoreError) {
        guard !rekeyed.isEmpty else { return }
        var moved: [String: [[UInt8]: [UInt8]]] = [:]
        for name in rekeyed.sorted() {
            guard let type = new.type(named: name) else { continue }
            moved[name] = try rekeyRows(of: type)
        }
        for type in new.types { try followMovedRows(moved, from: type) }
    }

    /// Moves each row of `type` to its primary key's value, or (a type without one now) to row ids
    /// in the order of the old keys. Returns the new key of each old one.
    private func rekeyRows(of type: StoredSchema.StoredType) throws(StoreError) -> [[UInt8]: [UInt8]] {
        let table = try table(TableName.objects(type.name))
        let rows = try pairs(table, after: nil, limit: .max)
        try empty(table)
        let keyColumn = type.properties.firstIndex(where: \.isPrimaryKey)
        var moved: [[UInt8]: [UInt8]] = [:]
        var nextRowID: UInt64 = 1
        for (oldKey, stored) in rows {
            try stored.withBytes { (raw) throws(StoreError) in
                let row = try oldKey.withBytes { (key) throws(StoreError) in try checkedRow(raw, key: key, type) }
                let newKey: [UInt8]
                if let keyColumn {
                    newKey = try primaryKeyRowKey(row, column: keyColumn, of: type)
                } else {
                    newKey = RowKey.integer(nextRowID).withBytes { Array($0) }
                    nextRowID += 1
                }
                guard try putRow(table, key: newKey, row: row.bytes, options: .noOverwrite) else {
                    let value = try DynamicValue.decode(
                        column(row, keyColumn!, of: type), type: type.properties[keyColumn!].type
                    ) { _, _ in nil }
                    throw .alreadyExists(
                        primaryKey: StoreError.PrimaryKey(value.map { "\($0)" } ?? "nil", typeName: type.name))
                }
                moved[oldKey] = newKey
            }
        }
        return moved
    }

    /// Rewrites the links of `type`'s rows that point at moved rows (a link to a row that is gone
    /// becomes nil, or leaves its List).
    private func followMovedRows(_ moved: [String: [[UInt8]: [UInt8]]], from type: StoredSchema.StoredType)
        throws(StoreError)
    {
        let affected = Dictionary(
            uniqueKeysWithValues: type.properties.indices.compactMap { column in
                type.properties[column].type.linkedTypeName.flatMap { moved[$0] }.map { (column, $0) }
            })
        guard !affected.isEmpty else { return }
        let table = try table(TableName.objects(type.name))
        var encoder = _RowEncoder()
        for (key, stored) in try pairs(table, after: nil, limit: .max) {
            try stored.withBytes { (raw) throws(StoreError) in
                let row = try key.withBytes { (rawKey) throws(StoreError) in try checkedRow(raw, key: rawKey, type) }
                encoder.beginRow(columns: type.properties.count)
                for (index, property) in type.properties.enumerated() {
                    let current = try column(row, index, of: type)
                    guard let keys = affected[index], let current else {
                        encoder.appendColumn(copying: current)
                        continue
                    }
                    guard property.type.isCollection else {
                        if let target = keys[Array(current)] {
                            target.withUnsafeBytes { encoder.appendColumn(copying: $0) }
                        } else {
                            encoder.appendNullColumn()
                        }
                        continue
                    }
                    do {
                        try CollectionLinks.appendRewritten(current, type: property.type, into: &encoder) {
                            keys[Array($0)]
                        }
                    } catch {
                        throw .corrupted("\(type.name).\(property.name): \(error)")
                    }
                }
            }
            try encoder.withRow { (bytes) throws(StoreError) in _ = try putRow(table, key: key, row: bytes) }
        }
    }
}
