extension Store {
    /// Starts recording every change to objects of `types` in the file's outbox, in the same
    /// transaction as the change, from the next write of any Store of the file in this process, and
    /// of every process that opens the file from now on.
    ///
    /// ```swift
    /// try store.captureChanges(of: [Todo.self])
    /// try store.write { try store.add(Todo(id: 1)) }         // recorded: an insert of Todo 1
    /// let changes = try store.capturedChanges()
    /// ```
    /// - Throws: `.schemaMismatch` for a type outside the Store's schema, `.alreadyInWriteTransaction`,
    ///   `.readOnly`, `.wrongThread`, `.storage`.
    /// - Warning: Another process that already had the file open (and wrote to it) records changes
    ///   only after it opens the file again: enable capture before other processes write.
    @_spi(StrataSync)
    public func captureChanges(of types: [Object.Type]) throws(StoreError) {
        let names = try types.map { (type) throws(StoreError) in try core.binding(for: type).name }
        let outbox = core.outbox
        try core.inWrite(
            { (session) throws(StoreError) in try outbox.captureTypes(Set(names), in: session) },
            committed: outbox.typesCommitted)
    }

    /// The changes recorded in the outbox by the commits after `sequence`, oldest first: whole
    /// commits, until `limit` changes are reached or passed. Read as last committed (not this Store's
    /// snapshot).
    ///
    /// - Throws: `.corrupted` for a record that cannot be read, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func capturedChanges(after sequence: UInt64 = 0, limit: Int = .max) throws(StoreError) -> [CapturedChange] {
        try capturedChangesWithVersion(after: sequence, limit: limit).changes
    }

    /// `capturedChanges(after:limit:)`, with the version of the commit they were read at: whoever
    /// watches the outbox compares that version, never `latestCommitVersion()`, which LMDB shows
    /// while a durable commit still syncs, before a new snapshot can see the commit.
    ///
    /// - Throws: `.corrupted` for a record that cannot be read, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func capturedChangesWithVersion(after sequence: UInt64 = 0, limit: Int = .max) throws(StoreError)
        -> (version: Int, changes: [CapturedChange])
    {
        try core.checkConfined()
        return try core.outbox.capturedChanges(after: sequence, limit: limit)
    }

    /// Removes the outbox's changes up to `sequence` included (those the server acknowledged): in the
    /// open write if there is one (so that it commits with what else the write does), else in a write
    /// of its own.
    ///
    /// - Throws: `.alreadyInWriteTransaction`, `.readOnly`, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func removeCapturedChanges(through sequence: UInt64) throws(StoreError) {
        let outbox = core.outbox
        try core.inWrite(joiningOpenWrite: true) { (session) throws(StoreError) in
            try outbox.remove(through: sequence, in: session)
        }
    }

    /// How many changes the outbox holds (what sync has yet to send).
    ///
    /// - Throws: `.corrupted` for a record that cannot be read, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func capturedChangeCount() throws(StoreError) -> Int {
        try capturedChanges().count
    }
}
