import Dispatch
import Synchronization

/// The order in which this process's writers of one file take LMDB's writer lock: first come, first
/// served, whether a thread waits for its turn (blocked) or a task does (suspended, holding no
/// thread). LMDB's own lock would block the thread of every writer behind another of this process;
/// through the gate, only another process's writer can make a thread wait inside LMDB, and an
/// `asyncWrite` waits for this process's writers without holding a thread of the cooperative pool.
final class WriterGate: Sendable {
    /// What a turn can carry from one task to the next: a commit group (Core's `CommitGroup`) that the
    /// tasks join.
    protocol SharedTurn: AnyObject, Sendable {}

    private enum Waiter {
        case thread(DispatchSemaphore)
        /// A task's continuation, resumed with the commit group it joins (nil: a turn of its own).
        case task(CheckedContinuation<(any SharedTurn)?, Never>)
    }

    /// The turn's holder and those waiting for it: an uncontended turn is one atomic add to take and
    /// one to give back, with no lock.
    private let contenders = Atomic<Int>(0)

    private struct Queue {
        var waiters: [Waiter] = []
        /// Turns given back while their next holder had counted itself but not yet queued.
        var handoffs = 0
    }

    private let queue = Locked(Queue())

    /// Takes the turn, blocking the calling thread until it comes.
    func enter() {
        guard !takeUncontended() else { return }
        let turn: DispatchSemaphore? = queue.withLock { queue in
            if queue.handoffs > 0 {
                queue.handoffs -= 1
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            queue.waiters.append(.thread(semaphore))
            return semaphore
        }
        turn?.wait()
    }

    /// Takes the turn, suspending the calling task (no thread held) until it comes. Returns what the
    /// task joins when the turn was passed on within a group (`passTurn(within:)`), nil when the turn
    /// is the task's own.
    func enterAsync() async -> (any SharedTurn)? {
        guard !takeUncontended() else { return nil }
        return await withCheckedContinuation { (continuation: CheckedContinuation<(any SharedTurn)?, Never>) in
            let handedOver = queue.withLock { queue in
                if queue.handoffs > 0 {
                    queue.handoffs -= 1
                    return true
                }
                queue.waiters.append(.task(continuation))
                return false
            }
            if handedOver { continuation.resume(returning: nil) }
        }
    }

    /// Passes the turn from one member of `group` to the task first in line, which joins the group;
    /// false when a thread is first in line, or nobody (the group then commits and `leave()`s).
    func passTurn(within group: any SharedTurn) -> Bool {
        let next: CheckedContinuation<(any SharedTurn)?, Never>? = queue.withLock { queue in
            guard case .task(let continuation)? = queue.waiters.first else { return nil }
            queue.waiters.removeFirst()
            return continuation
        }
        guard let next else { return false }
        contenders.subtract(1, ordering: .acquiringAndReleasing)  // the next holder is counted already
        next.resume(returning: group)
        return true
    }

    /// Ends the turn: the first waiter gets it directly, or the next one to queue.
    func leave() {
        guard contenders.subtract(1, ordering: .acquiringAndReleasing).oldValue > 1 else { return }
        let next: Waiter? = queue.withLock { queue in
            guard !queue.waiters.isEmpty else {
                queue.handoffs += 1
                return nil
            }
            return queue.waiters.removeFirst()
        }
        switch next {
        case .thread(let semaphore): semaphore.signal()
        case .task(let continuation): continuation.resume(returning: nil)
        case nil: break
        }
    }

    /// A round trip through the gate's lock. What a thread wrote before its fence is ordered before
    /// what another thread reads after its own later fence, for ThreadSanitizer too: it does not see
    /// the runtime's ordering when a continuation is resumed before its task has suspended, the way a
    /// commit group reaches the task that joins it.
    func fence() {
        queue.withLock { _ in }
    }

    /// Whether a task (an `asyncWrite`) is first in line.
    var isTaskFirstInLine: Bool {
        queue.withLock { queue in
            if case .task? = queue.waiters.first { true } else { false }
        }
    }

    /// How many threads and tasks wait in line (for tests and diagnostics).
    var waitingCount: Int { queue.withLock { $0.waiters.count } }

    /// Counts the caller in; true when no one held the turn (it is the caller's now).
    private func takeUncontended() -> Bool {
        contenders.add(1, ordering: .acquiringAndReleasing).oldValue == 0
    }
}
