/// Which watched owners a commit changed through their embedded objects. An embedded object is part
/// of its owner (Realm reports a change of one as a change of the owner's property that holds it),
/// and Observation needs it so: `withObservationTracking { contact.place?.city }` reads `city` on an
/// accessor the read made and nothing holds afterwards, so what stays watched is the owner's `place`.
/// A change to an embedded object, or to one it embeds, is told as a change of that property.
struct EmbeddedChanges {
    private let core: StoreCore
    private let span: ChangeSpan
    /// Embedded objects nest one owner deep per level; a schema deeper than this is not followed.
    private static let maximumDepth = 8

    /// The changes of `span` (a complete one: an incomplete one tells every column anyway).
    init(core: StoreCore, span: ChangeSpan) {
        self.core = core
        self.span = span
    }

    /// Whether the span changed an embedded object that rows of `binding` may hold.
    func mayChange(_ binding: TableBinding) -> Bool {
        mayChange(binding, depth: 0)
    }

    /// The columns of the row `key` of `binding` whose embedded objects (or the ones they embed) the
    /// span changed. A row that cannot be read is taken as changed in each such column.
    func columns(of key: RowKey, in binding: TableBinding) -> Set<Int> {
        var columns = Set<Int>()
        for (link, target) in embeddedLinks(of: binding) where mayReach(target, depth: 0) {
            if holdsChanged(key, binding, through: link, target, depth: 0) { columns.insert(link.column) }
        }
        return columns
    }

    private func mayChange(_ binding: TableBinding, depth: Int) -> Bool {
        embeddedLinks(of: binding).contains { mayReach($0.target, depth: depth) }
    }

    /// Whether the span changed rows of `target`, or embedded objects they may hold.
    private func mayReach(_ target: TableBinding, depth: Int) -> Bool {
        if span.tables[target.name].map({ !$0.isEmpty }) == true { return true }
        return depth < Self.maximumDepth && mayChange(target, depth: depth + 1)
    }

    private func holdsChanged(
        _ key: RowKey, _ binding: TableBinding, through link: LinkBinding, _ target: TableBinding, depth: Int
    ) -> Bool {
        do {
            guard let row = try core.rows.fetchRow(binding, key: key) else { return false }
            for bytes in try link.targets(in: row, at: binding.location(of: key)) {
                let held = try bytes.withBytes { (raw) throws(StoreError) in
                    try core.rows.decodeRowKey(raw, binding: target)
                }
                if changed(held, in: target, depth: depth + 1) { return true }
            }
            return false
        } catch {
            return true
        }
    }

    private func changed(_ key: RowKey, in binding: TableBinding, depth: Int) -> Bool {
        // Not an insertion: an embedded object inserted for a row already there comes with a change
        // of the owner's column itself (one set, appended or put in a Map), or with its owner.
        if let changes = span.tables[binding.name],
            changes.deleted.contains(key) || changes.modified[key] != nil || changes.changedAfterInsertion[key] != nil
        {
            return true
        }
        guard depth < Self.maximumDepth else { return false }
        return embeddedLinks(of: binding).contains { link, target in
            mayReach(target, depth: depth) && holdsChanged(key, binding, through: link, target, depth: depth)
        }
    }

    private func embeddedLinks(of binding: TableBinding) -> [(link: LinkBinding, target: TableBinding)] {
        binding.links.compactMap { link in
            guard core.linksEmbedded(link), let target = core.tables.existingBinding(named: link.target) else {
                return nil
            }
            return (link, target)
        }
    }
}
