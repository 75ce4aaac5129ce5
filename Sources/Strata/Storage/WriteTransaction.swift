import CLMDB

/// The one write transaction of an environment. Holds LMDB's writer lock from `init` until `commit()`
/// or `abort()` (or until dropped, which aborts): begin and end it on one thread.
///
/// A transaction whose C call failed is poisoned: every later call rethrows that first failure, and
/// `commit()` aborts instead of committing and throws it (the map filling up in the middle of a write
/// must never commit half of it).
@available(*, noasync, message: "LMDB's writer lock belongs to a thread; never hold it across an await")
struct WriteTransaction: ~Copyable {
    let handle: OpaquePointer
    let environment: Environment
    /// The first failure of a call in this transaction; set, the transaction can only abort.
    private(set) var failure: LMDBError?
    private var isFinished = false
    /// Whether this transaction took the writer's turn (a nested one runs inside its group's turn).
    private let holdsTurn: Bool
    /// The tables this transaction changed, stamped as it commits (`ChangeStamps`).
    private(set) var changedTables: [MDB_dbi] = []
    /// The table changed last: most changes go to the table changed just before.
    private var lastChanged: MDB_dbi = 0

    /// Notes a change to `table`, for its stamp (every call that changes a table makes it).
    @inline(__always)
    mutating func noteChanged(_ table: Table) {
        guard table.dbi != lastChanged else { return }
        lastChanged = table.dbi
        if !changedTables.contains(table.dbi) { changedTables.append(table.dbi) }
    }

    /// Begins the write, after this process's writers before it (`Environment.writerGate`): pass
    /// `hasTurn` when the caller already took its turn (`asyncWrite` waits for it suspended).
    init(_ environment: Environment, hasTurn: Bool = false) throws(LMDBError) {
        if !hasTurn { environment.writerGate.enter() }
        do {
            handle = try environment.beginTransaction(flags: 0)
        } catch {
            environment.writerGate.leave()
            throw error
        }
        self.environment = environment
        holdsTurn = true
        environment.noteWriter(.current)
    }

    /// Begins a write nested in `parent`, a transaction of `environment` (`GroupTransaction`'s).
    init(nestedIn parent: OpaquePointer, of environment: Environment) throws(LMDBError) {
        handle = try LMDB.beginTransaction(environment.handle, parent: parent, flags: 0)
        self.environment = environment
        holdsTurn = false
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
        noteChanged(table)
        return try poisoning { handle throws(LMDBError) in
            try LMDB.put(handle, table.dbi, key: key, value: value, flags: options.rawValue)
        }
    }

    /// Stores `size` bytes that `fill` writes under `key`; false when `MDB_NOOVERWRITE` found it there.
    mutating func put(
        _ table: Table, key: UnsafeRawBufferPointer, reserving size: Int, options: PutOptions = [],
        fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(LMDBError) -> Bool {
        noteChanged(table)
        return try poisoning { handle throws(LMDBError) in
            try LMDB.put(handle, table.dbi, key: key, reserving: size, flags: options.rawValue, fill: fill)
        }
    }

    /// Deletes a key (or one pair of a table with duplicates); false when it was not there.
    mutating func delete(
        _ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer? = nil
    ) throws(LMDBError) -> Bool {
        noteChanged(table)
        return try poisoning { handle throws(LMDBError) in try LMDB.delete(handle, table.dbi, key: key, value: value) }
    }

    mutating func count(_ table: Table) throws(LMDBError) -> Int {
        try poisoning { handle throws(LMDBError) in try Int(LMDB.stat(handle, table.dbi).ms_entries) }
    }

    /// Removes every pair of the table (`delete: false`) or the table itself.
    mutating func drop(_ table: Table, delete: Bool = false) throws(LMDBError) {
        noteChanged(table)
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

    /// Up to `limit` pairs of `table` after the key `after` (from the start when nil), copied: what a
    /// walk that rewrites the table reads, a batch at a time (a cursor's pairs move as the table changes).
    mutating func pairs(_ table: Table, after: [UInt8]?, limit: Int) throws(LMDBError) -> [(
        key: [UInt8], value: [UInt8]
    )] {
        try withCursor(table) { (cursor) throws(LMDBError) in
            var pairs: [(key: [UInt8], value: [UInt8])] = []
            var entry: Cursor.Entry?
            if let after {
                entry = try after.withUnsafeBytes { key in
                    Result { () throws(LMDBError) in try cursor.seek(atLeast: key) }
                }.get()
                if let current = entry, current.key.elementsEqual(after) { entry = try cursor.next() }
            } else {
                entry = try cursor.first()
            }
            while let current = entry, pairs.count < limit {
                pairs.append((Array(current.key), Array(current.value)))
                entry = try cursor.next()
            }
            return pairs
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
        defer { end() }
        if failure == nil { try? stampChangedTables() }  // a failed stamp poisons: aborted below
        if let failure {
            LMDB.abort(handle)
            throw failure
        }
        try LMDB.commit(handle)
    }

    consuming func abort() {
        isFinished = true
        LMDB.abort(handle)
        end()
    }

    private func end() {
        environment.noteWriter(nil)
        if holdsTurn {
            environment.transactionEnded()  // a nested one was never counted: its parent is
            environment.writerGate.leave()
        }
    }

    deinit {
        if !isFinished {
            LMDB.abort(handle)
            end()
        }
    }
}
