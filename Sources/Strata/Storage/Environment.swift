import CLMDB
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How an environment makes commits durable (LMDB's `MDB_NOMETASYNC` / `MDB_NOSYNC`).
enum SyncMode: Hashable, Sendable {
    case full, noMetaSync, noSync
}

/// What an environment is opened with. Two opens of one file in a process must agree on these.
struct EnvironmentOptions: Hashable, Sendable {
    /// The map size: the most the file may ever hold. Address space is reserved up front; without
    /// `MDB_WRITEMAP` the file itself grows only as pages are used.
    var mapSize: Int
    var syncMode: SyncMode = .full
    var readOnly = false
    var maxReaders: UInt32 = 126
    var maxTables: UInt32 = 256
    /// Permissions of a newly created file (and its lock file).
    var fileMode: mode_t = 0o600

    var flags: UInt32 {
        var flags = UInt32(MDB_NOSUBDIR | MDB_NOTLS)
        switch syncMode {
        case .full: break
        case .noMetaSync: flags |= UInt32(MDB_NOMETASYNC)
        case .noSync: flags |= UInt32(MDB_NOSYNC)
        }
        if readOnly { flags |= UInt32(MDB_RDONLY) }
        return flags
    }
}

/// One open LMDB environment (`MDB_env`): one per file per process, handed out by
/// `EnvironmentRegistry`, closed when the last lease on it ends.
///
/// `@unchecked Sendable`: the `MDB_env` handle is safe to share between threads (opened with
/// `MDB_NOTLS`); the mutable state is behind `Mutex`es.
final class Environment: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    let options: EnvironmentOptions
    let pageSize: Int
    let maxKeySize: Int
    /// Reader slots of dead processes cleared when the environment opened.
    let staleReadersCleared: Int
    /// Files to delete when the environment closes (the backing files of an in-memory store).
    let removeOnClose: [String]

    /// The thread that holds LMDB's writer lock through this environment, if any. LMDB's lock is a
    /// non-recursive mutex: a second `mdb_txn_begin` for writing on that thread would deadlock.
    private let writerThread = Atomic<UInt>(0)  // a pthread_t, 0 for none
    /// Named tables opened by committed transactions (`MDB_dbi` handles are valid for the whole
    /// environment once the transaction that opened them committed).
    private let openedTables = Mutex<[String: Table]>([:])

    /// Opens (creating if needed) the environment at `path`.
    ///
    /// - Throws: `.fileAccess` when the location cannot be read or written, `.corrupted` when the file
    ///   is not an LMDB file, comes from an incompatible version, or is shorter than its last used page
    ///   (reading it would fault), `.storage` for any other LMDB failure.
    init(path: String, options: EnvironmentOptions, removeOnClose: [String] = []) throws(StoreError) {
        let env: OpaquePointer
        do {
            env = try LMDB.createEnvironment()
        } catch {
            throw StoreError(error)
        }
        do throws(LMDBError) {
            try LMDB.setMapSize(env, options.mapSize)
            try LMDB.setMaxReaders(env, options.maxReaders)
            try LMDB.setMaxTables(env, options.maxTables)
            try LMDB.openEnvironment(env, path: path, flags: options.flags, mode: options.fileMode)
        } catch {
            LMDB.closeEnvironment(env)
            throw Self.openError(error, path: path)
        }
        var cleared = 0
        do throws(StoreError) {
            do {
                cleared = try LMDB.clearStaleReaders(env)
            } catch {
                throw StoreError(error)
            }
            try Self.checkFileLength(env, path: path)
        } catch {
            LMDB.closeEnvironment(env)
            throw error
        }
        handle = env
        self.path = path
        self.options = options
        self.removeOnClose = removeOnClose
        staleReadersCleared = cleared
        pageSize = (try? LMDB.stat(env).ms_psize).map(Int.init) ?? 4096
        maxKeySize = LMDB.maxKeySize(env)
    }

    private let isClosed = Mutex(false)

    /// Closes the environment (once). Every transaction on it must have ended.
    func close() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        LMDB.closeEnvironment(handle)
        for file in removeOnClose { unlink(file) }
    }

    deinit {
        close()
    }

    private static func openError(_ error: LMDBError, path: String) -> StoreError {
        switch error {
        case .invalid: .corrupted("\(path) is not a Strata file (no valid LMDB meta page)")
        case .versionMismatch: .corrupted("\(path) was written by an incompatible LMDB version")
        case .corrupted, .pageNotFound, .panic: .corrupted("\(path): \(error)")
        case _ where error.code > 0: .fileAccess(path: path, code: error.code)
        default: .storage(error)
        }
    }

    /// LMDB maps the file and trusts the meta page: if the file is shorter than the last page the meta
    /// page names, reading that page would raise SIGBUS. Check before anything reads it.
    private static func checkFileLength(_ env: OpaquePointer, path: String) throws(StoreError) {
        let info: MDB_envinfo
        let stat: MDB_stat
        do {
            info = try LMDB.info(env)
            stat = try LMDB.stat(env)
        } catch {
            throw StoreError(error)
        }
        guard let size = fileSize(atPath: path) else { throw .fileAccess(path: path, code: errno) }
        let needed = (Int(info.me_last_pgno) + 1) * Int(stat.ms_psize)
        if size < needed {
            throw .corrupted("\(path) is truncated: \(size) bytes, but its pages reach \(needed) bytes")
        }
    }

    /// Clears the reader slots of dead processes (`mdb_reader_check`); returns how many it cleared.
    /// Run at open, and when the reader table is full.
    func clearStaleReaders() throws(LMDBError) -> Int {
        try LMDB.clearStaleReaders(handle)
    }

    // MARK: Writer lock bookkeeping

    /// Whether the calling thread already holds this environment's writer lock.
    var isWriterOnCurrentThread: Bool {
        writerThread.load(ordering: .relaxed) == ThreadIdentity.current.raw
    }

    func noteWriter(_ thread: ThreadIdentity?) {
        writerThread.store(thread?.raw ?? 0, ordering: .relaxed)
    }

    // MARK: Tables

    /// Runs `body` holding the lock LMDB requires around `mdb_dbi_open` ("must not be called from
    /// concurrent transactions; a transaction that used it must end before another may"), with the
    /// table handles published so far. Open tables and end that transaction inside `body`, then publish
    /// the handles it committed. Take the writer lock (begin the write transaction) before calling this,
    /// never after: a thread in a user's write may need this lock to open a second Store.
    func withTableRegistry<R>(
        _ body: (inout [String: Table]) throws(StoreError) -> R
    ) throws(StoreError) -> R {
        try openedTables.withLock { (tables) throws(StoreError) -> R in try body(&tables) }
    }

    /// The sync mode LMDB applies, read back from the environment's flags.
    func syncModeInEffect() throws(LMDBError) -> SyncMode {
        let flags = try LMDB.flags(handle)
        if flags & UInt32(MDB_NOSYNC) != 0 { return .noSync }
        if flags & UInt32(MDB_NOMETASYNC) != 0 { return .noMetaSync }
        return .full
    }
}

/// The size of the file at `path`, or nil (with `errno` set) when it cannot be examined.
func fileSize(atPath path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}
