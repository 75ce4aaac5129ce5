import Dispatch
import Foundation

/// A handle on a Strata file: reads through a consistent snapshot, writes in transactions.
///
/// ```swift
/// var config = Store.Configuration(fileURL: url, objectTypes: [Person.self, Dog.self])
/// let store = try Store(configuration: config)
/// try store.write {
///     try store.add(Person(id: 1, name: "Ann"))
/// }
/// let adults = store.objects(Person.self)
/// let ann = store.object(ofType: Person.self, forPrimaryKey: 1)
/// ```
/// A Store sees one snapshot of the file until `refresh()`, a write on it, or `invalidate()`; its own
/// commits are visible at once. Opening the same configuration again on the same thread returns the
/// same Store.
///
/// - Warning: A Store and everything it returns are confined to the thread (or serial queue) that
///   opened it. Throwing APIs called elsewhere throw `.wrongThread`; the others trap.
public struct Store {
    let core: StoreCore

    init(core: StoreCore) {
        self.core = core
    }

    /// Opens the Store for `configuration` on the current thread (the thread's cached one if it has it).
    ///
    /// - Throws: `.fileAccess` (location not readable or writable), `.corrupted` (not a Strata file,
    ///   truncated, unreadable schema), `.migrationRequired` (the stored schema differs from the
    ///   code's), `.schemaMismatch` (invalid models, or a file from a newer schema version),
    ///   `.invalidArgument` (no object types, no location, the file open in this process with other
    ///   options), `.readOnly` (a read-only file that would need a new table), `.storage`.
    public init(configuration: Configuration) throws(StoreError) {
        core = try StoreCache.core(for: configuration, confinement: .currentThread)
    }

    /// Opens the Store for `configuration` confined to a serial queue. Call it on that queue. The
    /// main queue and the main thread are one: on it, this is the main thread's Store.
    ///
    /// - Throws: `.wrongThread` when not called on `queue`, `.invalidArgument` for a concurrent queue
    ///   (one made with `.concurrent`, or a global queue), and what `init(configuration:)` throws.
    /// - Warning: LMDB's writer lock belongs to a thread: begin and commit each write inside one block
    ///   on the queue (`write { }` does).
    public init(configuration: Configuration, queue: DispatchQueue) throws(StoreError) {
        if DispatchQueues.isMain(queue) {
            guard Thread.isMainThread else { throw .wrongThread }
            core = try StoreCache.core(for: configuration, confinement: .currentThread)
            return
        }
        guard !DispatchQueues.isConcurrent(queue) else {
            throw .invalidArgument(
                "\(queue.label) is a concurrent queue: a Store needs a serial queue (two blocks of a concurrent "
                    + "queue may use it at once)")
        }
        core = try StoreCache.core(for: configuration, confinement: try .queue(queue), queue: queue)
    }

    /// The configuration the Store was opened with.
    public var configuration: Configuration { core.configuration }
}

extension Store: Equatable {
    /// Whether both are the same Store (the same file, on the same thread or queue).
    public static func == (lhs: Store, rhs: Store) -> Bool {
        lhs.core === rhs.core
    }
}

@available(*, unavailable, message: "a Store is confined to its thread or queue; open another there")
extension Store: Sendable {}
