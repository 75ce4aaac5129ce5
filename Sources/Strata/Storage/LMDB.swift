import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every call into liblmdb. Nothing else in Strata calls an `mdb_*` function, so debug builds can inject
/// a failure at any of them (see `LMDBFaults`) and test what a full disk or a full map does.
enum LMDB {
    enum Call: Hashable, Sendable {
        case openEnvironment, beginTransaction, renewTransaction, commit, openTable, get, put, delete
        case cursorOpen, cursorGet, cursorPut, drop
    }

    @inline(__always)
    private static func check(_ code: Int32) throws(LMDBError) {
        if code != MDB_SUCCESS { throw LMDBError(code: code) }
    }

    @inline(__always)
    private static func injected(_ call: Call) throws(LMDBError) {
        #if DEBUG
            if let error = LMDBFaults.take(call) { throw error }
        #endif
    }

    // MARK: Environment

    static func createEnvironment() throws(LMDBError) -> OpaquePointer {
        var env: OpaquePointer?
        try check(mdb_env_create(&env))
        guard let env else { throw LMDBError.outOfMemory }
        return env
    }

    static func setMapSize(_ env: OpaquePointer, _ size: Int) throws(LMDBError) {
        try check(mdb_env_set_mapsize(env, size))
    }

    static func setMaxReaders(_ env: OpaquePointer, _ readers: UInt32) throws(LMDBError) {
        try check(mdb_env_set_maxreaders(env, readers))
    }

    static func maxReaders(_ env: OpaquePointer) -> Int {
        var readers: UInt32 = 0
        return mdb_env_get_maxreaders(env, &readers) == 0 ? Int(readers) : 0
    }

    static func setMaxTables(_ env: OpaquePointer, _ tables: UInt32) throws(LMDBError) {
        try check(mdb_env_set_maxdbs(env, MDB_dbi(tables)))
    }

    static func openEnvironment(
        _ env: OpaquePointer, path: String, flags: UInt32, mode: mode_t
    ) throws(LMDBError) {
        try injected(.openEnvironment)
        try check(mdb_env_open(env, path, flags, mode))
    }

    static func closeEnvironment(_ env: OpaquePointer) {
        mdb_env_close(env)
    }

    /// The descriptor of the open data file (reads of it need no path, which may be gone).
    static func fileDescriptor(_ env: OpaquePointer) throws(LMDBError) -> Int32 {
        var fd: Int32 = -1
        try check(mdb_env_get_fd(env, &fd))
        return fd
    }

    /// Flushes the environment's data to disk, whatever its sync flags.
    static func syncEnvironment(_ env: OpaquePointer) throws(LMDBError) {
        try check(mdb_env_sync(env, 1))
    }

    /// Clears reader slots left by dead processes or threads; returns how many it cleared.
    static func clearStaleReaders(_ env: OpaquePointer) throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(env, &dead))
        return Int(dead)
    }

    static func info(_ env: OpaquePointer) throws(LMDBError) -> MDB_envinfo {
        var info = MDB_envinfo()
        try check(mdb_env_info(env, &info))
        return info
    }

    /// The number of free pages recorded in the free list (table 0), as `mdb_stat -f` counts them:
    /// each record is an array of page numbers whose first element is its count.
    static func freePages(_ txn: OpaquePointer) throws(LMDBError) -> Int {
        let cursor = try openCursor(txn, 0)
        defer { closeCursor(cursor) }
        var total = 0
        var entry = try cursorGet(cursor, key: nil, op: MDB_FIRST)
        while let (_, value) = entry {
            if value.count >= MemoryLayout<Int>.size { total += value.loadUnaligned(as: Int.self) }
            entry = try cursorGet(cursor, key: nil, op: MDB_NEXT)
        }
        return total
    }

    /// The lines `mdb_reader_list` writes: a header, then `pid thread(hex) txnid` per reader slot in
    /// use (`-` for a slot whose transaction is reset).
    static func readerList(_ env: OpaquePointer) -> [String] {
        final class Lines {
            var lines: [String] = []
        }
        let box = Lines()
        withExtendedLifetime(box) {
            _ = mdb_reader_list(
                env,
                { message, context in
                    guard let message, let context else { return 0 }
                    Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().lines.append(String(cString: message))
                    return 0
                }, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.lines
    }

    /// Writes a consistent copy of the environment to `fd` (`compact`: without free pages).
    static func copy(_ env: OpaquePointer, to fd: Int32, compact: Bool) throws(LMDBError) {
        try check(mdb_env_copyfd2(env, fd, compact ? UInt32(MDB_CP_COMPACT) : 0))
    }

    static func stat(_ env: OpaquePointer) throws(LMDBError) -> MDB_stat {
        var stat = MDB_stat()
        try check(mdb_env_stat(env, &stat))
        return stat
    }

    static func flags(_ env: OpaquePointer) throws(LMDBError) -> UInt32 {
        var flags: UInt32 = 0
        try check(mdb_env_get_flags(env, &flags))
        return flags
    }

    static func maxKeySize(_ env: OpaquePointer) -> Int {
        Int(mdb_env_get_maxkeysize(env))
    }

    // MARK: Transactions

    /// Begins a transaction; with `parent`, a nested one (LMDB's only savepoint) that commits into it.
    static func beginTransaction(
        _ env: OpaquePointer, parent: OpaquePointer? = nil, flags: UInt32
    ) throws(LMDBError) -> OpaquePointer {
        try injected(.beginTransaction)
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, parent, flags, &txn))
        guard let txn else { throw LMDBError.outOfMemory }
        #if Encryption
            if let parent {
                sealedNestedBegan(txn, in: parent)
            } else if flags & UInt32(MDB_RDONLY) == 0 {
                sealedWriteBegan(txn)
            }
        #endif
        return txn
    }

    static func commit(_ txn: OpaquePointer) throws(LMDBError) {
        do throws(LMDBError) {
            try injected(.commit)
        } catch {
            abort(txn)  // mdb_txn_commit frees the handle even when it fails: behave the same
            throw error
        }
        #if Encryption
            do throws(LMDBError) {
                try sealedBlocksWillCommit(txn)
            } catch {
                abort(txn)
                throw error
            }
            let images = sealedWillCommit(txn)
            sealedTransactionEnded(txn, committed: true)
            let code = mdb_txn_commit(txn)
            if code == MDB_SUCCESS, let (kept, prepared) = images { kept.committed(prepared) }
            try check(code)
        #else
            try check(mdb_txn_commit(txn))
        #endif
    }

    static func abort(_ txn: OpaquePointer) {
        #if Encryption
            sealedTransactionEnded(txn)
        #endif
        mdb_txn_abort(txn)
    }

    static func reset(_ txn: OpaquePointer) {
        #if Encryption
            sealedTransactionEnded(txn)
        #endif
        mdb_txn_reset(txn)
    }

    static func renew(_ txn: OpaquePointer) throws(LMDBError) {
        try injected(.renewTransaction)
        try check(mdb_txn_renew(txn))
    }

    static func transactionID(_ txn: OpaquePointer) -> Int {
        mdb_txn_id(txn)
    }

    // MARK: Tables

    static func openTable(_ txn: OpaquePointer, name: String, flags: UInt32) throws(LMDBError) -> MDB_dbi {
        try injected(.openTable)
        var dbi: MDB_dbi = 0
        try check(mdb_dbi_open(txn, name, flags, &dbi))
        #if Encryption
            sealedTableOpened(txn, dbi, name: name, flags: flags)
        #endif
        return dbi
    }

    /// The flags a named table was created with (`MDB_DUPSORT`…).
    static func tableFlags(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(LMDBError) -> UInt32 {
        var flags: UInt32 = 0
        try check(mdb_dbi_flags(txn, dbi, &flags))
        return flags
    }

    static func stat(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(LMDBError) -> MDB_stat {
        var stat = MDB_stat()
        try check(mdb_stat(txn, dbi, &stat))
        #if Encryption
            if let (sealing, policy) = sealing(txn, dbi), policy.inBlocks, let blocks = sealing.blockTable(dbi) {
                stat.ms_entries = try blocks.count(txn)
            }
        #endif
        return stat
    }

    /// Empties the table, or deletes it from the file when `delete` is true.
    static func drop(_ txn: OpaquePointer, _ dbi: MDB_dbi, delete: Bool) throws(LMDBError) {
        try injected(.drop)
        #if Encryption
            if let (sealing, policy) = sealing(txn, dbi) {
                if let log = sealing.tableChanged(txn, dbi, policy) {
                    sealing.images.logDrop(log, txn, dbi, delete: delete)
                }
                if policy.inBlocks, let blocks = sealing.blockTable(dbi) { try blocks.drop(txn, delete: delete) }
                if delete { sealing.forgetLastChange() }
            }
        #endif
        try check(mdb_drop(txn, dbi, delete ? 1 : 0))
    }

    // MARK: Data

    /// The value stored under `key`, or nil. The bytes live in the map and stay valid until the
    /// transaction ends or (in a write transaction) the next change.
    static func get(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer
    ) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try injected(.get)
        #if Encryption
            if let (sealing, policy) = sealing(txn, dbi) { return try sealedGet(txn, dbi, key: key, sealing, policy) }
        #endif
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let code = mdb_get(txn, dbi, &k, &v)
        if code == MDB_NOTFOUND { return nil }
        try check(code)
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Stores `value` under `key`. Returns false when `MDB_NOOVERWRITE` or `MDB_NODUPDATA` found the
    /// key (or pair) already there; every other failure throws.
    static func put(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
        flags: UInt32
    ) throws(LMDBError) -> Bool {
        try injected(.put)
        #if Encryption
            if let (sealing, policy) = sealing(txn, dbi) {
                return try sealedPut(txn, dbi, key: key, value: value, flags: flags, sealing, policy)
            }
        #endif
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let code = mdb_put(txn, dbi, &k, &v, flags)
        if code == MDB_KEYEXIST { return false }
        try check(code)
        return true
    }

    /// Reserves `size` bytes for the value under `key` (`MDB_RESERVE`) and has `fill` write them, so
    /// a value made of parts is copied once. Returns false when `MDB_NOOVERWRITE` found the key.
    static func put(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer, reserving size: Int, flags: UInt32,
        fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(LMDBError) -> Bool {
        try injected(.put)
        #if Encryption
            if let (sealing, policy) = sealing(txn, dbi) {  // filled here (on the stack when small), then sealed
                return try withUnsafeTemporaryAllocation(byteCount: size, alignment: 16) { value in
                    fill(value)
                    return Result { () throws(LMDBError) in
                        try sealedPut(
                            txn, dbi, key: key, value: UnsafeRawBufferPointer(value), flags: flags, sealing, policy)
                    }
                }.get()
            }
        #endif
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: size, mv_data: nil)
        let code = mdb_put(txn, dbi, &k, &v, flags | UInt32(MDB_RESERVE))
        if code == MDB_KEYEXIST { return false }
        try check(code)
        fill(UnsafeMutableRawBufferPointer(start: v.mv_data, count: size))
        return true
    }

    /// Deletes `key` (or only the pair `key`/`value` in a table with duplicates). Returns false when
    /// nothing matched.
    static func delete(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?
    ) throws(LMDBError) -> Bool {
        try injected(.delete)
        #if Encryption
            if let (sealing, policy) = sealing(txn, dbi) {
                return try sealedDelete(txn, dbi, key: key, value: value, sealing, policy)
            }
        #endif
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code: Int32
        if let value {
            var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
            code = mdb_del(txn, dbi, &k, &v)
        } else {
            code = mdb_del(txn, dbi, &k, nil)
        }
        if code == MDB_NOTFOUND { return false }
        try check(code)
        return true
    }

    // MARK: Cursors

    static func openCursor(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(LMDBError) -> OpaquePointer {
        try injected(.cursorOpen)
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi, &cursor))
        guard let cursor else { throw LMDBError.outOfMemory }
        return cursor
    }

    static func closeCursor(_ cursor: OpaquePointer) {
        #if Encryption
            SealedCursors.closed(cursor)
        #endif
        mdb_cursor_close(cursor)
    }

    /// Stores a pair through a cursor (`MDB_CURRENT` replaces the pair it stands on).
    static func cursorPut(
        _ cursor: OpaquePointer, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: UInt32
    ) throws(LMDBError) {
        try injected(.cursorPut)
        #if Encryption
            if let (sealing, policy) = sealing(cursor: cursor) {
                return try sealedCursorPut(cursor, key: key, value: value, flags: flags, sealing, policy)
            }
        #endif
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(mdb_cursor_put(cursor, &k, &v, flags))
    }

    /// Moves the cursor (`op` is an `MDB_cursor_op`); returns the pair it lands on, or nil at the end.
    static func cursorGet(
        _ cursor: OpaquePointer, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer? = nil,
        op: MDB_cursor_op
    ) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        try injected(.cursorGet)
        #if Encryption
            if let (sealing, policy) = sealing(cursor: cursor) {
                return try sealedCursorGet(cursor, key: key, value: value, op: op, sealing, policy)
            }
        #endif
        var k = MDB_val(mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
        var v = MDB_val(mv_size: value?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: value?.baseAddress))
        let code = mdb_cursor_get(cursor, &k, &v, op)
        if code == MDB_NOTFOUND { return nil }
        try check(code)
        return (
            UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
            UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
        )
    }

    /// `cursorGetRow` for a batch of rows (`strata_cursor_get_rows`): `op` for the first.
    static func cursorGetRows(
        _ cursor: OpaquePointer, op: MDB_cursor_op, columns: Int, start: UnsafeRawBufferPointer? = nil,
        into batch: inout RowBatch
    ) throws(LMDBError) {
        try injected(.cursorGet)
        try batch.fill(from: cursor, op: op, columns: columns, start: start)
    }

    #if Encryption
        /// `cursorGetRow` on an encrypted file's cursor whose sealing its owner looked up once.
        @inline(__always)
        static func cursorGetRow(
            _ cursor: OpaquePointer, op: MDB_cursor_op, columns: Int, sealed: (FileSealing, FileSealing.Policy)
        ) throws(LMDBError) -> SealedEntry? {
            try injected(.cursorGet)
            return try sealedCursorGetRow(cursor, op: op, columns: columns, sealed.0, sealed.1)
        }
    #endif

    /// `cursorGet` on a table of sealed rows (`Checksum`) of `columns` columns, checking the seal and
    /// the row's header in the same call (`strata_cursor_get_row`).
    @inline(__always)
    static func cursorGetRow(_ cursor: OpaquePointer, op: MDB_cursor_op, columns: Int) throws(LMDBError)
        -> SealedEntry?
    {
        #if Encryption
            if let (sealing, policy) = sealing(cursor: cursor) {
                try injected(.cursorGet)
                return try sealedCursorGetRow(cursor, op: op, columns: columns, sealing, policy)
            }
        #endif
        return try plainCursorGetRow(cursor, op: op, columns: columns)
    }

    /// `cursorGetRow` on a file that is not encrypted (its owner knows: no look-up per row).
    @inline(__always)
    static func plainCursorGetRow(_ cursor: OpaquePointer, op: MDB_cursor_op, columns: Int) throws(LMDBError)
        -> SealedEntry?
    {
        try injected(.cursorGet)
        var k = MDB_val(mv_size: 0, mv_data: nil)
        var v = MDB_val(mv_size: 0, mv_data: nil)
        let code = strata_cursor_get_row(cursor, &k, &v, op, columns)
        let state: SealedEntry.State
        switch code {
        case MDB_SUCCESS: state = .intact
        case MDB_NOTFOUND: return nil
        case STRATA_ROW_DAMAGED: state = .sealBroken
        case STRATA_ROW_BAD_HEADER: state = .headerDamaged
        default: throw LMDBError(code: code)
        }
        return SealedEntry(
            key: UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
            value: UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), state: state)
    }
}

/// A pair of a table of sealed rows, as a cursor met it.
struct SealedEntry {
    enum State {
        /// The seal matches and the header is a row's of the table: `value` is the row.
        case intact
        /// The seal matches, the header does not: `value` is the row.
        case headerDamaged
        /// The seal does not match: `value` is the stored bytes as they are.
        case sealBroken
    }

    let key: UnsafeRawBufferPointer
    let value: UnsafeRawBufferPointer
    let state: State
}
