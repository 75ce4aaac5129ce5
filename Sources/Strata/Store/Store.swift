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

    /// Whether a write transaction is open on this Store.
    ///
    /// - Warning: Traps when called off the Store's thread.
    public var isInWriteTransaction: Bool {
        core.assertConfined()
        return core.session != nil
    }

    // MARK: Writes

    /// Runs `block` in a write transaction and commits it, or rolls everything back if `block` throws
    /// (rethrowing its error).
    ///
    /// ```swift
    /// try store.write {
    ///     try store.add(dog)
    ///     person.name = "Ann"
    /// }
    /// ```
    /// - Throws: `.alreadyInWriteTransaction` (a write is open on this thread), `.wrongThread`,
    ///   `.readOnly`, `.mapFull`, `.storage`, or the block's own error.
    @available(*, noasync, message: "a write transaction must not span an await")
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        try beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            if core.session != nil { try? core.cancelWrite() }
            throw error
        }
        if core.session != nil { try commitWrite() }
        return result
    }

    /// Opens a write transaction; the Store moves to the newest commit.
    ///
    /// - Throws: `.alreadyInWriteTransaction`, `.wrongThread`, `.readOnly`, `.storage`.
    @available(*, noasync, message: "a write transaction must not span an await")
    public func beginWrite() throws(StoreError) {
        try core.beginWrite()
    }

    /// Commits the open write transaction. If it fails, nothing of it is stored. The observers of
    /// `tokens` (of this Store) are not told about this write: their next change starts after it.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.mapFull`, `.storage` (e.g. `ENOSPC`),
    ///   `.invalidArgument` for a token of another Store.
    @available(*, noasync, message: "a write transaction must not span an await")
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws(StoreError) {
        try core.commitWrite(withoutNotifying: tokens)
    }

    /// Rolls back the open write transaction. Objects added in it become invalidated.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`.
    @available(*, noasync, message: "a write transaction must not span an await")
    public func cancelWrite() throws(StoreError) {
        try core.cancelWrite()
    }

    /// Adds an unmanaged object, and the unmanaged objects it links to, with the same policy. Adding an
    /// object this Store already manages does nothing. The object is managed afterwards.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.alreadyExists` (policy `.error` and the
    ///   primary key is stored; nothing is written), `.schemaMismatch` (type not in the schema),
    ///   `.invalidated` (a linked object was deleted), `.invalidArgument` (managed by another
    ///   file's Store, or a String key over 510 bytes of UTF-8), `.mapFull`, `.storage`.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws(StoreError) {
        try core.add(object, update: update)
    }

    /// Adds every object, or, if any fails, none: even when the error is caught inside the write.
    ///
    /// - Throws: as `add(_:update:)`.
    public func add<S: Sequence>(contentsOf objects: S, update: UpdatePolicy = .error) throws(StoreError)
    where S.Element: Object {
        try core.add(contentsOf: objects.map { $0 as Object }, update: update)
    }

    /// Realm's spelling of `add(contentsOf:update:)`: every object, or none.
    ///
    /// ```swift
    /// try store.write { try store.add([ann, bob]) }
    /// ```
    /// - Throws: as `add(_:update:)`.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws(StoreError) where S.Element: Object {
        try add(contentsOf: objects, update: update)
    }

    /// Deletes a managed object.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.notManaged`, `.invalidated` (deleted
    ///   already, or its Store invalidated).
    public func delete(_ object: Object) throws(StoreError) {
        try core.delete(CollectionOfOne(object))
    }

    /// Deletes managed objects; when one of them cannot be deleted, none is.
    ///
    /// - Throws: as `delete(_:)`.
    public func delete<S: Sequence>(_ objects: S) throws(StoreError) where S.Element: Object {
        try core.delete(objects.lazy.map { $0 as Object })
    }

    /// Deletes every object of a Results.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.invalidArgument` (a Results of another Store).
    public func delete<T>(_ results: Results<T>) throws(StoreError) {
        _ = try core.writableSession()  // before reading the keys, which traps off the Store's thread
        guard results.core === core else { throw .invalidArgument("the Results belongs to another Store") }
        try core.delete(keys: results.keys(), binding: results.binding)
    }

    /// Deletes every object of every type of the schema.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.storage`.
    public func deleteAll() throws(StoreError) {
        try core.deleteAll()
    }

    // MARK: Reads

    /// Every object of a type: a live, lazy collection, in primary-key order (insertion order for
    /// types without one).
    ///
    /// - Warning: Traps off the Store's thread, or for a type not in the schema.
    public func objects<T: Object>(_ type: T.Type) -> Results<T> {
        do {
            return try core.objects(type)
        } catch .schemaMismatch(let reason) {
            preconditionFailure("Strata: \(reason)")
        } catch {
            preconditionFailure(TrapMessage.wrongThread)  // the only other failure
        }
    }

    /// The object with that primary key, or nil. An integer key of another width than the property's
    /// is converted when it fits.
    ///
    /// - Warning: Traps off the Store's thread, for a type not in the schema or without primary key,
    ///   and when the stored row is damaged (`verify()` reports it as an error).
    public func object<T: Object, K: _PrimaryKeyValue>(ofType type: T.Type, forPrimaryKey key: K) -> T? {
        do {
            return try core.object(ofType: type, forPrimaryKey: key)
        } catch .wrongThread {
            preconditionFailure(TrapMessage.wrongThread)
        } catch .schemaMismatch(let reason) {
            preconditionFailure("Strata: \(reason)")
        } catch {
            preconditionFailure("Strata: \(type) with primary key \(key): \(error)")
        }
    }

    /// Writes a copy of the Store's last commit to a new file, usable as a Store file of its own.
    /// With `compact`, the copy leaves out free pages, so it is as small as the data.
    ///
    /// ```swift
    /// try store.writeCopy(to: backups.appendingPathComponent("app-backup.strata"), compact: true)
    /// ```
    /// - Throws: `.alreadyInWriteTransaction` inside a write (the copy would miss its changes),
    ///   `.fileAccess` when the file exists or cannot be written, `.invalidArgument` for a non-file
    ///   URL, `.wrongThread`, `.storage`.
    public func writeCopy(to url: URL, compact: Bool = false) throws(StoreError) {
        try core.checkConfined()
        guard core.session == nil else { throw .alreadyInWriteTransaction }
        guard url.isFileURL else { throw .invalidArgument("\(url) is not a file URL") }
        try StoreError.mapping { try core.environment.copy(to: url.path, compact: compact) }
    }

    /// Moves the Store to the newest commit. Returns whether anything changed. Does nothing inside a
    /// write (the write already sees the newest commit).
    ///
    /// - Throws: `.wrongThread`, `.storage` (for example `.readersFull`).
    @discardableResult
    public func refresh() throws(StoreError) -> Bool {
        try core.refresh()
    }

    /// Releases the Store's snapshot (and rolls back an open write). Objects read so far are
    /// invalidated; the next read starts a new snapshot.
    ///
    /// - Warning: Traps off the Store's thread.
    public func invalidate() {
        core.invalidate()
    }
}

extension Store: Equatable {
    /// Whether both are the same Store (the same file, on the same thread or queue).
    public static func == (lhs: Store, rhs: Store) -> Bool {
        lhs.core === rhs.core
    }
}

@available(*, unavailable, message: "a Store is confined to its thread or queue; open another there")
extension Store: Sendable {}

extension Object {
    /// The Store managing this object, if any.
    public final var store: Store? {
        _core.map(Store.init(core:))
    }
}
