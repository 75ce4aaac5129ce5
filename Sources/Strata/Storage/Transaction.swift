import CLMDB

/// Flags of a named table.
struct TableFlags: OptionSet, Hashable, Sendable {
    let rawValue: UInt32
    /// Several sorted values per key (`MDB_DUPSORT`): secondary indexes.
    static let duplicates = TableFlags(rawValue: UInt32(MDB_DUPSORT))
}

/// How `put` treats an existing key.
struct PutOptions: OptionSet, Hashable, Sendable {
    let rawValue: UInt32
    /// Fail (return false) instead of replacing an existing key (`MDB_NOOVERWRITE`).
    static let noOverwrite = PutOptions(rawValue: UInt32(MDB_NOOVERWRITE))
    /// The key sorts after every key of the table: append without searching (`MDB_APPEND`).
    static let append = PutOptions(rawValue: UInt32(MDB_APPEND))
}

/// A named table's handle (`MDB_dbi`), valid in every transaction of its environment.
struct Table: Hashable, Sendable {
    let dbi: MDB_dbi
    let flags: TableFlags
}

/// A read-only snapshot of the file (an LMDB read transaction, `MDB_NOTLS`, so any thread may use it,
/// one at a time). Aborts when dropped. `reset()` releases the snapshot but keeps the reader slot, and
/// `renew()` moves it to the newest commit without allocating.
@available(*, noasync, message: "LMDB transactions are synchronous; never hold one across an await")
struct ReadTransaction: ~Copyable {
    let handle: OpaquePointer
    private(set) var isActive = true
    private var isFinished = false

    init(_ environment: Environment) throws(LMDBError) {
        handle = try LMDB.beginTransaction(environment.handle, flags: UInt32(MDB_RDONLY))
    }

    /// The commit this snapshot shows (LMDB's transaction id).
    var version: Int { LMDB.transactionID(handle) }

    /// Releases the snapshot, so the writer may reuse the pages only it kept alive.
    mutating func reset() {
        guard isActive else { return }
        LMDB.reset(handle)
        isActive = false
    }

    /// Moves the snapshot to the newest commit.
    mutating func renew() throws(LMDBError) {
        reset()
        try LMDB.renew(handle)
        isActive = true
    }

    func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try LMDB.get(handle, table.dbi, key: key)
    }

    func count(_ table: Table) throws(LMDBError) -> Int {
        try Int(LMDB.stat(handle, table.dbi).ms_entries)
    }

    /// Pages on the free list (reusable, not yet returned to the file system).
    func freePages() throws(LMDBError) -> Int {
        try LMDB.freePages(handle)
    }

    func withCursor<R>(
        _ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R
    ) throws(LMDBError) -> R {
        let cursor = try Cursor(transaction: handle, table: table)
        return try body(cursor)
    }

    /// Opens an existing table; nil when the file has none of that name.
    func openTable(named name: String, flags: TableFlags) throws(LMDBError) -> MDB_dbi? {
        do {
            return try LMDB.openTable(handle, name: name, flags: flags.rawValue)
        } catch .notFound {
            return nil
        }
    }

    /// Ends the snapshot, keeping the table handles opened in it.
    consuming func commit() throws(LMDBError) {
        isFinished = true
        try LMDB.commit(handle)
    }

    deinit {
        if !isFinished { LMDB.abort(handle) }
    }
}

/// The one write transaction of an environment. Holds LMDB's writer lock from `init` until `commit()`
/// or `abort()` (or until dropped, which aborts): begin and end it on one thread.
///
/// A transaction whose C call failed is poisoned: every later call rethrows that first failure, and
/// `commit()` aborts instead of committing and throws it (the map filling up in the middle of a write
/// must never commit half of it).
@available(*, noasync, message: "LMDB's writer lock belongs to a thread; never hold it across an await")
struct WriteTransaction: ~Copyable {
    let handle: OpaquePointer
    private let environment: Environment
    /// The first failure of a call in this transaction; set, the transaction can only abort.
    private(set) var failure: LMDBError?
    private var isFinished = false

    init(_ environment: Environment) throws(LMDBError) {
        handle = try LMDB.beginTransaction(environment.handle, flags: 0)
        self.environment = environment
        environment.noteWriter(.current)
    }

    var version: Int { LMDB.transactionID(handle) }

    mutating func poisoning<R>(_ body: (OpaquePointer) throws(LMDBError) -> R) throws(LMDBError) -> R {
        if let failure { throw failure }
        do {
            return try body(handle)
        } catch {
            failure = error
            throw error
        }
    }

    /// Marks the transaction failed (a caller found damage it must not commit over).
    mutating func poison(_ error: LMDBError) {
        if failure == nil { failure = error }
    }

    mutating func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try poisoning { handle throws(LMDBError) in try LMDB.get(handle, table.dbi, key: key) }
    }

    /// Stores a pair; false when `MDB_NOOVERWRITE` / `MDB_NODUPDATA` found it there already.
    mutating func put(
        _ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, options: PutOptions = []
    ) throws(LMDBError) -> Bool {
        try poisoning { handle throws(LMDBError) in
            try LMDB.put(handle, table.dbi, key: key, value: value, flags: options.rawValue)
        }
    }

    /// Deletes a key (or one pair of a table with duplicates); false when it was not there.
    mutating func delete(
        _ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer? = nil
    ) throws(LMDBError) -> Bool {
        try poisoning { handle throws(LMDBError) in try LMDB.delete(handle, table.dbi, key: key, value: value) }
    }

    mutating func count(_ table: Table) throws(LMDBError) -> Int {
        try poisoning { handle throws(LMDBError) in try Int(LMDB.stat(handle, table.dbi).ms_entries) }
    }

    /// Removes every pair of the table (`delete: false`) or the table itself.
    mutating func drop(_ table: Table, delete: Bool = false) throws(LMDBError) {
        try poisoning { handle throws(LMDBError) in try LMDB.drop(handle, table.dbi, delete: delete) }
    }

    mutating func withCursor<R>(
        _ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R
    ) throws(LMDBError) -> R {
        try poisoning { handle throws(LMDBError) in
            let cursor = try Cursor(transaction: handle, table: table)
            return try body(cursor)
        }
    }

    /// Opens (or creates) a table; nil when it does not exist and `create` is false.
    func openTable(named name: String, flags: TableFlags, create: Bool) throws(LMDBError) -> MDB_dbi? {
        do {
            return try LMDB.openTable(handle, name: name, flags: flags.rawValue | (create ? UInt32(MDB_CREATE) : 0))
        } catch .notFound {
            return nil
        }
    }

    /// Commits, or, if the transaction was poisoned, aborts and throws the failure that poisoned it.
    consuming func commit() throws(LMDBError) {
        isFinished = true
        defer { environment.noteWriter(nil) }
        if let failure {
            LMDB.abort(handle)
            throw failure
        }
        try LMDB.commit(handle)
    }

    consuming func abort() {
        isFinished = true
        LMDB.abort(handle)
        environment.noteWriter(nil)
    }

    deinit {
        if !isFinished {
            LMDB.abort(handle)
            environment.noteWriter(nil)
        }
    }
}

/// A position in a table. Lives only inside `withCursor`, so it never outlives its transaction.
struct Cursor: ~Copyable {
    typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    private let handle: OpaquePointer

    fileprivate init(transaction: OpaquePointer, table: Table) throws(LMDBError) {
        handle = try LMDB.openCursor(transaction, table.dbi)
    }

    deinit {
        LMDB.closeCursor(handle)
    }

    func first() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_FIRST) }
    func last() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_LAST) }
    func next() throws(LMDBError) -> Entry? { try LMDB.cursorGet(handle, key: nil, op: MDB_NEXT) }

    /// The first pair whose key is `key` or sorts after it.
    func seek(atLeast key: UnsafeRawBufferPointer) throws(LMDBError) -> Entry? {
        try LMDB.cursorGet(handle, key: key, op: MDB_SET_RANGE)
    }

    /// Visits the entries from `entry` on while `admits` accepts their key. A visit's failure stops
    /// the walk and is returned (the cursor's own failures are thrown).
    func walk<VisitFailure: Error>(
        from entry: Entry?, while admits: (UnsafeRawBufferPointer) -> Bool = { _ in true },
        _ visit: (Entry) throws(VisitFailure) -> Void
    ) throws(LMDBError) -> VisitFailure? {
        var entry = entry
        while let current = entry, admits(current.key) {
            do throws(VisitFailure) {
                try visit(current)
            } catch {
                return error
            }
            entry = try next()
        }
        return nil
    }

    /// The pair `key`/`value` in a table with duplicates, if present.
    func find(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(LMDBError) -> Entry? {
        try LMDB.cursorGet(handle, key: key, value: value, op: MDB_GET_BOTH)
    }
}
