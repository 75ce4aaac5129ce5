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
    /// The first Store opened on a queue learns that the queue is serial by seeing that a block
    /// another thread runs with `queue.sync` waits for the caller's (up to 50 ms, once per queue:
    /// Dispatch has no public way to ask).
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
        guard !DispatchQueues.isConcurrent(queue), case let confinement = try Confinement.queue(queue),
            DispatchQueues.learnKind(ofCurrent: queue) == .serial
        else {
            throw .invalidArgument(
                "\(queue.label) is a concurrent queue: a Store needs a serial queue (two blocks of a concurrent "
                    + "queue may use it at once)")
        }
        core = try StoreCache.core(for: configuration, confinement: confinement, queue: queue)
    }

    /// Opens a Store isolated to `actor` instead of a thread: the actor's code uses it, and its
    /// objects, across any number of `await`s, whichever thread each part runs on. Call it from the
    /// actor (the main actor included), usually when the actor starts:
    ///
    /// ```swift
    /// actor Library {
    ///     var store: Store!  // `self` is handed over once every property has a value
    ///     init(configuration: Store.Configuration) async throws {
    ///         store = try await Store(configuration: configuration, actor: self)
    ///     }
    ///     func borrow(_ id: Int) async throws {
    ///         let book = store.object(ofType: Book.self, forPrimaryKey: id)
    ///         await somethingElse()                   // resumes on any thread: the Store still works
    ///         try store.write { book?.borrowed = true }
    ///     }
    /// }
    /// ```
    /// Each call makes a new Store (actors' Stores are not cached); several of one file, for several
    /// actors, coexist with the threads' Stores of it.
    ///
    /// - Throws: what `init(configuration:)` throws; `.invalidArgument` when not called on `actor`.
    /// - Warning: Off the actor, the Store's throwing APIs throw `.wrongThread` and its objects'
    ///   properties trap, as a thread's Store does off its thread. A `write { }` block must not
    ///   `await` (LMDB's writer lock belongs to one thread).
    public init(configuration: Configuration, actor: isolated any Actor) async throws(StoreError) {
        let token = ActorToken(executor: actor.unownedExecutor, isMainActor: actor === MainActor.shared)
        guard token.isCurrent else {
            throw .invalidArgument("Store(configuration:actor:) did not run on the actor it was given")
        }
        core = try StoreCore(configuration: configuration, confinement: .actor(token), actor: actor)
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
