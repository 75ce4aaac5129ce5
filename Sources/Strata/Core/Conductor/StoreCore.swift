import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state behind a `Store`: one per file per thread (or queue), shared by every `Store` value
/// opened there. Holds the snapshot (an LMDB read transaction) the thread sees, and the write session
/// while a write transaction is open.
@usableFromInline
final class StoreCore: ObjectContext {
    let configuration: Store.Configuration
    private let lease: EnvironmentLease
    let environment: Environment
    /// What the Stores of this file in the process share: the change hub, the frozen snapshots.
    let shared: SharedFile
    /// The model types bound to their tables in this file, found by type or name.
    let tables: TableBindings

    /// The snapshot outside writes; reset (not released) while a write is open, nil until first use.
    @exclusivity(unchecked) private var snapshot: ReadTransaction?
    /// The version the snapshot showed when last activated.
    private var seenVersion = 0
    /// The session of the last write, kept for the next one (its buffers have grown already).
    private var idleSession: WriteSession?
    /// The open write transaction, if any.
    @exclusivity(unchecked) private(set) var session: WriteSession?
    /// The commit group of the `asyncWrite` whose block runs now: writes begun meanwhile nest in it.
    var commitGroup: CommitGroup?
    /// Change capture: records each write's changes to captured types in the file's outbox, at commit.
    let outbox: Outbox
    /// What StrataSync asks beyond the outbox: outgoing values, incoming changes applied.
    private(set) lazy var sync = SyncExchange(core: self)
    /// Reads rows of the snapshot this Store shows (or of its open write).
    var rows: RowReader { RowReader(core: self) }
    /// Per table, changes when rows are inserted or deleted (or the snapshot moves): Results keep
    /// their list of keys for one version.
    @exclusivity(unchecked) private(set) var tableVersions: [UInt64]
    /// The Results iterations under way (each unregisters itself when it ends).
    @exclusivity(unchecked) var iterations = IterationRegistry()
    /// Scratch space for encoding values outside writes (primary keys to look up).
    @exclusivity(unchecked) var scratch = _RowEncoder()
    /// The observers registered on this Store, and their delivery.
    private(set) lazy var observers = ObserverRegistry(core: self)
    /// The accessors of observable types a read may have tracked (Observation), told of commits.
    private(set) lazy var commitObservation = CommitObservation(core: self)
    /// Where notifications are delivered and commits wake the Store: its queue, or the main queue for
    /// a Store of the main thread; nil for other threads (they deliver on `refresh()`).
    let deliveryQueue: DispatchQueue?
    /// This Store's entry in the file's change hub (with a delivery queue only).
    private(set) var listener: ChangeListener?
    /// Whether a commit elsewhere moves the Store to it when the Store's queue next runs.
    var autorefresh = true
    /// The frozen copy made last, reused while it lives and shows this Store's version.
    weak var lastFrozen: StoreCore?
    /// The rows this Store's own writes deleted: who deleted an object whose row is gone.
    @exclusivity(unchecked) var ownDeletions = OwnDeletions()
    /// Per vector index (its nodes table), the addresses its searches met in this snapshot.
    @exclusivity(unchecked) var vectorAddressCache: [UInt32: VectorAddresses] = [:]

    /// This core's entry in the per-thread cache, removed in deinit.
    private let cacheKey: StoreCache.Key?

    /// Opens the file of `configuration` (or joins the process's open environment of it), checks the
    /// schema and binds the model types to their tables (see `StoreOpening`).
    convenience init(
        configuration: Store.Configuration, confinement: Confinement, queue: DispatchQueue? = nil,
        actor: (any Actor)? = nil, cacheKey: StoreCache.Key? = nil
    ) throws(StoreError) {
        let (lease, bindings) = try StoreOpening.open(configuration)
        try self.init(lease, bindings, configuration, confinement, queue: queue, actor: actor, cacheKey: cacheKey)
    }

    /// A core of the leased file with `bindings` (a DynamicStore's: its stored types' schemas).
    init(
        _ lease: EnvironmentLease, _ bindings: [TableBinding], _ configuration: Store.Configuration,
        _ confinement: Confinement, queue: DispatchQueue? = nil, actor: (any Actor)? = nil,
        cacheKey: StoreCache.Key? = nil
    ) throws(StoreError) {
        self.configuration = configuration
        self.lease = lease
        environment = lease.environment
        shared = SharedFile.of(lease.environment)
        self.cacheKey = cacheKey
        tables = TableBindings(bindings, cachesLookups: confinement.isConfinedToOneThread)
        outbox = Outbox(environment: lease.environment, capture: shared.capture, tables: tables)
        tableVersions = Array(repeating: 1, count: bindings.count)
        if case .thread = confinement {
            deliveryQueue = Thread.isMainThread ? .main : nil
        } else {
            deliveryQueue = queue
        }
        super.init(confinement: confinement, fileIdentity: ObjectIdentifier(lease.environment))
        try StoreError.mapping { try activateSnapshot() }
        if let deliveryQueue {
            listener = ChangeListener(core: self, queue: deliveryQueue)
        } else if let actor {
            listener = ChangeListener(core: self, actor: actor)
        }
        if let listener { shared.changes.register(listener) }
    }

    /// Transactions end before the lease does: the last lease closes the environment, and a
    /// transaction aborted after that would touch freed memory.
    deinit {
        if let cacheKey { StoreCache.remove(cacheKey, core: self) }
        if isFrozen { shared.frozenSnapshots.withLock { $0[ObjectIdentifier(self)] = nil } }
        if let listener {
            listener.detach()
            shared.changes.unregister(listener)
        }
        observers.storeClosed()
        // No iteration is left: each holds its Results, which holds this core.
        session?.abort()
        session = nil
        snapshot = nil
    }

    // MARK: Confinement

    var isFrozen: Bool { if case .frozen = confinement { true } else { false } }

    /// - Throws: `.wrongThread` unless called on the Store's thread or queue.
    func checkConfined() throws(StoreError) {
        if !confinement.isCurrent { throw .wrongThread }
    }

    /// The open write session, checked for use on this thread.
    ///
    /// - Throws: `.wrongThread`, `.notInWriteTransaction`; `.wrongThread` as well when a queue-confined
    ///   Store runs this on another thread than the one that began the write (LMDB's writer lock
    ///   belongs to that thread).
    func writableSession() throws(StoreError) -> WriteSession {
        try checkConfined()
        guard let session else { throw .notInWriteTransaction }
        guard session.thread == .current else { throw .wrongThread }
        return session
    }

    // MARK: Bindings

    /// - Throws: `.schemaMismatch` when the type is not in this Store's schema.
    @inline(__always)
    func binding(for type: Object.Type) throws(StoreError) -> TableBinding {
        try tables.binding(for: type)
    }

    /// Every type of the schema, bound to its tables.
    var bindings: [TableBinding] { tables.all }

    // MARK: Snapshot and transactions

    private func activateSnapshot() throws(LMDBError) {
        switch snapshot?.isActive {
        case nil:
            do {
                snapshot = try ReadTransaction(environment, for: readerHolder)
            } catch let full where full == .readersFull {
                guard try environment.clearStaleReaders() > 0 else { throw full }
                snapshot = try ReadTransaction(environment, for: readerHolder)  // a dead process held a slot
            }
        case false?: try snapshot!.renew()
        case true?: return
        }
        seenVersion = snapshot?.version ?? 0
    }

    private var readerHolder: ReaderHolder { isFrozen ? .frozen : .store }

    /// The version (LMDB transaction id) this Store sees.
    func version() throws(StoreError) -> Int {
        if let session { return session.version }
        try StoreError.mapping { () throws(LMDBError) in try activateSnapshot() }
        return seenVersion
    }

    func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        if let session { return try session.get(table, key: key) }
        try activateSnapshot()
        return try snapshot!.get(table, key: key)
    }

    func count(_ table: Table) throws(LMDBError) -> Int {
        if let session { return try session.count(table) }
        try activateSnapshot()
        return try snapshot!.count(table)
    }

    func withCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(LMDBError) -> R {
        if let session { return try session.withCursor(table, body) }
        try activateSnapshot()
        return try snapshot!.withCursor(table, body)
    }

    /// A cursor on `table` in the current transaction (the write's, or the snapshot).
    func openCursor(on table: Table) throws(StoreError) -> TableCursor {
        try StoreError.mapping { () throws(LMDBError) -> TableCursor in
            if let session { return try session.openTableCursor(table) }
            try activateSnapshot()
            return try snapshot!.openTableCursor(table)
        }
    }

    /// Marks every cached row stale (and, for `structural`, every table's key list).
    func noteChange(structural table: TableBinding? = nil) {
        generation &+= 1
        if let table { tableVersions[table.ordinal] &+= 1 }
    }

    private func noteNewSnapshot() {
        generation &+= 1
        for index in tableVersions.indices { tableVersions[index] &+= 1 }
    }

    /// Moves to the newest commit. Returns whether the version changed. Inside a write it does nothing.
    func refresh() throws(StoreError) -> Bool {
        try checkConfined()
        guard session == nil, !isFrozen else { return false }
        // Another process grew the file past this process's map, and other snapshots keep it from
        // adopting it: stay at this version (its objects stay readable) rather than lose it.
        if environment.moveNeedsUnadoptableMap(own: snapshot?.isActive == true ? 1 : 0) { throw .mapFull }
        iterations.detach()
        let before = seenVersion
        try StoreError.mapping { () throws(LMDBError) in
            if snapshot?.isActive == true { try snapshot!.renew() } else { try activateSnapshot() }
        }
        seenVersion = snapshot?.version ?? 0
        let changed = before != seenVersion
        if changed { noteNewSnapshot() }
        observers.deliver()
        return changed
    }

    /// Releases the snapshot; every object fetched so far is invalidated.
    func invalidate() {
        assertConfined()
        guard !isFrozen else { return }  // other threads may be reading it
        if session != nil { try? cancelWrite() }  // a rollback stores nothing: its failure loses nothing
        iterations.detach()
        snapshot?.reset()
        epoch &+= 1
        noteNewSnapshot()
    }

    // MARK: Writes

    /// - Throws: `.wrongThread`, `.alreadyInWriteTransaction` (this Store, or another Store of the file on
    ///   this thread, is writing), `.readOnly`, `.storage`.
    /// `hasTurn`: the caller took this process's writer turn already (`asyncWrite`); it is given back
    /// if the write cannot begin.
    func beginWrite(hasTurn: Bool = false) throws(StoreError) {
        do throws(StoreError) {
            try checkConfined()
            guard session == nil, !environment.isWriterOnCurrentThread else { throw .alreadyInWriteTransaction }
            guard !configuration.readOnly, !isFrozen else { throw .readOnly }
        } catch {
            if hasTurn { environment.writerGate.leave() }
            throw error
        }
        iterations.detach()
        snapshot?.reset()  // the write sees the newest commit; release the old pages meanwhile
        let transaction: WriteTransaction
        if let commitGroup {
            transaction = try StoreError.mapping { try WriteTransaction(nestedIn: commitGroup.transaction) }
        } else {
            transaction = try StoreError.mapping { try WriteTransaction(environment, hasTurn: hasTurn) }
        }
        let session = idleSession.take() ?? WriteSession(tableCount: bindings.count)
        session.begin(transaction)
        let captures: Bool
        do {
            captures = try outbox.writeBegan(session)
        } catch {
            session.abort()
            endWrite(session)
            throw error
        }
        session.logsForObservers = shared.changes.isObserved
        session.logsFromInside = false
        if session.logsForObservers || captures {
            session.resetChangeLog(tableCount: bindings.count)
        } else {
            session.changeLog = nil
        }
        self.session = session
        noteNewSnapshot()
        // Observers catch up to the state the write starts from (as Realm delivers at beginWrite), so
        // that `commitWrite(withoutNotifying:)` skips exactly this write.
        if !observers.isEmpty { observers.deliver() }
    }

    /// Commits the write. On failure nothing of it is stored and the Store moves to the newest commit.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.mapFull`, `.storage` (for example `ENOSPC`).
    func commitWrite(withoutNotifying skippedObservers: [ObserverState] = []) throws(StoreError) {
        let session = try writableSession()
        let skipped = try observers.observers(of: skippedObservers)
        if outbox.recordsThisWrite, let changes = session.changeLog {
            do {
                let recorded = try outbox.recordedChanges(changes, session: session)
                try outbox.recordCommit(of: recorded.changes, mapKeys: recorded.mapKeys, in: session)
            } catch {
                try? cancelWrite()  // nothing of a write whose changes could not be captured is stored
                throw error
            }
        }
        let version = session.version
        var log = (session.logsForObservers ? session.changeLog : nil).map { changes in
            CommitLog(
                version: version,
                tables: Dictionary(
                    uniqueKeysWithValues: zip(bindings, changes).filter { !$1.isEmpty }.map { ($0.name, $1) }),
                reader: session.logsFromInside ? ObjectIdentifier(self) : nil)
        }
        iterations.detach()
        self.session = nil
        // (A group member's commit is not LMDB's: the group announces its own.)
        let announced = log != nil && commitGroup == nil
        if announced { shared.changes.announce(version) }
        do {
            try session.commit()
        } catch {
            if announced { shared.changes.withdraw(version) }
            ownDeletions.writeRolledBack()
            endWrite(session)
            throw error
        }
        ownDeletions.writeCommitted()
        endWrite(session)
        for observer in skipped where observer.isStarted { observer.rebaseline(version: version) }
        if !skipped.isEmpty { observers.reportPosition() }
        if let commitGroup {
            // (A group's one log is every Store's: one begun inside a member's write is not published.)
            commitGroup.record(session.logsFromInside ? nil : log)  // published when the group commits
        } else {
            if log != nil, shared.changes.wantsSnapshots { log!.snapshot = pinSnapshot(of: version) }
            #if DEBUG
                ChangeHub.runBeforePublishing(environment.path)
            #endif
            shared.changes.published(log)
        }
    }

    /// After the commit group of this Store's `asyncWrite` committed (or failed): moves to the newest
    /// commit, as after a commit of its own.
    func moveAfterGroupCommit() {
        iterations.detach()
        snapshot?.reset()
        noteNewSnapshot()
        try? activateSnapshot()  // a failure here resurfaces on the next read
    }

    /// Rolls back the write.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`.
    func cancelWrite() throws(StoreError) {
        let session = try writableSession()
        iterations.detach()
        self.session = nil
        session.abort()
        ownDeletions.writeRolledBack()
        endWrite(session)
    }

    /// Runs `body` in the open write (`joiningOpenWrite`), or in a write of its own: begun here,
    /// committed after `body`, cancelled if `body` throws. `committed` runs after a commit of its own.
    ///
    /// - Throws: what `body` throws, and what `beginWrite` and `commitWrite` throw.
    @discardableResult
    func inWrite<Result>(
        joiningOpenWrite: Bool = false, _ body: (WriteSession) throws(StoreError) -> Result,
        committed: (Result) -> Void = { _ in }
    ) throws(StoreError) -> Result {
        if joiningOpenWrite, session != nil { return try body(writableSession()) }
        try beginWrite()
        do {
            let result = try body(session!)
            try commitWrite()
            committed(result)
            return result
        } catch {
            if session != nil { try? cancelWrite() }  // a rollback stores nothing: its failure loses nothing
            throw error
        }
    }

    /// Logs what `session` does from now on for this Store's observers, when it logged nothing for
    /// them: an observer registered inside the write (the first read of a watched object) stands at
    /// the write's start, and without a log it would take the write for one that changed everything.
    /// The log then holds the changes made from now on, which is all such an observer needs: no
    /// observer of the file stood before the write, and what the write did before was read by this
    /// one as done. (With a change capture's log, kept from the start, the log is every Store's.)
    func logForNewObserver(_ session: WriteSession) {
        guard !session.logsForObservers else { return }
        if session.changeLog == nil {
            session.resetChangeLog(tableCount: bindings.count)
            session.logsFromInside = true
        }
        session.logsForObservers = true
    }

    private func endWrite(_ session: WriteSession) {
        idleSession = session
        noteNewSnapshot()
        // Renew now so that reads after a commit never fail; a failure here resurfaces on the next read.
        try? activateSnapshot()
    }

    // MARK: What managed objects ask (ObjectContext)

    override func currentRow(of object: Object) throws(StoreError) -> RowView {
        try managedRow(of: object)
    }

    override func columnBytes(of object: Object, column: Int) -> UnsafeRawBufferPointer? {
        managedColumnBytes(of: object, column: column)
    }

    override func setColumn(
        of object: Object, column: Int, linkedObjects: () -> [Object],
        encode: (inout _RowEncoder) throws(StoreError) -> Void
    ) {
        changeColumn(of: object, column: column, linkedObjects: linkedObjects, encode: encode)
    }

    override func linkedObject<T: Object>(_ type: T.Type, keyBytes: UnsafeRawBufferPointer) throws(StoreError) -> T? {
        let binding = try binding(for: type)
        let key: RowKey
        do {
            key = try RowKey(stored: keyBytes, kind: binding.keyKind)
        } catch {
            throw .corrupted("a link to \(binding.name): \(error)")
        }
        return try object(type, binding: binding, key: key)
    }

    override func linkedObject(typeNamed typeName: String, keyBytes: UnsafeRawBufferPointer) throws(StoreError)
        -> Object?
    {
        guard let binding = tables.existingBinding(named: typeName) else { return nil }
        return try linkedObject(binding.schema.type, keyBytes: keyBytes)
    }

    override func object<T: Object>(_ type: T.Type, key: RowKey) throws(StoreError) -> T? {
        try object(type, binding: binding(for: type), key: key)
    }

    override func observeCommits(of object: Object) {
        commitObservation.watch(object)
    }

    override func backlinks(to key: RowKey, from origin: Object.Type, through property: String) throws(StoreError)
        -> [RowKey]?
    {
        let originBinding = try binding(for: origin)
        guard let link = originBinding.links.first(where: { $0.property == property }) else { return nil }
        return try backlinks(to: key, through: link, origin: originBinding)
    }
}
