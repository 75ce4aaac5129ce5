import Foundation

extension Store {
    /// The stored columns of `types`, as sync describes them to its server.
    ///
    /// A link to an EmbeddedObject travels inside its owner (`SyncType.embedded`).
    ///
    /// - Throws: `.schemaMismatch` for a type outside the Store's schema, without a primary key, or
    ///   linking to a type keyed by row ids: sync names objects by primary key; `.wrongThread`.
    @_spi(StrataSync)
    public func syncSchema(of types: [Object.Type]) throws(StoreError) -> [SyncTypeSchema] {
        try core.checkConfined()
        return try types.map { (type) throws(StoreError) in
            let binding = try core.binding(for: type)
            guard let keyColumn = binding.primaryKeyColumn else {
                throw .schemaMismatch("\(binding.name) has no primary key: sync names objects by primary key")
            }
            return SyncTypeSchema(
                name: binding.name, primaryKey: binding.columnNames[keyColumn],
                properties: try core.sync.syncProperties(of: binding))
        }
    }

    /// The outbox's changes after `sequence`, oldest first, with their values read in one snapshot
    /// of the last commit: whole commits, until `limit` changes are reached or passed.
    ///
    /// - Throws: `.corrupted` for a record or row that cannot be read, `.schemaMismatch`,
    ///   `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func outgoingChanges(after sequence: UInt64 = 0, limit: Int = .max) throws(StoreError) -> OutgoingBatch {
        try core.checkConfined()
        return try core.sync.outgoingChanges(after: sequence, limit: limit)
    }

    /// `outgoingChanges(after:limit:)`, but a batch that only inserts objects of one type, each
    /// with every property and none of embedded objects, goes to the sink `makeSink` makes for its
    /// type from its properties' names in column order (none: read as changes), value by value from
    /// the file's bytes; the batch's `changes` are then empty. `capacity` is how many changes the
    /// batch's records hold.
    ///
    /// - Throws: as `outgoingChanges(after:limit:)`.
    @_spi(StrataSync)
    public func outgoingChanges<Sink: OutgoingInsertSink>(
        after sequence: UInt64 = 0, limit: Int = .max,
        insertsInto makeSink: (_ typeName: String, _ columnNames: [String], _ capacity: Int) -> Sink?
    ) throws(StoreError) -> (batch: OutgoingBatch, inserts: Sink?) {
        try core.checkConfined()
        return try core.sync.outgoingChanges(after: sequence, limit: limit, insertsInto: makeSink)
    }

    /// The stored keys of the objects of the type named `typeName`, in key order, in one snapshot
    /// (what a sync compares with a server's objects when it starts over from them).
    ///
    /// - Throws: `.schemaMismatch` for a type outside the schema, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func syncStoredKeys(ofType typeName: String) throws(StoreError) -> [[UInt8]] {
        try core.checkConfined()
        return try core.sync.storedKeys(ofType: typeName)
    }

    /// Applies changes pulled from the server in the open write (call it inside `write` or
    /// `asyncWrite`), under the rules of sync: changes to objects the outbox still holds yield to
    /// them, changes at or before the stored position are skipped, and the position becomes
    /// `position`, in the same transaction. Observers hear of the changes as of local ones; the outbox
    /// records none of them. Returns how many objects changed.
    ///
    /// - Throws: `.notInWriteTransaction`, `.schemaMismatch`, `.corrupted` (a value that is not of its
    ///   property's type: the write is then to be cancelled, as `write` and `asyncWrite` do),
    ///   `.wrongThread`, `.mapFull`, `.storage`.
    @_spi(StrataSync)
    @discardableResult
    public func applyIncomingChanges(_ changes: [IncomingChange], through position: Int64) throws(StoreError) -> Int {
        try core.sync.applyIncomingChanges(changes, through: position)
    }

    /// `change` with its stored key: an insert without one is keyed by its primary key property.
    ///
    /// - Throws: `.corrupted` for an insert without its primary key, `.schemaMismatch`.
    @_spi(StrataSync)
    public func keyed(_ change: IncomingChange) throws(StoreError) -> IncomingChange {
        try core.sync.keyedByPrimaryKey(change)
    }

    /// The server position this file applied changes through (0: none yet).
    ///
    /// - Throws: `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func syncPosition() throws(StoreError) -> Int64 {
        try core.checkConfined()
        return try core.sync.syncMetaValue(SyncMeta.pulledKey).map(SyncExchange.decodePosition) ?? 0
    }

    /// A value sync keeps in the file (`name` under the `sync.` prefix), such as its client id.
    ///
    /// - Throws: `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func syncSetting(_ name: String) throws(StoreError) -> String? {
        try core.checkConfined()
        return try core.sync.syncMetaValue(Array((SyncMeta.prefix + name).utf8)).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Stores a sync setting in the open write.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func setSyncSetting(_ name: String, to value: String) throws(StoreError) {
        let session = try core.writableSession()
        try core.sync.setSyncMetaValue(Array((SyncMeta.prefix + name).utf8), Array(value.utf8), session: session)
    }
}

extension Store {
    /// The version of the file's last commit, by any Store or process (cheap: no transaction). Sync
    /// polls it to push soon after a local commit.
    ///
    /// - Throws: `.storage`.
    @_spi(StrataSync)
    public func latestCommitVersion() throws(StoreError) -> Int {
        try StoreError.mapping { () throws(StorageError) in try core.environment.latestVersion() }
    }

    /// Calls `onCommit` after each commit this process makes to the file, by any of its Stores, on the
    /// committing thread, until the returned watch is cancelled. Keep it short: it runs
    /// inside the commit's caller.
    @_spi(StrataSync)
    public func watchCommits(_ onCommit: @escaping @Sendable () -> Void) -> CommitWatch {
        let watch = CommitWatch(hub: core.shared.changes, onCommit: onCommit)
        core.shared.changes.register(watch)
        return watch
    }
}
