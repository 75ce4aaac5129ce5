/// An open write transaction and the buffers reused by every change in it (no allocation per object
/// once they have grown). A Store keeps its session between writes, so a write transaction allocates
/// nothing of its own either.
///
/// Its hot properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`): a session is used
/// by one thread only, and each check costs a thread-local lookup per access on the write path.
final class WriteSession {
    @exclusivity(unchecked) var transaction: WriteTransaction?
    /// The thread that holds LMDB's writer lock: every change and the commit must run on it.
    private(set) var thread: ThreadIdentity
    /// Encodes the row being stored (by `add`, or a property setter).
    @exclusivity(unchecked) var rowEncoder = _RowEncoder()
    /// A copy of a stored row: a change to any table may move the bytes LMDB returned.
    let rowCopy = ScratchBuffer()
    /// Index keys being computed: of the old row and of the new one.
    @exclusivity(unchecked) var indexKeys: (old: [UInt8], new: [UInt8]) = ([], [])
    /// Per table: the greatest key, once looked up (nil inside: the table is empty). Keys above it are
    /// appended with `MDB_APPEND`, and row ids of types without primary key continue from it.
    @exclusivity(unchecked) private var lastKeys: [RowKey??]
    /// The row ids `drawnRowID` gave out in this write (an encrypted file's).
    @exclusivity(unchecked) private var drawnRowIDs: Set<UInt64> = []
    /// Whether the file is encrypted, so its keys are not in order.
    private var sealsKeys = false
    /// Per table (binding ordinal), what this write changed; nil while nothing observes the file and
    /// it captures no type.
    @exclusivity(unchecked) var changeLog: [TableChanges]?
    /// Whether the change log is published for observers (else it is kept for change capture only).
    @exclusivity(unchecked) var logsForObservers = false
    /// Whether the change log was begun inside the write (for its Store's observers only).
    @exclusivity(unchecked) var logsFromInside = false
    /// A failure after which the transaction must not commit (a batch that could not be undone).
    private(set) var failure: StoreError?
    /// What this write gave the full-text indexes and did not write yet (written before the commit).
    let fullTextChanges = FullTextChanges()

    init(tableCount: Int) {
        thread = .current
        lastKeys = Array(repeating: nil, count: tableCount)
    }

    /// An empty change log, in the storage of the last one when nothing else holds it.
    func resetChangeLog(tableCount: Int) {
        guard var log = changeLog.take(), log.count == tableCount else {
            changeLog = Array(repeating: TableChanges(), count: tableCount)
            return
        }
        for index in log.indices { log[index].clear() }
        changeLog = log
    }

    /// Starts serving a new write transaction.
    func begin(_ transaction: consuming WriteTransaction) {
        sealsKeys = transaction.environment.sealing != nil
        drawnRowIDs = []
        self.transaction = .some(transaction)
        thread = .current
        failure = nil
        fullTextChanges.reset()
        forgetLastKeys()
    }

    func poison(_ error: StoreError) {
        if failure == nil { failure = error }
    }

    /// Commits, unless a change failed in a way that forbids it.
    ///
    /// - Throws: the failure that poisoned the session, `.mapFull`, `.storage`.
    func commit() throws(StoreError) {
        if failure == nil, self.transaction != nil {
            do {
                try fullTextChanges.flush(to: self)
            } catch {
                poison(error)
            }
        }
        guard let transaction = transaction.take() else { throw .notInWriteTransaction }
        fullTextChanges.reset()
        if let failure {
            transaction.abort()
            throw failure
        }
        do {
            try transaction.commit()  // consumes the transaction, which no closure can take
        } catch {
            throw StoreError(error)
        }
    }

    func abort() {
        fullTextChanges.reset()
        transaction.take()?.abort()
    }

    /// The id the write's commit will have.
    var version: Int { transaction?.version ?? 0 }

    // MARK: The transaction's calls, for the parts that keep values beside rows (LMDB's errors)

    func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try transaction!.get(table, key: key)
    }

    /// Stores a pair; false when `.noOverwrite` found the key.
    func put(
        _ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, options: PutOptions = []
    ) throws(LMDBError) -> Bool {
        try transaction!.put(table, key: key, value: value, options: options)
    }

    /// Deletes a pair; false when it was not there.
    func delete(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> Bool {
        try transaction!.delete(table, key: key)
    }

    func count(_ table: Table) throws(LMDBError) -> Int {
        try transaction!.count(table)
    }

    func withCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(LMDBError) -> R {
        try transaction!.withCursor(table, body)
    }

    func openTableCursor(_ table: Table) throws(LMDBError) -> TableCursor {
        try transaction!.openTableCursor(table)
    }

    /// A copy of the file as this write sees it (`Environment.copy(of:to:encryptionKey:)`), with the
    /// file's key unless given another (nil in `encryptionKey`: a plain copy).
    func writeCopy(to path: String, of environment: Environment, encryptionKey: [UInt8]?? = .none) throws(StorageError)
    {
        guard let handle = transaction?.handle else { throw .lmdb(.badTransaction) }
        try environment.copy(of: handle, to: path, encryptionKey: encryptionKey ?? environment.options.encryptionKey)
    }

    // MARK: Calls, with failures as StoreError

    func get(_ table: Table, key: RowKey) throws(StoreError) -> UnsafeRawBufferPointer? {
        return try StoreError.mapping {
            try key.withBytes { (key) throws(LMDBError) in try transaction!.get(table, key: key) }
        }
    }

    /// Stores `row` sealed (`RowSeal`) under `key`; false when `.noOverwrite` found the key.
    /// (Sealed in the room after the row: cheaper than a copy or LMDB's `MDB_RESERVE` path.)
    func putRow(
        _ table: Table, key: RowKey, row: EncodedRow, options: PutOptions = []
    ) throws(StoreError) -> Bool {
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in
                try transaction!.put(table, key: key, value: row.sealed(for: key), options: options)
            }
        }
    }

    /// Replaces the row the cursor stands on (its key is `key`) with `row`, sealed.
    func replaceCurrentRow(_ cursor: TableCursor, key: RowKey, row: EncodedRow) throws(StoreError) {
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in
                try transaction!.replaceCurrent(cursor, key: key, value: row.sealed(for: key))
            }
        }
    }

    /// Deletes a row; false when it was not there.
    func delete(_ table: Table, key: RowKey) throws(StoreError) -> Bool {
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in try transaction!.delete(table, key: key) }
        }
    }

    func drop(_ table: Table) throws(StoreError) {
        try StoreError.mapping { try transaction!.drop(table) }
    }

    // MARK: Keys

    private func lastKey(of binding: TableBinding) throws(StoreError) -> RowKey? {
        if let known = lastKeys[binding.ordinal] { return known }
        let lastBytes = try StoreError.mapping { () throws(LMDBError) -> [UInt8]? in
            try transaction!.withCursor(binding.table) { (cursor) throws(LMDBError) -> [UInt8]? in
                try cursor.last().map { Array($0.key) }
            }
        }
        let last: RowKey?
        do {
            last = try lastBytes.map { (bytes) throws(RowDamage) in
                try bytes.withBytes { (raw) throws(RowDamage) in try RowKey(stored: raw, kind: binding.keyKind) }
            }
        } catch {
            throw .damaged(at: "\(binding.name): its last key", error)  // not an empty table: its ids would repeat
        }
        lastKeys[binding.ordinal] = .some(last)
        return last
    }

    /// The next row id of a type without primary key: one more than any key it ever had in this write.
    func nextRowID(for binding: TableBinding) throws(StoreError) -> RowKey {
        if sealsKeys { return try drawnRowID(for: binding) }
        guard case .integer(let last) = try lastKey(of: binding) ?? .integer(0) else {
            throw .corrupted("\(binding.name) has a key that is not a row id")
        }
        guard last < UInt64.max else { throw .invalidArgument("\(binding.name) has used every row id") }
        let key = RowKey.integer(last + 1)
        lastKeys[binding.ordinal] = .some(key)
        return key
    }

    /// A new row id in an encrypted file, whose keys are not in order (Docs/Encryption.md): drawn at
    /// random and checked free, in the file and among the ids this write gave out.
    private func drawnRowID(for binding: TableBinding) throws(StoreError) -> RowKey {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = UInt64.random(in: 1...UInt64.max, using: &generator)
            guard !drawnRowIDs.contains(id) else { continue }
            let key = RowKey.integer(id)
            let stored = try StoreError.mapping { () throws(LMDBError) in
                try key.withBytes { (raw) throws(LMDBError) in try transaction!.get(binding.table, key: raw) != nil }
            }
            guard !stored else { continue }
            drawnRowIDs.insert(id)
            return key
        }
    }

    /// Whether `key` sorts after every key of the table, so it can be appended (`MDB_APPEND`).
    func isAppend(_ key: RowKey, to binding: TableBinding) throws(StoreError) -> Bool {
        if sealsKeys { return false }  // sealed keys are stored in no order (and the last would need a walk)
        guard let last = try lastKey(of: binding) else { return true }
        return last < key
    }

    func noteStored(_ key: RowKey, in binding: TableBinding) {
        if case .some(let last?) = lastKeys[binding.ordinal], !(last < key) { return }
        lastKeys[binding.ordinal] = .some(key)
    }

    /// Forgets the greatest keys (after `deleteAll`).
    func forgetLastKeys() {
        for index in lastKeys.indices { lastKeys[index] = nil }
    }
}

extension WriteSession: DerivedEntryWriting {
    func putEntry(_ table: Table, key: UnsafeRawBufferPointer, rowKey: UnsafeRawBufferPointer) throws(StoreError) {
        _ = try StoreError.mapping { () throws(LMDBError) in try transaction!.put(table, key: key, value: rowKey) }
    }

    @discardableResult
    func deleteEntry(_ table: Table, key: UnsafeRawBufferPointer, rowKey: UnsafeRawBufferPointer) throws(StoreError)
        -> Bool
    {
        try StoreError.mapping { () throws(LMDBError) in try transaction!.delete(table, key: key, value: rowKey) }
    }
}

extension WriteSession: FullTextWriting {
    func withIndexCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(StoreError) -> R {
        try StoreError.mapping { () throws(LMDBError) in try transaction!.withCursor(table, body) }
    }

    func value(in table: Table, at key: [UInt8]) throws(StoreError) -> [UInt8]? {
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (raw) throws(LMDBError) in try transaction!.get(table, key: raw).map(Array.init) }
        }
    }

    func put(in table: Table, key: [UInt8], value: [UInt8], appending: Bool) throws(StoreError) {
        _ = try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in
                try value.withBytes { (value) throws(LMDBError) in
                    try transaction!.put(table, key: key, value: value, options: appending ? .append : [])
                }
            }
        }
    }

    var keysInOrder: Bool { !sealsKeys }

    func entryCount(of table: Table) throws(StoreError) -> Int {
        try StoreError.mapping { () throws(LMDBError) in try transaction!.count(table) }
    }

    func delete(in table: Table, key: [UInt8]) throws(StoreError) {
        _ = try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in try transaction!.delete(table, key: key) }
        }
    }
}

extension WriteSession: VectorWriting {}
