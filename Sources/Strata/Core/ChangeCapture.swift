/// Change capture, the outbox of sync (StrataSync): for the types a file captures, every commit
/// records what it changed — an object inserted, properties updated, an object deleted, by key — in
/// the file's outbox, in the same LMDB transaction as the change. A crash cannot lose a committed
/// change from the outbox, nor leave one of a write that did not commit.
///
/// One record per commit, under a sequence: the transaction id, shifted 16 bits, and a number within
/// the transaction (the writes of a commit group share one), always above the last one stored. The
/// newest records are kept together in the outbox's head (`OutboxHead`), in the page every commit
/// writes anyway; older ones in the meta table, keyed `outbox/` and the sequence, big-endian: blocks
/// of records moved from the head (keyed by their first), or one big commit's record. A
/// record names the changed objects and properties, not their
/// values: whoever sends them reads the objects as they are then (a later value of a property only
/// overtakes an earlier one, which is what last-writer-wins keeps anyway).
///
/// The captured types are stored in the file (meta key `capture.types`), read by a process's first
/// write and kept per process (`SharedFile`): every Store of the file in the process records them,
/// and so does every process that opens the file later. A look-up in the file per write would cost
/// 7.5% of a one-object write (W2): LMDB finds a named table's root anew in every transaction.
enum ChangeCapture {
    static let typesKey = Array("capture.types".utf8)
    static let entryPrefix = Array("outbox/".utf8)
    static let keyLength = entryPrefix.count + 10

    /// A record's place in the outbox: its transaction id, then its number within the transaction.
    static func sequence(transaction: Int, index: Int) -> UInt64 {
        UInt64(transaction) << 16 | UInt64(index)
    }

    static func entryKey(_ sequence: UInt64) -> [UInt8] {
        entryPrefix + withUnsafeBytes(of: (sequence >> 16).bigEndian) { Array($0) }
            + withUnsafeBytes(of: UInt16(truncatingIfNeeded: sequence).bigEndian) { Array($0) }
    }

    /// `entryKey(sequence)` written into `key` (`keyLength` bytes), without allocating.
    static func writeEntryKey(_ sequence: UInt64, into key: UnsafeMutableRawBufferPointer) {
        key.copyBytes(from: entryPrefix)
        key.storeBytes(of: (sequence >> 16).bigEndian, toByteOffset: entryPrefix.count, as: UInt64.self)
        key.storeBytes(
            of: UInt16(truncatingIfNeeded: sequence).bigEndian, toByteOffset: entryPrefix.count + 8, as: UInt16.self)
    }

    static func sequence(ofKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == keyLength, key.starts(with: entryPrefix) else { return nil }
        let transaction = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: entryPrefix.count, as: UInt64.self))
        let index = UInt16(bigEndian: key.loadUnaligned(fromByteOffset: entryPrefix.count + 8, as: UInt16.self))
        return transaction << 16 | UInt64(index)
    }

    /// The type names stored under `capture.types` (one per line).
    static func decodeTypes(_ bytes: UnsafeRawBufferPointer) -> Set<String> {
        Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    static func encodeTypes(_ names: Set<String>) -> [UInt8] {
        Array(names.sorted().joined(separator: "\n").utf8)
    }
}

/// One change of an outbox record.
struct OutboxEntry: Equatable {
    enum Kind: UInt8 {
        case insert = 1
        case update = 2
        case delete = 3
    }

    var kind: Kind
    var typeName: String
    /// The row key, as stored (Strata's key encoding of the primary key).
    var key: [UInt8]
    /// The columns the change set: every column for an insert, none for a delete.
    var columns: [Int]

    static let version: UInt8 = 2

    /// Appends `[kind][name length: UInt16][name][key length: UInt16][key][column count: UInt16]`
    /// and the columns as UInt16, little-endian; a record is `[version]` and its entries.
    static func append(
        kind: Kind, typeName: String, key: RowKey, columns: some Collection<Int>, to bytes: inout [UInt8]
    ) {
        func append16(_ value: Int) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        bytes.append(kind.rawValue)
        append16(typeName.utf8.count)
        bytes += typeName.utf8
        key.withBytes { key in
            append16(key.count)
            bytes += key
        }
        append16(columns.count)
        for column in columns { append16(column) }
    }

    /// The entries of a record.
    ///
    /// - Throws: `RowDamage` when the bytes are not a record of this version.
    static func decodeRecord(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> [OutboxEntry] {
        var position = 0
        func take(_ count: Int) throws(RowDamage) -> UnsafeRawBufferPointer {
            guard count >= 0, position + count <= bytes.count else {
                throw RowDamage("outbox record of \(bytes.count) bytes ends early")
            }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
        }
        func take16() throws(RowDamage) -> Int {
            let two = try take(2)
            return Int(two[0]) | Int(two[1]) << 8
        }
        guard try take(1)[0] == version else { throw RowDamage("outbox record of version \(bytes.first ?? 0)") }
        var entries: [OutboxEntry] = []
        while position < bytes.count {
            let code = try take(1)[0]
            guard let kind = Kind(rawValue: code) else { throw RowDamage("outbox entry of kind \(code)") }
            let typeName = String(decoding: try take(try take16()), as: UTF8.self)
            let key = Array(try take(try take16()))
            let count = try take16()
            var columns: [Int] = []
            for _ in 0..<count { columns.append(try take16()) }
            entries.append(OutboxEntry(kind: kind, typeName: typeName, key: key, columns: columns))
        }
        return entries
    }
}

extension StoreCore {
    /// The meta table's handle (opened with the file; valid for the environment's life).
    var metaTable: Table? {
        environment.withTableRegistry { $0[TableName.meta] }
    }

    /// Per binding (by ordinal), whether this file captures its changes; nil when it captures none.
    /// The file's list is read once per process (by the first write), then kept with the file's shared
    /// state; `captureChanges(of:)` updates both. Each write compares a generation number.
    func capturedBindings(_ session: WriteSession) throws(StoreError) -> [Bool]? {
        let generation = shared.captureGeneration.load(ordering: .acquiring)
        if generation != 0, generation == capture.generation { return capture.bindings }
        if shared.capturedTypes.withLock({ $0 }) == nil {
            let read = try readCapturedTypes(session) ?? []
            shared.capturedTypes.withLock { $0 = $0 ?? read }
            _ = shared.captureGeneration.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        }
        // The generation before the names: `noteCapturedTypes` stores names before it counts up, so
        // names newer than the generation kept are read again at the next write, never older ones kept.
        let seen = shared.captureGeneration.load(ordering: .acquiring)
        let names = shared.capturedTypes.withLock { $0 } ?? []
        let captured = bindings.map { names.contains($0.name) }
        capture = (seen, captured.contains(true) ? captured : nil)
        return capture.bindings
    }

    /// Records that the file now captures `names` too (after the write that stored them committed).
    func noteCapturedTypes(_ names: Set<String>) {
        shared.capturedTypes.withLock { $0 = names }
        shared.captureGeneration.add(1, ordering: .acquiringAndReleasing)
    }

    /// The file's list of captured types, read in the write's transaction.
    func readCapturedTypes(_ session: WriteSession) throws(StoreError) -> Set<String>? {
        guard let meta = session.metaTable ?? metaTable else { return nil }
        session.metaTable = meta
        return try StoreError.mapping { () throws(LMDBError) in
            try ChangeCapture.typesKey.withBytes { (key) throws(LMDBError) in
                try session.transaction!.get(meta, key: key).map(ChangeCapture.decodeTypes)
            }
        }
    }

    /// Stores the outbox record of this write's changes to captured types, in its transaction.
    func recordCapturedChanges(_ session: WriteSession, log: [TableChanges], captured: [Bool]) throws(StoreError) {
        var record: [UInt8] = []
        swap(&record, &session.outboxRecord)  // taken, not shared: no copy of its buffer on the appends
        defer { swap(&record, &session.outboxRecord) }
        record.removeAll(keepingCapacity: true)
        record.append(OutboxEntry.version)
        for binding in bindings where captured[binding.ordinal] && !log[binding.ordinal].isEmpty {
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
                    kind: .update, typeName: binding.name, key: key, columns: columns.sorted(), to: &record)
            }
        }
        guard record.count > 1 else { return }
        try record.withBytes { (record) throws(StoreError) in try appendToOutbox(record, session: session) }
    }

    /// Appends a commit's record to the outbox's head, first moving the head's records to the meta
    /// table when it would pass its capacity (`OutboxHead`); a record bigger than that goes to the
    /// meta table directly.
    private func appendToOutbox(_ record: UnsafeRawBufferPointer, session: WriteSession) throws(StoreError) {
        var head: [UInt8] = []
        swap(&head, &session.outboxHead)
        defer { swap(&head, &session.outboxHead) }
        head.removeAll(keepingCapacity: true)
        try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in
                if let stored = try session.transaction!.get(.main, key: key) { head += stored }
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
        let sequence = max(ChangeCapture.sequence(transaction: session.transaction?.version ?? 0, index: 0), last &+ 1)
        let fits = OutboxHead.headerSize + OutboxHead.entryHeaderSize + record.count <= OutboxHead.capacity
        if head.count > OutboxHead.headerSize,
            !fits || head.count + OutboxHead.entryHeaderSize + record.count > OutboxHead.capacity
        {
            try moveHeadRecords(head, session: session)
            head.removeSubrange(OutboxHead.headerSize...)
        }
        if fits {
            OutboxHead.append(sequence: sequence, record: record, to: &head)
        } else {
            try putOutboxRecord(sequence: sequence, record: record, session: session)
            OutboxHead.setLastSequence(sequence, in: &head)
        }
        try StoreError.mapping { () throws(LMDBError) in
            try OutboxHead.key.withBytes { (key) throws(LMDBError) in
                try head.withBytes { (value) throws(LMDBError) in
                    _ = try session.transaction!.put(.main, key: key, value: value)
                }
            }
        }
    }

    /// Moves the head's records to the meta table as one block: the head's bytes, under the key of
    /// its first record (the head is emptied by the caller). One put, not one per record.
    private func moveHeadRecords(_ head: [UInt8], session: WriteSession) throws(StoreError) {
        let first = head.withBytes { (bytes) in OutboxHead.firstSequence(bytes) }
        guard let first else { return }
        try head.withBytes { (bytes) throws(StoreError) in
            try putOutboxRecord(sequence: first, record: bytes, session: session)
        }
    }

    private func putOutboxRecord(sequence: UInt64, record: UnsafeRawBufferPointer, session: WriteSession)
        throws(StoreError)
    {
        guard let meta = session.metaTable ?? metaTable else { throw .corrupted("the file has no meta table") }
        session.metaTable = meta
        let stored = try StoreError.mapping { () throws(LMDBError) in
            try withUnsafeTemporaryAllocation(byteCount: ChangeCapture.keyLength, alignment: 1) {
                (key) throws(LMDBError) in
                ChangeCapture.writeEntryKey(sequence, into: key)
                return try session.transaction!.put(
                    meta, key: UnsafeRawBufferPointer(key), value: record, options: .noOverwrite)
            }
        }
        guard stored else { throw .corrupted("outbox record \(sequence) is stored twice") }
    }
}

extension RowKey {
    /// The key as stored.
    var storedBytes: [UInt8] { withBytes { Array($0) } }
}
