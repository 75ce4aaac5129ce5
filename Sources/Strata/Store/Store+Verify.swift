/// `verify()`: walks every table of the schema and checks what reads would otherwise trap on.
extension Store {
    /// Walks every table, row and index of the schema: every row decodes, every primary key matches
    /// its row, every index holds exactly one entry per row, every link names an existing object and
    /// has its backlink (deleting an object clears the links to it). Then reports the orphans of
    /// owning links: objects of a type that an owning link (`@Persisted(owning:)`, or a link to an
    /// EmbeddedObject) points to, which no owning link holds.
    ///
    /// ```swift
    /// do {
    ///     let report = try store.verify()
    ///     for orphan in report.orphans { print("no owner:", orphan) }
    /// } catch .corrupted(let damage) { print(damage) }
    /// ```
    /// - Throws: `.corrupted` naming the type, key and damage of the first problem; `.wrongThread`,
    ///   `.storage`. Orphans are not damage: they are reported, not thrown.
    @discardableResult
    public func verify() throws(StoreError) -> VerificationReport {
        try core.checkConfined()
        let environment = core.environment
        // before LMDB walks those pages
        if !environment.isInMemory { _ = try StoreError.mapping { try environment.checkPages() } }
        try Verifier(types: core.bindings.map(VerifiedType.init)).run(on: core)
        var orphans: [String] = []
        for binding in core.bindings
        where core.tables.incomingLinks[binding.ordinal].contains(where: { $0.link.isOwning }) {
            for (key, _) in try core.rows.allRows(binding) where try !core.isOwned(key, binding: binding) {
                orphans.append(binding.location(of: key))
            }
        }
        return VerificationReport(orphans: orphans)
    }
}

/// What `verify()` found that is not damage.
public struct VerificationReport: Sendable, Equatable {
    /// Objects of an owned type (the target of an owning link) that no owning link holds, as
    /// `Type[key]`: left behind when an owner dropped them from its link without deleting them.
    public let orphans: [String]
}
