import CLMDB

/// The LMDB write transaction of a commit group: begun and committed (or aborted) on the group's own
/// thread, while the members' writes run, one at a time, in transactions nested in it on their own
/// threads (`WriteTransaction(nestedIn:)`).
///
/// This bends one rule of lmdb.h ("A transaction and its cursors must only be used by a single
/// thread"). Why it is safe here, for a write transaction of an environment opened with `MDB_NOTLS`:
/// - LMDB keeps no thread-local state for a write transaction; what belongs to a thread is the writer
///   mutex, which this type locks in `begin` and unlocks in `commit`/`abort`, both on the group's
///   thread (`CommitGroup`).
/// - While a member's nested transaction is open the group's thread only waits; the parent is not
///   touched by two threads at once (lmdb.h: a parent with an active child may only commit or abort,
///   and the group commits only after the last member's nested transaction ended).
/// - Each use is ordered after the previous one by the writer's turn (`WriterGate.passTurn`, a lock
///   hand-off), which makes the previous thread's writes to LMDB's memory visible to the next.
/// Docs/Concurrency.md says the same for users.
final class GroupTransaction: @unchecked Sendable {  // used by one thread at a time (see above)
    let environment: Environment
    fileprivate let handle: OpaquePointer
    private var isFinished = false

    /// Begins the group's top-level write transaction; the caller holds the writer's turn.
    ///
    /// - Throws: what beginning an LMDB write transaction throws.
    init(_ environment: Environment) throws(LMDBError) {
        self.environment = environment
        handle = try environment.beginTransaction(flags: 0)
    }

    /// The id the commit will have.
    var version: Int { LMDB.transactionID(handle) }

    /// Commits: one sync makes every member's write durable. Frees the transaction even when it fails.
    ///
    /// - Throws: what `mdb_txn_commit` returns (`MDB_MAP_FULL`, an I/O error…).
    func commit() throws(LMDBError) {
        precondition(!isFinished, "a group's transaction ends once")
        isFinished = true
        defer { environment.transactionEnded() }
        try LMDB.commit(handle)
    }

    /// Aborts, undoing every member's write.
    func abort() {
        precondition(!isFinished, "a group's transaction ends once")
        isFinished = true
        LMDB.abort(handle)
        environment.transactionEnded()
    }

    deinit {
        if !isFinished { abort() }
    }
}

extension WriteTransaction {
    /// Begins a write nested in a commit group's transaction, begun on another thread and left idle
    /// meanwhile: it commits into the group, whose own commit makes it durable. Whoever began the
    /// group holds the writer's turn and LMDB's lock.
    init(nestedIn group: GroupTransaction) throws(LMDBError) {
        try self.init(nestedIn: group.handle, of: group.environment)
    }
}
