import Dispatch
import Foundation

/// Group commit: the `asyncWrite`s of one file that queue up behind each other while a durable
/// (`.full`) write is under way share one LMDB transaction, and so one sync. Each member's block runs
/// in a transaction nested in the group's (so a block that throws undoes only itself), one member at a
/// time, each in its own isolation; the group commits when no task is left in line, and only then
/// are its members resumed. A power cut or a killed process loses the whole group or none of it, and
/// no member has returned before the group is durable.
///
/// Why not LMDB's `MDB_NOSYNC` commits and one `mdb_env_sync` after them: LMDB keeps two meta pages
/// and writes commit N's to page N % 2, so the second unsynced commit overwrites the meta page of the
/// last durable one, and pages freed by the first may be reused by the second; a power cut before the
/// sync can then leave neither version whole (LMDB's manual: `MDB_NOSYNC` "can corrupt the database").
///
/// LMDB's writer lock belongs to the thread that took it: the group's transaction is begun and
/// committed on one thread of its own, which waits, blocked, while the members write (and begins the
/// next group when a task waits in line).
final class CommitGroup: WriterGate.SharedTurn, @unchecked Sendable {
    let environment: Environment

    /// The group's LMDB transaction. Used by one member at a time (the holder of the writer's turn),
    /// through a nested transaction; the turn's hand-offs order the members' accesses.
    let transaction: GroupTransaction

    private struct State {
        /// Per member write committed into the group: its change log (nil: not logged).
        var logs: [CommitLog?] = []
        /// Members waiting for the group to be durable.
        var waiting: [CheckedContinuation<Void, any Error>] = []
        var turns = 0
    }

    private let state = Locked(State())
    private let closed = DispatchSemaphore(value: 0)
    private let changes: ChangeHub
    private let pin: @Sendable (Int) -> PinnedSnapshot?

    /// Turns taken in one group at most: a group ends even while tasks keep queuing, so that the
    /// threads in line behind it (and other processes) get the writer too.
    static let maximumTurns = 256

    private init(
        environment: Environment, transaction: GroupTransaction, changes: ChangeHub,
        pin: @escaping @Sendable (Int) -> PinnedSnapshot?
    ) {
        self.environment = environment
        self.transaction = transaction
        self.changes = changes
        self.pin = pin
        environment.writerGate.fence()  // the group's fields, for the member it is handed to
    }

    /// Begins a group on a thread of its own, for the caller, who holds the writer's turn. When it
    /// cannot begin, the turn is given back.
    ///
    /// - Throws: what beginning an LMDB write transaction throws (`.storage`, `.readersFull`…).
    static func begin(
        _ environment: Environment, changes: ChangeHub, pin: @escaping @Sendable (Int) -> PinnedSnapshot?
    ) async throws -> CommitGroup {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CommitGroup, any Error>) in
            // A thread of its own, not a global queue's: it blocks while the members write, and a
            // global queue has as many threads as cores (two blocked groups would stall a third).
            Thread {
                let transaction: GroupTransaction
                do throws(LMDBError) {
                    transaction = try GroupTransaction(environment)
                } catch {
                    environment.writerGate.leave()
                    continuation.resume(throwing: StoreError(error))
                    return
                }
                var group = CommitGroup(environment: environment, transaction: transaction, changes: changes, pin: pin)
                continuation.resume(returning: group)
                while let next = group.commitWhenClosed() { group = next }
            }.start()
        }
    }

    /// Records the change log of a member's write committed into the group (one per nested commit).
    func record(_ log: CommitLog?) {
        state.withLock { $0.logs.append(log) }
    }

    /// Ends a member's turn: the next task in line joins the group and writes, or the group commits.
    /// `durable`, when given, is resumed once the group is durable (or throws why it is not).
    func endTurn(resumingWhenDurable durable: CheckedContinuation<Void, any Error>?) {
        let turns = state.withLock { state in
            if let durable { state.waiting.append(durable) }
            state.turns += 1
            return state.turns
        }
        if turns < Self.maximumTurns, environment.writerGate.passTurn(within: self) { return }
        closed.signal()
    }

    /// On the group's thread, once the group is closed: commits (one sync), publishes the members'
    /// changes as one commit, hands the turn on and resumes the members. Returns the next group
    /// when a task was first in line (begun here, on the same thread, and given the turn: it saves the
    /// task a trip to a new thread), nil when the turn was given back.
    private func commitWhenClosed() -> CommitGroup? {
        closed.wait()
        let version = transaction.version
        let logs = state.withLock { $0.logs }
        var log = logs.isEmpty ? nil : mergedLog(logs, version: version)
        if log != nil { changes.announce(version) }
        let outcome: Result<Void, StoreError>
        do throws(LMDBError) {
            #if DEBUG
                if let fault = Self.injectedFault(for: environment.path) {
                    transaction.abort()
                    throw fault
                }
            #endif
            try transaction.commit()  // frees the transaction even when it fails
            outcome = .success(())
        } catch {
            outcome = .failure(StoreError(error))
        }
        // Published before the next group begins: its LMDB transaction may wait for another
        // process's writer, and Stores that show this commit wait for its log.
        if outcome.isSuccess {
            if log != nil, changes.wantsSnapshots { log!.snapshot = pin(version) }
            #if DEBUG
                ChangeHub.runBeforePublishing(environment.path)
            #endif
            if !logs.isEmpty { changes.published(log) }
        } else if log != nil {
            changes.withdraw(version)
        }
        let next = outcome.isSuccess ? nextGroup() : nil
        if next == nil { environment.writerGate.leave() }
        let waiting = state.withLock { $0.waiting }
        for member in waiting { member.resume(with: outcome) }
        return next
    }

    /// A group for the task first in line, if one is, holding the turn this group passes to it.
    private func nextGroup() -> CommitGroup? {
        let gate = environment.writerGate
        guard gate.isTaskFirstInLine,
            let transaction = try? GroupTransaction(environment)
        else { return nil }
        let next = CommitGroup(environment: environment, transaction: transaction, changes: changes, pin: pin)
        guard gate.passTurn(within: next) else {  // only the turn's holder takes waiters: not expected
            transaction.abort()
            return nil
        }
        return next
    }

    /// One log for the group's commit (its snapshot pinned once committed); nil (not logged: observers
    /// compare) if one member's was not.
    private func mergedLog(_ logs: [CommitLog?], version: Int) -> CommitLog? {
        var tables: [String: TableChanges] = [:]
        for log in logs {
            guard let log else { return nil }
            for (type, changes) in log.tables { tables[type, default: TableChanges()].append(changes) }
        }
        return CommitLog(version: version, tables: tables)
    }
}

#if DEBUG
    extension CommitGroup {
        /// Per file path, what runs on the group's thread just before it commits: a test can hold the
        /// group open, or make its commit fail with the error it returns.
        static let beforeCommit = Locked<[String: @Sendable () -> LMDBError?]>([:])

        fileprivate static func injectedFault(for path: String) -> LMDBError? {
            beforeCommit.withLock { $0[path] }?()
        }
    }
#endif

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
