import Synchronization

/// The types whose changes one file captures, as this process read them from it: shared by the
/// file's Stores (`SharedFile.capture`). The list is read once per process, by the first write, and
/// `Outbox.captureTypes` updates it; each write compares `generation` (an atomic load) instead of
/// looking the list up in the file.
final class CapturedTypes: Sendable {
    /// nil until read from the file.
    let names = Locked<Set<String>?>(nil)
    /// Changes whenever `names` does (0: not read yet).
    let generation = Atomic<Int>(0)
}

/// A Store's part that keeps the file's outbox (`ChangeCapture`, `OutboxHead`): the conductor
/// (`StoreCore`) tells it when a write begins and gives it the write's changes at commit; it records
/// those to captured types in the same transaction. It also reads the outbox (for sync, and for the
/// SPI of `Store+ChangeCapture`) and removes what the server acknowledged.
///
/// Its state is here: the captured types as this Store last saw them, this write's, and the buffers
/// a commit's record is encoded in (their capacity kept from write to write).
final class Outbox {
    let environment: Environment
    private let capture: CapturedTypes
    let tables: TableBindings

    /// The captured types as this Store last saw them: the file's generation of the list, and per
    /// binding (by ordinal) whether it is captured (nil: none).
    @exclusivity(unchecked) private var seen: (generation: Int, bindings: [Bool]?) = (0, nil)
    /// Per binding, whether the open write records its changes; nil when it records none.
    @exclusivity(unchecked) private(set) var capturedThisWrite: [Bool]?
    /// Whether the open write's commit records an outbox record (not for the changes a pull applies).
    @exclusivity(unchecked) private(set) var recordsThisWrite = false
    /// The meta table, once looked up.
    private var metaTable: Table?
    /// The record being encoded at commit.
    private var record: [UInt8] = []
    /// The head (`OutboxHead`) being extended at commit.
    private var head: [UInt8] = []

    init(environment: Environment, capture: CapturedTypes, tables: TableBindings) {
        self.environment = environment
        self.capture = capture
        self.tables = tables
    }

    /// The meta table's handle (opened with the file; valid for the environment's life).
    var meta: Table? {
        if let metaTable { return metaTable }
        metaTable = environment.withTableRegistry { $0[TableName.meta] }
        return metaTable
    }

    // MARK: Writes

    /// A write began: returns whether it may record anything (then the conductor keeps its change log).
    ///
    /// - Throws: `.storage` when the file's list of captured types cannot be read.
    func writeBegan(_ session: WriteSession) throws(StoreError) -> Bool {
        capturedThisWrite = try capturedBindings(session)
        recordsThisWrite = capturedThisWrite != nil
        return recordsThisWrite
    }

    /// The open write records nothing (it applies changes pulled from the server).
    func skipThisWrite() {
        recordsThisWrite = false
    }

    /// Per binding, whether this file captures its changes; nil when it captures none.
    private func capturedBindings(_ session: WriteSession) throws(StoreError) -> [Bool]? {
        let generation = capture.generation.load(ordering: .acquiring)
        if generation != 0, generation == seen.generation { return seen.bindings }
        if capture.names.withLock({ $0 }) == nil {
            let read = try capturedTypes(in: session) ?? []
            capture.names.withLock { $0 = $0 ?? read }
            _ = capture.generation.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        }
        // The generation before the names: `captureTypes` stores names before it counts up, so names
        // newer than the generation kept are read again at the next write, never older ones kept.
        let current = capture.generation.load(ordering: .acquiring)
        let names = capture.names.withLock { $0 } ?? []
        let captured = tables.all.map { names.contains($0.name) }
        seen = (current, captured.contains(true) ? captured : nil)
        return seen.bindings
    }

    /// The file's list of captured types, read in the write's transaction.
    private func capturedTypes(in session: WriteSession) throws(StoreError) -> Set<String>? {
        guard let meta else { return nil }
        return try StoreError.mapping { () throws(LMDBError) in
            try ChangeCapture.typesKey.withBytes { (key) throws(LMDBError) in
                try session.get(meta, key: key).map(ChangeCapture.decodeTypes)
            }
        }
    }

    /// Adds `names` to the file's captured types, in the open write; the process's Stores see them
    /// once `typesCommitted` says the write committed.
    ///
    /// - Throws: `.corrupted` (no meta table), `.storage`.
    func captureTypes(_ names: Set<String>, in session: WriteSession) throws(StoreError) -> Set<String> {
        guard let meta else { throw .corrupted("the file has no meta table") }
        let captured = (try capturedTypes(in: session) ?? []).union(names)
        try StoreError.mapping { () throws(LMDBError) in
            try ChangeCapture.typesKey.withBytes { (key) throws(LMDBError) in
                try ChangeCapture.encodeTypes(captured).withBytes { (value) throws(LMDBError) in
                    _ = try session.put(meta, key: key, value: value)
                }
            }
        }
        return captured
    }

    /// The write that stored `names` as the captured types committed.
    func typesCommitted(_ names: Set<String>) {
        capture.names.withLock { $0 = names }
        capture.generation.add(1, ordering: .acquiringAndReleasing)
    }

    /// Stores the outbox record of this write's changes to captured types, in its transaction.
    ///
    /// - Throws: `.corrupted` (a damaged head), `.mapFull`, `.storage`.
    /// `mapKeys`: per binding ordinal and modified row, the keys each changed Map column set or
    /// removed (`OutboxEntry.mapKeys`).
    func recordCommit(
        of log: [TableChanges], mapKeys: [Int: [RowKey: [Int: [String]]]] = [:], in session: WriteSession
    ) throws(StoreError) {
        guard recordsThisWrite, let captured = capturedThisWrite else { return }
        var record: [UInt8] = []
        swap(&record, &self.record)  // taken, not shared: no copy of its buffer on the appends
        defer { swap(&record, &self.record) }
        record.removeAll(keepingCapacity: true)
        record.append(OutboxEntry.version)
        for binding in tables.all where captured[binding.ordinal] && !log[binding.ordinal].isEmpty {
            let changes = log[binding.ordinal]
            for key in changes.deleted {
                OutboxEntry.append(kind: .delete, typeName: binding.name, key: key, columns: [], to: &record)
            }
            for key in changes.inserted {
                OutboxEntry.append(
                    kind: .insert, typeName: binding.name, key: key, columns: 0..<binding.columnCount, to: &record)
            }
            for (key, columns) in changes.modified {
                OutboxEntry.append(
                    kind: .update, typeName: binding.name, key: key, columns: columns.sorted(),
                    mapKeys: mapKeys[binding.ordinal]?[key] ?? [:], to: &record)
            }
        }
        guard record.count > 1 else { return }
        try record.withBytes { (record) throws(StoreError) in try append(record, in: session) }
    }

    /// Appends a commit's record to the head, first moving the head's records to the meta table when
    /// it would pass its capacity (`OutboxHead`); a record bigger than that goes to the meta table
    /// directly.
    private func append(_ record: UnsafeRawBufferPointer, in session: WriteSession) throws(StoreError) {
        var head: [UInt8] = []
        swap(&head, &self.head)
        defer { swap(&head, &self.head) }
        head.removeAll(keepingCapacity: true)
        try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in
                if let stored = try session.get(.main, key: key) { head += stored }
            }
        }
        if head.isEmpty { head = OutboxHead.empty() }
        let last: UInt64
        do {
            // The whole head is checked: a record appended after damage would be lost with it.
            last = try head.withBytes { (bytes) throws(RowDamage) in try OutboxHead.checkedLastSequence(bytes) }
        } catch {
            throw .corrupted("\(error)")
        }
        // The writes of a commit group share a transaction id: they number on from the last record.
        let sequence = max(ChangeCapture.sequence(transaction: session.version, index: 0), last &+ 1)
        let fits = OutboxHead.headerSize + OutboxHead.entryHeaderSize + record.count <= OutboxHead.capacity
        if head.count > OutboxHead.headerSize,
            !fits || head.count + OutboxHead.entryHeaderSize + record.count > OutboxHead.capacity
        {
            try moveHeadRecords(head, in: session)
            head.removeSubrange(OutboxHead.headerSize...)
        }
        if fits {
            OutboxHead.append(sequence: sequence, record: record, to: &head)
        } else {
            try putRecord(sequence: sequence, record: record, in: session)
            OutboxHead.setLastSequence(sequence, in: &head)
        }
        try storeHead(head, in: session)
    }

    private func storeHead(_ head: [UInt8], in session: WriteSession) throws(StoreError) {
        try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in
                try head.withBytes { (value) throws(LMDBError) in _ = try session.put(.main, key: key, value: value) }
            }
        }
    }

    /// Moves the head's records to the meta table as one block: the head's bytes, under the key of
    /// its first record (the head is emptied by the caller). One put, not one per record.
    private func moveHeadRecords(_ head: [UInt8], in session: WriteSession) throws(StoreError) {
        let first = head.withBytes { (bytes) in OutboxHead.firstSequence(bytes) }
        guard let first else { return }
        try head.withBytes { (bytes) throws(StoreError) in try putRecord(sequence: first, record: bytes, in: session) }
    }

    private func putRecord(sequence: UInt64, record: UnsafeRawBufferPointer, in session: WriteSession)
        throws(StoreError)
    {
        guard let meta else { throw .corrupted("the file has no meta table") }
        let stored = try StoreError.mapping { () throws(LMDBError) in
            try withUnsafeTemporaryAllocation(byteCount: ChangeCapture.keyLength, alignment: 1) {
                (key) throws(LMDBError) in
                ChangeCapture.writeEntryKey(sequence, into: key)
                return try session.put(meta, key: UnsafeRawBufferPointer(key), value: record, options: .noOverwrite)
            }
        }
        guard stored else { throw .corrupted("outbox record \(sequence) is stored twice") }
    }

    // MARK: Removing what the server acknowledged

    /// Removes the records up to `sequence` included, in the open write.
    ///
    /// - Throws: `.corrupted` (a damaged block or head), `.storage`.
    func remove(through sequence: UInt64, in session: WriteSession) throws(StoreError) {
        guard let meta else { return }
        var keys: [[UInt8]] = []
        // Blocks (records moved from the head) keyed at or below `sequence` but holding later ones.
        var keptBlocks: [[UInt8]] = []
        let failure = try StoreError.mapping { () throws(LMDBError) -> StoreError? in
            try session.withCursor(meta) { (cursor) throws(LMDBError) -> StoreError? in
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
                _ = try key.withBytes { (key) throws(LMDBError) in try session.delete(meta, key: key) }
            }
            for block in keptBlocks {
                try block.withBytes { (value) throws(LMDBError) in
                    let first = OutboxHead.firstSequence(value) ?? 0
                    try ChangeCapture.entryKey(first).withBytes { (key) throws(LMDBError) in
                        _ = try session.put(meta, key: key, value: value)
                    }
                }
            }
        }
        try removeHeadRecords(through: sequence, in: session)
    }

    /// Removes the head's records up to `sequence` included (it keeps its last sequence).
    private func removeHeadRecords(through sequence: UInt64, in session: WriteSession) throws(StoreError) {
        let stored = try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in try session.get(.main, key: key).map(Array.init) }
        }
        guard let stored else { return }
        let kept = try stored.withBytes { (bytes) throws(StoreError) in
            try OutboxHead.keeping(after: sequence, of: bytes)
        }
        guard kept.count != stored.count else { return }
        try storeHead(kept, in: session)
    }

    // MARK: Reading

    /// Calls `visit` with each record after `sequence` (its sequence and entries), oldest first, in
    /// the open write's transaction; stops when `visit` returns false.
    ///
    /// - Throws: `.corrupted` for a record, block or head that cannot be read, `.storage`, or what
    ///   `visit` throws.
    func walk(
        after sequence: UInt64, in session: WriteSession, visit: (UInt64, [OutboxEntry]) throws(StoreError) -> Bool
    ) throws(StoreError) {
        guard let meta else { return }
        let head = try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in try session.get(.main, key: key) }
        }
        try ChangeCapture.walkOutbox(
            after: sequence, head: head,
            withMetaCursor: { (body) throws(LMDBError) in try session.withCursor(meta, body) },
            visit: { (recorded, record) throws(StoreError) in try visit(recorded, Self.entries(of: record, recorded)) })
    }

    /// `walk(after:in:visit:)` in a snapshot.
    func walk(
        after sequence: UInt64, in reader: borrowing ReadTransaction,
        visit: (UInt64, [OutboxEntry]) throws(StoreError) -> Bool
    ) throws(StoreError) {
        guard let meta else { return }
        let head = try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in try reader.get(.main, key: key) }
        }
        try ChangeCapture.walkOutbox(
            after: sequence, head: head,
            withMetaCursor: { (body) throws(LMDBError) in try reader.withCursor(meta, body) },
            visit: { (recorded, record) throws(StoreError) in try visit(recorded, Self.entries(of: record, recorded)) })
    }

    /// The entries of a stored record: the one place records are decoded.
    private static func entries(of record: UnsafeRawBufferPointer, _ sequence: UInt64) throws(StoreError)
        -> [OutboxEntry]
    {
        do {
            return try OutboxEntry.decodeRecord(record)
        } catch {
            throw .corrupted("outbox record \(sequence): \(error)")
        }
    }

    /// The changes of the records after `sequence` (whole commits, until `limit` changes are reached
    /// or passed), as the SPI hands them out, with the version of the commit they were read at.
    ///
    /// - Throws: `.corrupted` for a record that cannot be read, `.storage`.
    func capturedChanges(after sequence: UInt64, limit: Int) throws(StoreError)
        -> (version: Int, changes: [CapturedChange])
    {
        guard limit > 0 else {
            return (try StoreError.mapping { () throws(LMDBError) in try ReadTransaction(environment).version }, [])
        }
        let reader = try StoreError.mapping { () throws(LMDBError) in try ReadTransaction(environment) }
        var found: [CapturedChange] = []
        try walk(after: sequence, in: reader) { (recorded, entries) throws(StoreError) in
            found += entries.map { capturedChange($0, sequence: recorded) }
            return found.count < limit
        }
        return (reader.version, found)
    }

    /// An entry as the SPI hands it out: its columns named by the properties they store.
    private func capturedChange(_ entry: OutboxEntry, sequence: UInt64) -> CapturedChange {
        let binding = tables.existingBinding(named: entry.typeName)
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
