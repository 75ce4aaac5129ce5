import Dispatch

/// The per-thread (and per-queue) cache behind `Store(configuration:)`: opening the same configuration
/// twice on one thread gives the same Store, so its objects and snapshot are shared.
///
/// The cache does not retain its cores, and holds no weak references either: a weak reference gives
/// the core a side table, which makes every retain and release of it (one per managed object) slow.
/// A core removes its entry in `deinit`. That is safe because a core is only looked up, and only
/// released for the last time, on its own thread or queue: the two cannot overlap.
enum StoreCache {
    struct Key: Hashable, Sendable {
        let confinement: UInt
        let path: String
        let signature: Store.Configuration.Signature
    }

    /// `@unchecked Sendable`: only dereferenced on the core's own thread or queue (see above).
    private struct Entry: @unchecked Sendable {
        let core: Unmanaged<StoreCore>
    }

    private static let entries = Locked<[Key: Entry]>([:])

    /// The cached core for this thread or queue, or a new one.
    static func core(
        for configuration: Store.Configuration, confinement: Confinement, queue: DispatchQueue? = nil
    ) throws(StoreError) -> StoreCore {
        let key = Key(
            confinement: confinement.identity, path: try configuration.resolvedLocation().path,
            signature: configuration.signature)
        if let cached = entries.withLock({ $0[key] }) {
            let core = cached.core.takeUnretainedValue()
            if core.confinement.isCurrent { return core }
        }
        let core = try StoreCore(configuration: configuration, confinement: confinement, queue: queue, cacheKey: key)
        entries.withLock { $0[key] = Entry(core: .passUnretained(core)) }
        return core
    }

    /// Called by a core's deinit.
    static func remove(_ key: Key, core: StoreCore) {
        entries.withLock { entries in
            if entries[key]?.core.toOpaque() == Unmanaged.passUnretained(core).toOpaque() {
                entries[key] = nil
            }
        }
    }
}
