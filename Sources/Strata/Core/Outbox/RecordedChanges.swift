/// What a commit's change log becomes in the outbox (`Outbox.recordCommit`): a change of an embedded
/// object moves to its owner's column, and each updated Map names the keys the commit set or removed
/// (last-writer-wins per Map key in sync: a concurrent change of another key on another client is
/// kept).
extension Outbox {
    /// `log` as the outbox records it, and the changed keys of its Maps: read in the write
    /// (`session`), the Maps' old values in a read transaction of their own beside it.
    ///
    /// - Throws: `.corrupted` when embedded objects nest too deep, `.storage`.
    func recordedChanges(_ log: [TableChanges], session: WriteSession) throws(StoreError)
        -> (changes: [TableChanges], mapKeys: [Int: [RowKey: [Int: [String]]]])
    {
        let embeddedChanged = tables.all.contains { $0.schema.isEmbedded && !log[$0.ordinal].isEmpty }
        let changes = embeddedChanged ? try movingEmbeddedChangesToOwners(log, session: session) : log
        return (changes, try changedMapKeys(changes, session: session, captured: capturedThisWrite))
    }

    /// The change log as the outbox records it: a change of an embedded object is a change of the
    /// column of its owner (the first owner up the chain that is not embedded) that links to it, so
    /// that sync sends the owner's property with the embedded objects inside.
    private func movingEmbeddedChangesToOwners(_ log: [TableChanges], session: WriteSession) throws(StoreError)
        -> [TableChanges]
    {
        var moved = log
        for binding in tables.all where binding.schema.isEmbedded && !log[binding.ordinal].isEmpty {
            let changes = log[binding.ordinal]
            for key in changes.inserted.union(changes.modified.keys) {
                guard let (owner, ownerKey, column) = try topOwner(ofEmbedded: key, binding: binding, session: session)
                else { continue }
                let ownerChanges = log[owner.ordinal]
                if ownerChanges.inserted.contains(ownerKey) || ownerChanges.deleted.contains(ownerKey) { continue }
                moved[owner.ordinal].modified[ownerKey, default: []].insert(column)
            }
        }
        return moved
    }

    /// The first owner up the chain of `key` that is not embedded, and its column that (through the
    /// chain) holds it; nil when the chain ends (an owner deleted in this write).
    private func topOwner(ofEmbedded key: RowKey, binding: TableBinding, session: WriteSession) throws(StoreError)
        -> (TableBinding, RowKey, Int)?
    {
        var current = (binding: binding, key: key)
        for _ in 0..<EmbeddedImage.maximumDepth {
            var owner: (TableBinding, RowKey, Int)?
            for (origin, link) in tables.incomingLinks[current.binding.ordinal] where link.isOwning {
                if let originKey = try firstBacklink(to: current.key, through: link, origin: origin, session: session) {
                    owner = (origin, originKey, link.column)
                    break
                }
            }
            guard let (origin, originKey, column) = owner else { return nil }
            if !origin.schema.isEmbedded { return (origin, originKey, column) }
            current = (origin, originKey)
        }
        throw .corrupted("\(binding.name): embedded objects nest more than \(EmbeddedImage.maximumDepth) deep")
    }

    /// The first origin row whose `link` holds `target`, as this write sees the backlinks.
    private func firstBacklink(
        to target: RowKey, through link: LinkBinding, origin: TableBinding, session: WriteSession
    )
        throws(StoreError) -> RowKey?
    {
        let stored = try StoreError.mapping { () throws(LMDBError) -> [UInt8]? in
            try target.withBytes { (key) throws(LMDBError) -> [UInt8]? in
                try session.withCursor(link.table) { (cursor) throws(LMDBError) -> [UInt8]? in
                    guard let entry = try cursor.seek(atLeast: key), entry.key.elementsEqual(key) else { return nil }
                    return Array(entry.value)
                }
            }
        }
        guard let stored else { return nil }
        do {
            return try stored.withBytes { (bytes) throws(RowDamage) in try RowKey(stored: bytes, kind: origin.keyKind) }
        } catch {
            throw .corrupted("\(origin.name): a key is damaged: \(error)")
        }
    }

    /// Per binding ordinal, per modified row of a captured type, per changed Map column: the keys
    /// whose value or presence differs from the last commit (read in a transaction of its own, which
    /// `MDB_NOTLS` allows beside the write). A commit group's later writes see the group's start:
    /// their keys are then a superset, which sends current values of a few more keys (harmless).
    private func changedMapKeys(_ log: [TableChanges], session: WriteSession, captured: [Bool]?) throws(StoreError)
        -> [Int: [RowKey: [Int: [String]]]]
    {
        guard let captured else { return [:] }
        var result: [Int: [RowKey: [Int: [String]]]] = [:]
        var reader: ReadTransaction?
        for binding in tables.all
        where captured[binding.ordinal] && !binding.mapColumns.isEmpty && !log[binding.ordinal].modified.isEmpty {
            for (key, columns) in log[binding.ordinal].modified {
                // A Map of embedded objects travels whole, as an image (`EmbeddedImage`): no keys.
                let mapColumns = columns.filter { binding.mapColumns.contains($0) && !linksEmbedded(binding, $0) }
                    .sorted()
                guard !mapColumns.isEmpty else { continue }
                if reader == nil { reader = try StoreError.mapping { try ReadTransaction(environment) } }
                guard
                    let keys = try changedKeys(
                        of: mapColumns, key: key, binding: binding, reader: reader!, session: session)
                else { continue }
                result[binding.ordinal, default: [:]][key] = keys
            }
        }
        return result
    }

    private func linksEmbedded(_ binding: TableBinding, _ column: Int) -> Bool {
        guard let target = binding.columnTypes[column].linkedTypeName else { return false }
        return tables.existingBinding(named: target)?.schema.isEmbedded ?? false
    }

    /// The changed keys of `columns` of one row; nil when the row is new or its old or new bytes
    /// cannot be read (the whole Map is then sent, as before).
    private func changedKeys(
        of columns: [Int], key: RowKey, binding: TableBinding, reader: borrowing ReadTransaction, session: WriteSession
    ) throws(StoreError) -> [Int: [String]]? {
        try key.withBytes { (keyBytes) throws(StoreError) -> [Int: [String]]? in
            let oldStored = try StoreError.mapping { () throws(LMDBError) in
                try reader.get(binding.table, key: keyBytes)
            }
            let newStored = try StoreError.mapping { () throws(LMDBError) in
                try session.get(binding.table, key: keyBytes)
            }
            guard let oldStored, let newStored,
                let old = try? RowView(stored: oldStored, key: keyBytes, expectedColumns: binding.columnCount),
                let new = try? RowView(stored: newStored, key: keyBytes, expectedColumns: binding.columnCount)
            else { return nil }
            var result: [Int: [String]] = [:]
            for column in columns {
                guard let before = try? old.column(column), let after = try? new.column(column),
                    let keys = try? MapFormat.changedKeys(from: before, to: after)
                else { return nil }
                result[column] = keys
            }
            return result
        }
    }
}
