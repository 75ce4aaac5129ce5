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
        try core.beginWrite()
        do throws(StoreError) {
            let session = core.session!
            guard let meta = core.metaTable else { throw StoreError.corrupted("the file has no meta table") }
            let captured = (try core.readCapturedTypes(session) ?? []).union(names)
            try StoreError.mapping { () throws(LMDBError) in
                try ChangeCapture.typesKey.withBytes { (key) throws(LMDBError) in
                    try ChangeCapture.encodeTypes(captured).withBytes { (value) throws(LMDBError) in
                        _ = try session.transaction!.put(meta, key: key, value: value)
                    }
                }
            }
            try core.commitWrite()
            core.noteCapturedTypes(captured)
        } catch {
            if core.session != nil { try? core.cancelWrite() }
            throw error
        }
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
        let reader = try StoreError.mapping { () throws(LMDBError) in try ReadTransaction(core.environment) }
        guard let meta = core.metaTable, limit > 0 else { return (reader.version, []) }
        var found: [CapturedChange] = []
        try reader.walkOutbox(
            meta: meta, after: sequence,
            visit: {
                (recorded, record) throws(StoreError) in
                found += try core.capturedChanges(sequence: recorded, record: record)
                return found.count < limit
            })
        return (reader.version, found)
    }

    /// Removes the outbox's changes up to `sequence` included (those the server acknowledged): in the
    /// open write if there is one (so that it commits with what else the write does), else in a write
    /// of its own.
    ///
    /// - Throws: `.alreadyInWriteTransaction`, `.readOnly`, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func removeCapturedChanges(through sequence: UInt64) throws(StoreError) {
        if core.session != nil {
            return try core.removeOutboxRecords(through: sequence, session: core.writableSession())
        }
        try core.beginWrite()
        do throws(StoreError) {
            try core.removeOutboxRecords(through: sequence, session: core.session!)
            try core.commitWrite()
        } catch {
            if core.session != nil { try? core.cancelWrite() }
            throw error
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

extension StoreCore {
    func removeOutboxRecords(through sequence: UInt64, session: WriteSession) throws(StoreError) {
        guard let meta = metaTable else { return }
        var keys: [[UInt8]] = []
        // Blocks (records moved from the head) keyed at or below `sequence` but holding later ones.
        var keptBlocks: [[UInt8]] = []
        let failure = try StoreError.mapping { () throws(LMDBError) -> StoreError? in
            try session.transaction!.withCursor(meta) { (cursor) throws(LMDBError) -> StoreError? in
                let start = try ChangeCapture.entryKey(0).withBytes { (key) throws(LMDBError) in
                    try cursor.seek(atLeast: key)
                }
                return try cursor.walk(
                    from: start, while: { ChangeCapture.sequence(ofKey: $0).map { $0 <= sequence } ?? false }
                ) { (entry) throws(StoreError) in
                    keys.append(Array(entry.key))
                    guard OutboxHead.isBlock(entry.value) else { return }
                    let kept = try OutboxHead.keeping(after: sequence, of: entry.value)
                    if kept.count > OutboxHead.headerSize { keptBlocks.append(kept) }
                }
            }
        }
        if let failure { throw failure }
        try StoreError.mapping { () throws(LMDBError) in
            for key in keys {
                _ = try key.withBytes { (key) throws(LMDBError) in try session.transaction!.delete(meta, key: key) }
            }
            for block in keptBlocks {
                try block.withBytes { (value) throws(LMDBError) in
                    let first = OutboxHead.firstSequence(value) ?? 0
                    try ChangeCapture.entryKey(first).withBytes { (key) throws(LMDBError) in
                        _ = try session.transaction!.put(meta, key: key, value: value)
                    }
                }
            }
        }
        try removeHeadRecords(through: sequence, session: session)
    }

    /// Removes the head's records up to `sequence` included (it keeps its last sequence).
    private func removeHeadRecords(through sequence: UInt64, session: WriteSession) throws(StoreError) {
        guard
            let head = try StoreError.mapping({ () throws(LMDBError) in
                try OutboxHead.key.withBytes { (key) throws(LMDBError) in
                    try session.transaction!.get(.main, key: key).map(Array.init)
                }
            })
        else { return }
        let kept = try head.withBytes { (bytes) throws(StoreError) in try OutboxHead.keeping(after: sequence, of: bytes)
        }
        guard kept.count != head.count else { return }
        try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in
                try kept.withBytes { (value) throws(LMDBError) in
                    _ = try session.transaction!.put(.main, key: key, value: value)
                }
            }
        }
    }

    /// The changes of a stored outbox record, as the SPI hands them out.
    func capturedChanges(sequence: UInt64, record: UnsafeRawBufferPointer) throws(StoreError) -> [CapturedChange] {
        let entries: [OutboxEntry]
        do {
            entries = try OutboxEntry.decodeRecord(record)
        } catch {
            throw .corrupted("outbox record \(sequence): \(error)")
        }
        return entries.map { entry in
            let binding = bindings.first { $0.name == entry.typeName }
            let names = entry.columns.map { column in
                binding.flatMap { binding in
                    column < binding.propertyOfColumn.count
                        ? binding.schema.properties[binding.propertyOfColumn[column]].name : nil
                } ?? "#\(column)"
            }
            let kind: CapturedChange.Kind =
                switch entry.kind {
                case .insert: .insert
                case .update: .update
                case .delete: .delete
                }
            return CapturedChange(
                sequence: sequence, typeName: entry.typeName, kind: kind, key: entry.key, changedProperties: names)
        }
    }
}
