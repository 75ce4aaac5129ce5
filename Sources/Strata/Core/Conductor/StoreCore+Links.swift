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
                    try replaceRow(
                        encoded, old: old, key: originKey, binding: origin, session: session, dropsEmbedded: false)
                }
            }
        }
    }
}

/// Owning links (`@Persisted(owning:)`, links to EmbeddedObjects): a deleted owner takes with it the
/// targets no other owning link holds, recursively.
extension StoreCore {
    /// The targets the owning links of a row (about to be deleted) hold.
    func ownedTargets(of row: RowView, key: RowKey, binding: TableBinding) throws(StoreError)
        -> [(key: RowKey, binding: TableBinding)]
    {
        var owned: [(key: RowKey, binding: TableBinding)] = []
        for link in binding.links where link.isOwning {
            guard let target = tables.existingBinding(named: link.target) else { continue }
            for bytes in try link.targets(in: row, at: binding.location(of: key)) {
                owned.append(
                    (
                        try bytes.withBytes { (raw) throws(StoreError) in try rows.decodeRowKey(raw, binding: target) },
                        target
                    ))
            }
        }
        return owned
    }

    /// Deletes what a deleted row owned: every object its owning links reach, directly or through
    /// other owned objects, except those an owning link from outside that group still holds (and
    /// what they own). A cycle of objects owning one another goes with its owner.
    func deleteUnowned(_ targets: [(key: RowKey, binding: TableBinding)], session: WriteSession) throws(StoreError) {
        struct Target: Hashable {
            let table: Int
            let key: RowKey
        }
        var group: [Target: TableBinding] = [:]
        var order: [Target] = []
        var pending = targets
        while let (key, binding) = pending.popLast() {
            let target = Target(table: binding.ordinal, key: key)
            guard group[target] == nil, let row = try copyOfRow(binding, key: key, session: session) else { continue }
            group[target] = binding
            order.append(target)
            pending += try ownedTargets(of: row, key: key, binding: binding)
        }
        // Kept: held by an owning link from outside the group, and what those own within it.
        var kept: [Target] = []
        for target in order {
            let binding = group[target]!
            for (origin, link) in tables.incomingLinks[binding.ordinal] where link.isOwning {
                let owners = try backlinks(to: target.key, through: link, origin: origin)
                if owners.contains(where: { group[Target(table: origin.ordinal, key: $0)] == nil }) {
                    kept.append(target)
                    break
                }
            }
        }
        var keptSet = Set(kept)
        while let target = kept.popLast() {
            let binding = group[target]!
            guard let row = try copyOfRow(binding, key: target.key, session: session) else { continue }
            for (key, child) in try ownedTargets(of: row, key: target.key, binding: binding) {
                let owned = Target(table: child.ordinal, key: key)
                if group[owned] != nil, keptSet.insert(owned).inserted { kept.append(owned) }
            }
        }
        for target in order where !keptSet.contains(target) {
            _ = try deleteRow(key: target.key, binding: group[target]!, session: session, cascading: false)
        }
    }

    /// Whether an owning link of any row holds the row under `key`.
    func isOwned(_ key: RowKey, binding: TableBinding) throws(StoreError) -> Bool {
        for (origin, link) in tables.incomingLinks[binding.ordinal] where link.isOwning {
            if try !backlinks(to: key, through: link, origin: origin).isEmpty { return true }
        }
        return false
    }
}

/// Embedded objects: one owner each, deleted when their owner drops them.
extension StoreCore {
    /// Whether `link` points to an EmbeddedObject type.
    func linksEmbedded(_ link: LinkBinding) -> Bool {
        link.isOwning && (tables.existingBinding(named: link.target)?.schema.isEmbedded ?? false)
    }

    /// The embedded objects `old` holds and `new` (the same row, replaced) no longer does.
    func droppedEmbedded(from old: RowView, to new: RowView, key: RowKey, binding: TableBinding) throws(StoreError)
        -> [(key: RowKey, binding: TableBinding)]
    {
        var dropped: [(key: RowKey, binding: TableBinding)] = []
        for link in binding.links where linksEmbedded(link) {
            let location = binding.location(of: key)
            guard try !DerivedEntries.columnEquals(old, new, link.column, at: location),
                let target = tables.existingBinding(named: link.target)
            else { continue }
            let gone = try link.targets(in: old, at: location).subtracting(try link.targets(in: new, at: location))
            for bytes in gone {
                dropped.append(
                    (
                        try bytes.withBytes { (raw) throws(StoreError) in try rows.decodeRowKey(raw, binding: target) },
                        target
                    ))
            }
        }
        return dropped
    }

    /// Throws `.invalidArgument` when a row being stored by `add` links to an embedded object that
    /// another row or property owns (before anything of the row is written).
    func checkEmbeddedOwners(of row: RowView, key: RowKey, binding: TableBinding) throws(StoreError) {
        var held = Set<[UInt8]>()  // the target type's name, then the key: each embedded object once
        for link in binding.links where linksEmbedded(link) {
            guard let target = tables.existingBinding(named: link.target) else { continue }
            for bytes in try embeddedTargets(of: link, in: row, key: key, binding: binding) {
                guard held.insert(Array(link.target.utf8) + [0] + bytes).inserted else {
                    throw .invalidArgument(
                        "\(binding.location(of: key)).\(link.property): cannot add an existing managed embedded "
                            + "object to a second place (a \(link.target) held twice by the row): an embedded object "
                            + "has one owner and one place; assign a new one")
                }
            }
            for bytes in try link.targets(in: row, at: binding.location(of: key)) {
                let targetKey = try bytes.withBytes { (raw) throws(StoreError) in
                    try rows.decodeRowKey(raw, binding: target)
                }
                for (origin, incoming) in tables.incomingLinks[target.ordinal] where incoming.isOwning {
                    for owner in try backlinks(to: targetKey, through: incoming, origin: origin)
                    where !(origin === binding && owner == key && incoming.column == link.column) {
                        throw .invalidArgument(
                            "\(binding.location(of: key)).\(link.property) links to an EmbeddedObject owned by "
                                + "\(origin.location(of: owner)).\(incoming.property): an embedded object has one owner"
                        )
                    }
                }
            }
        }
    }

    /// The targets of an embedded link column, in order, each as often as the column holds it.
    private func embeddedTargets(of link: LinkBinding, in row: RowView, key: RowKey, binding: TableBinding)
        throws(StoreError) -> [[UInt8]]
    {
        do throws(RowDamage) {
            guard let bytes = try row.column(link.column) else { return [] }
            return try CollectionLinks.targets(bytes, type: link.type).map { Array($0) }
        } catch {
            throw .damaged(at: "\(binding.location(of: key)).\(link.property)", error)
        }
    }

    /// Why `target` (a managed embedded object about to be linked from `column` of the row under
    /// `key`) cannot be: another row or property owns it. Nil when it is free or already this link's.
    func embeddedOwnerProblem(_ target: Object, linkedFrom column: Int, of key: RowKey, binding: TableBinding)
        throws(StoreError) -> String?
    {
        guard target is EmbeddedObject, let targetBinding = target._tableBinding else { return nil }
        for (origin, link) in tables.incomingLinks[targetBinding.ordinal] where link.isOwning {
            for owner in try backlinks(to: target._key, through: link, origin: origin)
            where !(origin === binding && owner == key && link.column == column) {
                return
                    "\(targetBinding.name) is an EmbeddedObject owned by \(origin.location(of: owner)).\(link.property): "
                    + "an embedded object has one owner (assign a new one)"
            }
        }
        return nil
    }
}
