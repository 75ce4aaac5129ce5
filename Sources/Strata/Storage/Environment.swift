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
    var maxReaders: UInt32 = EnvironmentOptions.defaultMaxReaders
    var maxTables: UInt32 = 256
    /// Permissions of a newly created file (and its lock file).
    var fileMode: mode_t = 0o600
    /// Walk every page and row when the process opens the file (`Environment.checkEveryPageOnce`).
    var checksEveryPage = true
    /// The app's key of an encrypted file (64 bytes); a new file is made encrypted with it.
    var encryptionKey: [UInt8]?
    /// Reads an encrypted file's stored bytes as they are, sealed (the tests that damage them).
    var readsSealedBytes = false

    /// LMDB's own default is 126; why Strata's is higher: `Store.Configuration.maximumReaders`.
    static let defaultMaxReaders: UInt32 = 1_024

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
/// `MDB_NOTLS`); the mutable state is behind locks (`Locked`).
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
    /// The turns of this process's writers (`WriteTransaction` takes one before LMDB's lock).
    let writerGate = WriterGate()
    /// Named tables opened by committed transactions (`MDB_dbi` handles are valid for the whole
    /// environment once the transaction that opened them committed).
    private let openedTables = Locked<[String: Table]>([:])
    /// The stamp keys of the published tables, for the commits that change them.
    let changeStamps: ChangeStamps
    /// Counts the open transactions, so that a map another process grew can be adopted.
    private let mapAdoption = MapAdoption()
    /// What an encrypted file seals (nil for a plain file): LMDB's user context of the handle.
    let sealing: FileSealing?
    /// The reader slots this process's snapshots hold, per holder (`readersFull`'s report).
    private let readerSlots = Locked([Int](repeating: 0, count: ReaderHolder.allCases.count))

    /// Opens (creating if needed) the environment at `path`.
    ///
    /// - Throws: `.fileAccess` when the location cannot be read or written, `.damaged` when the file
    ///   is not an LMDB file, comes from an incompatible version, or is shorter than its last used page
    ///   (reading it would fault), `.lmdb` for any other LMDB failure.
    /// `use`: the process's use of the file when the caller took it (an in-place compaction, which
    /// keeps it if opening fails); otherwise a shared use is taken here, waiting while another
    /// process compacts the file in place.
    init(path: String, options: EnvironmentOptions, removeOnClose: [String] = [], use: FileUse? = nil)
        throws(StorageError)
    {
        var fileUse = use
        var opened = false
        defer { if !opened, use == nil { fileUse?.end() } }  // no environment of the file is open here
        if !options.readOnly { StoreFile.removeAbandonedCopies(of: path) }
        switch fileSize(atPath: path) {
        case nil where !options.readOnly && errno == ENOENT:
            try StoreFile.create(at: path, options: options)
        case 0?:
            // New files appear whole (`StoreFile.create`): an empty one was truncated, and what it held is lost.
            throw .damaged("\(path) is empty (0 bytes): the store it held was truncated; restore it from a copy")
        case _?:
            try StoreFile.check(at: path)  // before LMDB trusts its meta pages and tree
        case nil:
            break  // LMDB reports why it cannot open it
        }
        // Once the file is known to be a store (a foreign file is left without a lock file). The check
        // may have read a file a compaction then replaced: its compacted copy is as sound.
        if fileUse == nil { fileUse = FileUse.shared(path: path, options: options) }
        self.fileUse = fileUse
        let env: OpaquePointer
        do {
            env = try LMDB.createEnvironment()
        } catch {
            throw .lmdb(error)
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
        do throws(StorageError) {
            do {
                cleared = try LMDB.clearStaleReaders(env)
            } catch {
                throw .lmdb(error)
            }
            try Self.checkFileLength(env, path: path)
            sealing = try FileSealing.opening(env, path: path, options: options)
            changeStamps = ChangeStamps(stampsKeyedTables: sealing != nil)
        } catch {
            LMDB.closeEnvironment(env)
            throw error
        }
        handle = env
        self.path = path
        self.options = options
        self.removeOnClose = removeOnClose
        staleReadersCleared = cleared
        // mdb_env_stat of an open environment cannot fail; 4096 is LMDB's page size on Linux anyway.
        pageSize = (try? LMDB.stat(env).ms_psize).map(Int.init) ?? 4096
        maxKeySize = LMDB.maxKeySize(env)
        opened = true  // thrown from here, the environment closes in deinit, and ends the use
        if options.checksEveryPage, removeOnClose.isEmpty { try checkEveryPageOnce() }
    }

    /// A file, whichever path names it.
    private struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// A file as it is now: any write changes its size, its modification time or its newest transaction.
    private struct FileVersion: Equatable {
        let size: Int
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int
        let transactionID: Int
    }

    /// The files whose every page this process has checked, and their version then.
    private static let checkedFiles = Locked<[FileIdentity: FileVersion]>([:])
    /// How many full checks opening has run in this process, by path (for tests).
    static let fullChecksRun = Locked<[String: Int]>([:])

    /// Walks every page and row of the newest snapshot (`checkPages`), unless this process already
    /// did for the file as it is now. Before anything else reads the file: LMDB trusts every page
    /// number it reads, and a row's bytes are only checked when the row is read.
    private func checkEveryPageOnce() throws(StorageError) {
        let (file, version) = try currentVersion()
        if Self.checkedFiles.withLock({ $0[file] == version }) { return }
        Self.fullChecksRun.withLock { $0[path, default: 0] += 1 }
        _ = try checkPages()
        Self.checkedFiles.withLock { $0[file] = version }
    }

    private func currentVersion() throws(StorageError) -> (FileIdentity, FileVersion) {
        var status = stat()
        let fd: Int32
        let info: MDB_envinfo
        do throws(LMDBError) {
            fd = try LMDB.fileDescriptor(handle)
            info = try LMDB.info(handle)
        } catch {
            throw .lmdb(error)
        }
        guard fstat(fd, &status) == 0 else { throw .fileAccess(path: path, code: errno) }
        return (
            FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)),
            FileVersion(
                size: Int(status.st_size), modifiedSeconds: status.st_mtim.tv_sec,
                modifiedNanoseconds: status.st_mtim.tv_nsec, transactionID: Int(info.me_last_txnid))
        )
    }

    private let isClosed = Locked(false)
    /// This process's use of the file (a `flock` on the lock file), ended when the environment closes;
    /// its descriptor also serves `isOpenInAnotherProcess`. Nil when the lock file could not be opened.
    private let fileUse: FileUse?
    private let keepsFileUse = Locked(false)

    /// Closes the environment (once). Every transaction on it must have ended.
    func close() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        LMDB.closeEnvironment(handle)
        if !keepsFileUse.withLock({ $0 }) { fileUse?.end() }  // after LMDB released its locks anyway
        for file in removeOnClose { unlink(file) }
    }

    /// Closes the environment but leaves the file's use to the caller, who took it (an in-place
    /// compaction, which keeps the file to itself until the copy replaced it).
    func closeKeepingUse() {
        keepsFileUse.withLock { $0 = true }
        close()
    }

    deinit {
        close()
    }

    private static func openError(_ error: LMDBError, path: String) -> StorageError {
        switch error {
        case .invalid: .damaged("\(path) is not a Strata file (no valid LMDB meta page)")
        case .versionMismatch: .damaged("\(path) was written by an incompatible LMDB version")
        case .corrupted, .pageNotFound, .panic: .damaged("\(path): \(error)")
        case _ where error.code > 0: .fileAccess(path: path, code: error.code)
        default: .lmdb(error)
        }
    }

    /// LMDB maps the file and trusts the meta page: if the file is shorter than the last page the meta
    /// page names, reading that page would raise SIGBUS. Check before anything reads it.
    private static func checkFileLength(_ env: OpaquePointer, path: String) throws(StorageError) {
        let info: MDB_envinfo
        let stat: MDB_stat
        do {
            info = try LMDB.info(env)
            stat = try LMDB.stat(env)
        } catch {
            throw .lmdb(error)
        }
        guard let size = fileSize(atPath: path) else { throw .fileAccess(path: path, code: errno) }
        let needed = (Int(info.me_last_pgno) + 1) * Int(stat.ms_psize)
        // Pages past the end are fine when they are free (see `StoreFile.checkPagesPastTheEnd`).
        if size < needed { try StoreFile.check(at: path) }
    }

    /// Whether the environment backs an in-memory store (its files go when it closes).
    var isInMemory: Bool { !removeOnClose.isEmpty }

    /// Walks every page of the newest snapshot (pinned by a read transaction meanwhile) and checks its
    /// structure, so that `verify()` reports damage LMDB would follow out of the map. Returns the number
    /// of pages checked.
    ///
    /// - Throws: `.damaged` naming the page and the damage; `.fileAccess`, `.lmdb`.
    func checkPages() throws(StorageError) -> Int {
        let fd: Int32
        do {
            fd = try LMDB.fileDescriptor(handle)  // the open file: its path may have been removed meanwhile
        } catch {
            throw .lmdb(error)
        }
        for _ in 1...10 {
            let transaction = try openReadTransaction()
            // The meta pages hold the last two commits: the pinned one is among them unless two more
            // landed since the transaction began; then try again.
            let metas = try PageWalker.metas(fd: fd, pageSize: pageSize, path: path)
            guard let pinned = metas.first(where: { $0.transactionID == UInt64(transaction.version) }) else { continue }
            var walker = PageWalker(fd: fd, path: path, pageSize: pageSize, lastPage: pinned.lastPage)
            walker.sealing = sealing
            try walker.walk(pinned, tables: true)
            return walker.pagesChecked
        }
        throw .lmdb(LMDBError(code: EAGAIN))
    }

    private func openReadTransaction() throws(StorageError) -> ReadTransaction {
        do {
            return try ReadTransaction(self)
        } catch {
            throw .lmdb(error)
        }
    }

    /// The file's size and the bytes its pages use (pages up to the last one used, less free ones).
    func usage() throws(StorageError) -> (totalBytes: Int, usedBytes: Int) {
        let free: Int
        let info: MDB_envinfo
        do {
            free = try ReadTransaction(self).freePages()
            info = try LMDB.info(handle)
        } catch {
            throw .lmdb(error)
        }
        guard let size = fileSize(atPath: path) else { throw .fileAccess(path: path, code: errno) }
        return (size, (Int(info.me_last_pgno) + 1 - free) * pageSize)
    }

    /// Writes a consistent copy of the last commit to a new file at `destination` (`compact`: without
    /// free pages, so the copy is as small as the data). Nothing is left at `destination` on failure.
    ///
    /// - Throws: `.fileAccess` (the file exists, or cannot be created or written), `.lmdb`.
    func copy(to destination: String, compact: Bool) throws(StorageError) {
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, options.fileMode)
        guard fd >= 0 else { throw .fileAccess(path: destination, code: errno) }
        do {
            try LMDB.copy(handle, to: fd, compact: compact)
        } catch {
            closeFile(fd)
            unlink(destination)
            throw error.code > 0 ? .fileAccess(path: destination, code: error.code) : .lmdb(error)
        }
        let synced = fsync(fd) == 0
        let code = errno
        closeFile(fd)
        guard synced else {
            unlink(destination)
            throw .fileAccess(path: destination, code: code)
        }
    }

    /// The reader slots in use: process, thread, and the version its snapshot shows (nil: reset).
    func readers() -> [(processID: Int32, thread: UInt, version: Int?)] {
        LMDB.readerList(handle).flatMap { $0.split(separator: "\n") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let pid = Int32(fields[0]), let thread = UInt(fields[1], radix: 16) else {
                return nil
            }
            return (pid, thread, Int(fields[2]))
        }
    }

    func readerSlotTaken(by holder: ReaderHolder) {
        readerSlots.withLock { $0[holder.rawValue] += 1 }
    }

    func readerSlotGiven(by holder: ReaderHolder) {
        readerSlots.withLock { $0[holder.rawValue] -= 1 }
    }

    /// Who holds the reader slots: how many the table has, how many this process's snapshots hold
    /// (per holder) and how many other processes' do (per process).
    func readerSlotReport() -> String {
        let capacity = LMDB.maxReaders(handle)
        let ownProcess = getpid()
        let slots = readers()
        let others = Dictionary(grouping: slots.filter { $0.processID != ownProcess }, by: \.processID)
        let held = readerSlots.withLock { $0 }
        let own = slots.count - others.values.reduce(0) { $0 + $1.count }
        var report = "\(slots.count) of the file's \(capacity) reader slots are in use: \(own) by this process ("
        report += ReaderHolder.allCases.map { "\(held[$0.rawValue]) \($0.described)" }.joined(separator: ", ") + ")"
        if others.isEmpty {
            report += ", none by other processes"
        } else {
            let listed = others.sorted { $0.value.count > $1.value.count }.prefix(5)
            report += ", \(slots.count - own) by \(others.count) other process(es) ("
            report += listed.map { "pid \($0.key): \($0.value.count)" }.joined(separator: ", ")
            report += others.count > listed.count ? ", …)" : ")"
        }
        return report + "; Store.Configuration.maximumReaders sets the table's size when the file is first opened"
    }

    /// The newest committed version.
    func latestVersion() throws(StorageError) -> Int {
        do {
            return try LMDB.info(handle).me_last_txnid
        } catch {
            throw .lmdb(error)
        }
    }

    /// Whether another process has the file open: LMDB keeps a shared lock on the first byte of the
    /// lock file while an environment is open (locks of this process never conflict with it).
    var isOpenInAnotherProcess: Bool {
        guard let fd = fileUse?.descriptor else { return false }
        return FileUse.lmdbLockHeldElsewhere(fd)
    }

    /// Clears the reader slots of dead processes (`mdb_reader_check`); returns how many it cleared.
    /// Run at open, and when the reader table is full.
    func clearStaleReaders() throws(LMDBError) -> Int {
        try LMDB.clearStaleReaders(handle)
    }

    // MARK: Transactions

    /// Begins a (top-level) transaction, counted as open until `transactionEnded()`; adopts the map
    /// when another process grew it past this one's (`MapAdoption`).
    ///
    /// - Throws: what `mdb_txn_begin` returns; `.readersFull` says who holds the slots.
    func beginTransaction(flags: UInt32) throws(LMDBError) -> OpaquePointer {
        let transaction: OpaquePointer
        do {
            transaction = try mapAdoption.opening(handle) { () throws(LMDBError) in
                try LMDB.beginTransaction(handle, flags: flags)
            }
        } catch .readersFull {
            throw LMDBError(code: LMDBError.readersFull.code, detail: readerSlotReport())
        }
        guard flags & UInt32(MDB_RDONLY) != 0 else { return transaction }
        do {
            try settleSnapshot(transaction)
        } catch {
            LMDB.abort(transaction)  // reset by the failed renewal: no longer counted as open
            throw error
        }
        return transaction
    }

    /// Renews a reset read transaction, counted as open until `transactionEnded()`.
    func renewTransaction(_ transaction: OpaquePointer) throws(LMDBError) {
        try mapAdoption.opening(handle) { () throws(LMDBError) in try LMDB.renew(transaction) }
        try settleSnapshot(transaction)
    }

    /// Makes sure a read transaction shows the commit its id names, renewing it until it does.
    ///
    /// LMDB 0.9 (`mdb_txn_renew0`) publishes the newest transaction id T in the reader slot, then
    /// copies the roots from meta page `T % 2`. A thread preempted between the two while two more
    /// commits land copies the roots of T + 2, which overwrote that meta page: the snapshot shows a
    /// newer commit than its id, and the next snapshot (T + 1) shows fewer objects. Seen as a count
    /// going down under load (`MultiProcessTests.fourWriters`: 31,000 at version 310, then 30,900 at
    /// 311). libmdbx re-checks the meta page after copying it; through LMDB's public API: once the
    /// roots are copied, the newest commit must be at most T + 1, or the copy may be of T + 2.
    ///
    /// - Throws: what renewing throws; the transaction is then reset, and counted as ended.
    private func settleSnapshot(_ transaction: OpaquePointer) throws(LMDBError) {
        // Bounded: only commits landing faster than renewals run could keep it going; the last
        // snapshot would then be kept as LMDB made it.
        for _ in 0..<1_000 {
            guard let newest = try? LMDB.info(handle).me_last_txnid, newest > LMDB.transactionID(transaction) + 1
            else { return }
            LMDB.reset(transaction)
            mapAdoption.ended()
            try mapAdoption.opening(handle) { () throws(LMDBError) in try LMDB.renew(transaction) }
        }
    }

    /// A transaction begun or renewed here was committed, aborted or reset.
    func transactionEnded() {
        mapAdoption.ended()
    }

    /// Whether moving to the newest commit needs a map another process grew, which cannot be adopted
    /// while transactions other than the caller's `own` are open (`MapAdoption`).
    func moveNeedsUnadoptableMap(own: Int) -> Bool {
        mapAdoption.cannotAdopt(handle, pageSize: pageSize, own: own)
    }

    // MARK: Writer lock bookkeeping

    /// Whether the calling thread already holds this environment's writer lock.
    var isWriterOnCurrentThread: Bool {
        writerThread.load(ordering: .relaxed) == ThreadIdentity.current.raw
    }

    /// Whether `asyncWrite`s commit in groups (`CommitGroup`): for durable commits, where each sync
    /// costs most of a write.
    var groupsCommits: Bool { options.syncMode == .full && !options.readOnly }

    func noteWriter(_ thread: ThreadIdentity?) {
        writerThread.store(thread?.raw ?? 0, ordering: .relaxed)
    }

    // MARK: Tables

    /// Runs `body` holding the lock LMDB requires around `mdb_dbi_open` ("must not be called from
    /// concurrent transactions; a transaction that used it must end before another may"), with the
    /// table handles published so far. Open tables and end that transaction inside `body`, then publish
    /// the handles it committed. Take the writer lock (begin the write transaction) before calling this,
    /// never after: a thread in a user's write may need this lock to open a second Store.
    func withTableRegistry<R, Failure: Error>(
        _ body: (inout [String: Table]) throws(Failure) -> R
    ) throws(Failure) -> R {
        try openedTables.withLock { (tables) throws(Failure) -> R in
            defer { changeStamps.update(from: tables) }
            return try body(&tables)
        }
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

/// `close(2)`, named apart from `Environment.close()`.
private func closeFile(_ fd: Int32) {
    _ = close(fd)
}
