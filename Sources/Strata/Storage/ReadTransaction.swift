import CLMDB

/// A read-only snapshot of the file (an LMDB read transaction, `MDB_NOTLS`, so any thread may use it,
/// one at a time). Aborts when dropped. `reset()` releases the snapshot but keeps the reader slot, and
/// `renew()` moves it to the newest commit without allocating.
@available(*, noasync, message: "LMDB transactions are synchronous; never hold one across an await")
struct ReadTransaction: ~Copyable {
    let handle: OpaquePointer
    private let environment: Environment
    private(set) var isActive = true
    private var isFinished = false

    private let holder: ReaderHolder

    /// Begins a snapshot at the newest commit; it holds a reader slot, counted for `holder`, until it
    /// ends.
    init(_ environment: Environment, for holder: ReaderHolder = .other) throws(LMDBError) {
        handle = try environment.beginTransaction(flags: UInt32(MDB_RDONLY))
        self.environment = environment
        self.holder = holder
        environment.readerSlotTaken(by: holder)
    }

    /// The commit this snapshot shows (LMDB's transaction id).
    var version: Int { LMDB.transactionID(handle) }

    /// Releases the snapshot, so the writer may reuse the pages only it kept alive.
    mutating func reset() {
        guard isActive else { return }
        LMDB.reset(handle)
        isActive = false
        environment.transactionEnded()
    }

    /// Moves the snapshot to the newest commit.
    mutating func renew() throws(LMDBError) {
        reset()
        try environment.renewTransaction(handle)
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

    /// This snapshot lent to one walk on the thread that holds it (a split walk's helper): valid while
    /// the transaction is.
    var lent: LentSnapshot { LentSnapshot(handle: handle) }

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
        defer {
            if isActive { environment.transactionEnded() }
            environment.readerSlotGiven(by: holder)
        }
        try LMDB.commit(handle)
    }

    deinit {
        guard !isFinished else { return }
        LMDB.abort(handle)
        if isActive { environment.transactionEnded() }
        environment.readerSlotGiven(by: holder)
    }
}

/// A read transaction lent to one walk (`ReadTransaction.lent`): it opens cursors, and must not be
/// used after the transaction ends nor on two threads at once.
struct LentSnapshot {
    fileprivate let handle: OpaquePointer

    func withCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(LMDBError) -> R {
        let cursor = try Cursor(transaction: handle, table: table)
        return try body(cursor)
    }
}
