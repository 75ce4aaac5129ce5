/// Frozen snapshots: immutable views of one version, readable from any thread at once.
extension StoreCore {
    /// A frozen core showing this Store's version (the newest commit when this Store is behind it:
    /// LMDB opens snapshots at the newest commit only). Reused while the last one lives.
    ///
    /// - Throws: `.storage` (for example `.readersFull`: each frozen version holds a reader slot).
    func frozen() throws(StoreError) -> StoreCore {
        if isFrozen { return self }
        try checkConfined()
        let version = session == nil ? try self.version() : try self.version() - 1
        if let last = lastFrozen, try last.version() >= version { return last }
        let frozen = try StoreCore(configuration: configuration, confinement: .frozen)
        try frozen.prepareForSharedReads()
        lastFrozen = frozen
        return frozen
    }

    /// A frozen core of exactly `version`, just committed; nil when another commit came first (that
    /// commit is then coalesced with the next) or no reader slot is left.
    func pinSnapshot(of version: Int) -> PinnedSnapshot? {
        Self.pinSnapshot(of: version, configuration: configuration)
    }

    static func pinSnapshot(of version: Int, configuration: Store.Configuration) -> PinnedSnapshot? {
        // nil coalesces this commit with the next (what the doc comment promises): no change is lost.
        guard let frozen = try? StoreCore(configuration: configuration, confinement: .frozen),
            (try? frozen.version()) == version, (try? frozen.prepareForSharedReads()) != nil
        else { return nil }
        return PinnedSnapshot(frozen)
    }

    /// Touches every table once, so that no later read changes the read transaction's state (LMDB
    /// loads a named table's root on first use), and registers the snapshot for diagnostics.
    func prepareForSharedReads() throws(StoreError) {
        try StoreError.mapping { () throws(LMDBError) in
            for binding in bindings {
                _ = try count(binding.table)
                for index in binding.indexes { _ = try count(index.table) }
                for link in binding.links { _ = try count(link.table) }
            }
        }
        let version = try self.version()
        shared.frozenSnapshots.withLock { $0[ObjectIdentifier(self)] = (version, .now) }
    }
}
