import Foundation

/// Writing, reading and moving between snapshots: the Store's everyday operations.
extension Store {
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
        try core.beginWrite()
        return try commitAfter(block)
    }

    /// Runs `block` in the write just begun, then commits it, or rolls it back if `block` throws.
    private func commitAfter<Result>(_ block: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try block()
        } catch {
            // The block's error is the one to report; a rollback stores nothing, so its own failure loses nothing.
            if core.session != nil { try? core.cancelWrite() }
            throw error
        }
        if core.session != nil { try core.commitWrite() }
        return result
    }

    /// Opens a write transaction; the Store moves to the newest commit.
    ///
    /// - Throws: `.alreadyInWriteTransaction`, `.wrongThread`, `.readOnly`, `.storage`.
    @available(*, noasync, message: "a write transaction must not span an await")
    public func beginWrite() throws(StoreError) {
        try core.beginWrite()
    }

    /// Runs `block` in a write transaction and commits it, from async code: waits for this process's
    /// other writers of the file suspended (holding no thread), then begins, runs `block` and
    /// commits in one go on one thread, in the caller's isolation. Realm's name; GRDB's is `write`.
    ///
    /// ```swift
    /// actor Library {
    ///     let store: Store
    ///     func lend(_ book: Book) async throws {
    ///         try await store.asyncWrite { book.lent = true }
    ///     }
    /// }
    /// ```
    /// Returns what `block` returns, once the commit is done, durable as `durability` says. With
    /// `.full`, the `asyncWrite`s that queue up while one is under way (from other actors and tasks)
    /// commit together, with one sync (group commit): each block runs on its own, in its caller's
    /// isolation, and nothing of a block that throws is stored, but a failing commit fails all of them,
    /// and none returns before the group is durable. Meanwhile the Store shows the commit before its
    /// write. Property changes of a block that throws are undone too.
    ///
    /// - Throws: `.wrongThread` (off the Store's actor or thread, before or after the wait),
    ///   `.alreadyInWriteTransaction`, `.readOnly`, `.mapFull`, `.storage`, or the block's own error,
    ///   unchanged.
    /// - Warning: Only another process's writer can make the thread wait inside LMDB. `block` is
    ///   synchronous: it cannot `await`, so the write never spans one. Inside `block`, a `write` of
    ///   another Store of the file throws `.alreadyInWriteTransaction`.
    @discardableResult
    public func asyncWrite<Result>(
        isolation: isolated (any Actor)? = #isolation, _ block: () throws -> Result
    ) async throws -> Result {
        try core.checkConfined()
        guard core.session == nil else { throw StoreError.alreadyInWriteTransaction }
        let environment = core.environment
        let joined = await environment.writerGate.enterAsync()
        guard environment.groupsCommits else {
            try core.beginWrite(hasTurn: true)
            return try commitAfter(block)
        }
        let group: CommitGroup
        if let joined = joined as? CommitGroup {
            group = joined
        } else {
            let configuration = core.configuration
            group = try await CommitGroup.begin(environment, changes: core.shared.changes) { version in
                StoreCore.pinSnapshot(of: version, configuration: configuration)
            }
        }
        environment.writerGate.fence()  // orders the group's creation before its use here
        let result: Result
        do {
            core.commitGroup = group
            defer { core.commitGroup = nil }
            try core.beginWrite()
            result = try commitAfter(block)
        } catch {
            group.endTurn(resumingWhenDurable: nil)
            throw error
        }
        defer { core.moveAfterGroupCommit() }  // durable or failed: the Store moves to the newest commit
        try await withCheckedThrowingContinuation { group.endTurn(resumingWhenDurable: $0) }
        return result
    }

    /// Commits the open write transaction. If it fails, nothing of it is stored. (To keep some
    /// observers from hearing of this write, see `commitWrite(withoutNotifying:)`.)
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.mapFull`, `.storage` (e.g. `ENOSPC`).
    @available(*, noasync, message: "a write transaction must not span an await")
    public func commitWrite() throws(StoreError) {
        try core.commitWrite()
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
    ///   `.invalidated` (this Store deleted the object or a linked one), `.deletedInAnotherThread`
    ///   (another thread, queue, actor or process did), `.invalidArgument` (managed by another
    ///   file's Store, or a String key over 510 bytes of UTF-8), `.mapFull`, `.storage`.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws(StoreError) {
        try core.add(object, update: update)
    }

    /// Adds every object, or, if any fails, none: even when the error is caught inside the write.
    ///
    /// - Throws: as `add(_:update:)`.
    public func add<S: Sequence>(contentsOf objects: S, update: UpdatePolicy = .error) throws(StoreError)
    where S.Element: Object {
        // An array (the usual case) is handed over as it is stored: its elements are already
        // references to objects. Anything else is collected into one first.
        let fromStorage = objects.withContiguousStorageIfAvailable { buffer in
            buffer.withMemoryRebound(to: Object.self) { objects in
                Result { () throws(StoreError) in try core.add(contentsOf: objects, update: update) }
            }
        }
        if let fromStorage { return try fromStorage.get() }
        try core.add(contentsOf: objects.map { $0 as Object }, update: update)
    }

    /// Realm's spelling of `add(contentsOf:update:)`: every object, or none.
    ///
    /// ```swift
    /// try store.write { try store.add([ann, bob]) }
    /// ```
    /// - Throws: as `add(_:update:)`.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws(StoreError)
    where S.Element: Object {
        try add(contentsOf: objects, update: update)
    }

    /// Deletes a managed object.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.notManaged`, `.invalidated` (this Store
    ///   deleted it already, or was invalidated), `.deletedInAnotherThread` (another thread, queue,
    ///   actor or process deleted it).
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
            return try checkedObjects(type)
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
            return try checkedObject(ofType: type, forPrimaryKey: key)
        } catch .wrongThread {
            preconditionFailure(TrapMessage.wrongThread)
        } catch .schemaMismatch(let reason) {
            preconditionFailure("Strata: \(reason)")
        } catch {
            preconditionFailure("Strata: \(type) with primary key \(key): \(error)")
        }
    }

    /// Writes a copy of the Store to a new file, usable as a Store file of its own: of its last
    /// commit, or, inside a write, of what the write sees, its uncommitted changes included (as
    /// Realm's `writeCopy`; the write goes on, and may still be cancelled). With `compact` (always,
    /// inside a write), the copy leaves out free pages, so it is as small as the data.
    ///
    /// ```swift
    /// try store.writeCopy(to: backups.appendingPathComponent("app-backup.strata"), compact: true)
    /// ```
    /// - Throws: `.fileAccess` when the file exists or cannot be written, `.invalidArgument` for a
    ///   non-file URL, `.wrongThread` (also inside a write continued on another thread), `.storage`.
    public func writeCopy(to url: URL, compact: Bool = false) throws(StoreError) {
        try core.checkConfined()
        guard url.isFileURL else { throw .invalidArgument("\(url) is not a file URL") }
        if core.session != nil {
            let session = try core.writableSession()
            try StoreError.mapping { try session.writeCopy(to: url.path, of: core.environment) }
        } else {
            try StoreError.mapping { try core.environment.copy(to: url.path, compact: compact) }
        }
    }

    /// Writes a copy of the Store's file to `url` (which must not exist) encrypted with
    /// `encryptionKey`, or plain when it is nil: encrypts a plain Store's file, decrypts an encrypted
    /// one's, or gives it another key (Realm's `writeCopy(toFile:encryptionKey:)`). The copy is compact,
    /// and holds what the Store sees: inside a write, its changes so far; else the newest commit.
    ///
    /// ```swift
    /// try store.writeCopy(to: directory.appendingPathComponent("rekeyed.strata"), encryptionKey: newKey)
    /// ```
    /// - Throws: `.fileAccess` when the file exists or cannot be written, `.invalidArgument` for a
    ///   non-file URL, `.encryption` for a key that is not 64 bytes or a build without the trait
    ///   `Encryption`, `.wrongThread`, `.storage`.
    public func writeCopy(to url: URL, encryptionKey: Data?) throws(StoreError) {
        try core.checkConfined()
        guard url.isFileURL else { throw .invalidArgument("\(url) is not a file URL") }
        let key = encryptionKey.map(Array.init)
        if core.session != nil {
            let session = try core.writableSession()
            try StoreError.mapping {
                try session.writeCopy(to: url.path, of: core.environment, encryptionKey: .some(key))
            }
        } else {
            try StoreError.mapping { try core.environment.copyNewest(to: url.path, encryptionKey: key) }
        }
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

extension Object {
    /// The Store managing this object, if any.
    public final var store: Store? {
        _core.map(Store.init(core:))
    }
}

extension Store {
    /// Whether a commit (of any thread of the process) moves this Store to it the next time its queue
    /// runs (true by default). Only Stores with a queue (a serial queue, or the main thread's) can;
    /// others move on `refresh()` and writes.
    ///
    /// - Warning: Traps off the Store's thread.
    public var autorefresh: Bool {
        get {
            core.assertConfined()
            return core.autorefresh
        }
        nonmutating set {
            core.assertConfined()
            core.autorefresh = newValue
        }
    }
}

extension Store {
    /// Every object of a type; what `Store.objects(_:)` returns or traps on.
    ///
    /// - Throws: `.wrongThread`, `.schemaMismatch` for a type not in the schema.
    func checkedObjects<T: Object>(_ type: T.Type) throws(StoreError) -> Results<T> {
        try core.checkConfined()
        return Results(core: core, binding: try core.binding(for: type))
    }

    /// The object with that primary key, or nil; what `Store.object(ofType:forPrimaryKey:)` returns or
    /// traps on.
    ///
    /// - Throws: `.wrongThread`, `.schemaMismatch`, `.invalidArgument`, `.corrupted`, `.storage`.
    func checkedObject<T: Object, K: _PrimaryKeyValue>(ofType type: T.Type, forPrimaryKey key: K) throws(StoreError)
        -> T?
    {
        try core.checkConfined()
        let binding = try core.binding(for: type)
        guard let rowKey = try core.rowKey(forPrimaryKey: key, binding: binding),
            let row = try core.rows.fetchRow(binding, key: rowKey)
        else { return nil }
        return core.materialize(type, binding: binding, key: rowKey, row: row)
    }
}
