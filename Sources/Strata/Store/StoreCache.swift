import Synchronization

/// The per-thread (and per-queue) cache behind `Store(configuration:)`: opening the same configuration
/// twice on one thread gives the same Store, so its objects and snapshot are shared.
enum StoreCache {
    private struct Key: Hashable {
        let confinement: UInt
        let path: String
        let signature: Store.Configuration.Signature
    }

    /// `@unchecked Sendable`: the box only carries a weak reference; the core is used only on the
    /// thread or queue it is confined to, which the cache key names.
    private final class WeakCore: @unchecked Sendable {
        weak var core: StoreCore?
        init(_ core: StoreCore) { self.core = core }
    }

    private static let entries = Mutex<[Key: WeakCore]>([:])

    /// The cached core for this thread or queue, or a new one.
    static func core(for configuration: Store.Configuration, confinement: Confinement) throws(StoreError) -> StoreCore {
        let key = Key(
            confinement: confinement.identity, path: try configuration.resolvedLocation().path,
            signature: configuration.signature)
        if let cached = entries.withLock({ $0[key] }), let core = cached.core, core.confinement.isCurrent {
            return core
        }
        let core = try StoreCore(configuration: configuration, confinement: confinement)
        let box = WeakCore(core)
        entries.withLock { entries in
            entries[key] = box
            if entries.count > 64 { entries = entries.filter { $0.value.core != nil } }
        }
        return core
    }
}
