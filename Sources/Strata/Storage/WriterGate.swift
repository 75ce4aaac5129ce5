import Dispatch
import Synchronization

/// The order in which this process's writers of one file take LMDB's writer lock: first come, first
/// served, whether a thread waits for its turn (blocked) or a task does (suspended, holding no
/// thread). LMDB's own lock would block the thread of every writer behind another of this process;
/// through the gate, only another process's writer can make a thread wait inside LMDB, and an
/// `asyncWrite` waits for this process's writers without holding a thread of the cooperative pool.
final class WriterGate: Sendable {
    private enum Waiter {
        case thread(DispatchSemaphore)
        case task(CheckedContinuation<Void, Never>)
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

    /// Takes the turn, suspending the calling task (no thread held) until it comes.
    func enterAsync() async {
        guard !takeUncontended() else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let handedOver = queue.withLock { queue in
                if queue.handoffs > 0 {
                    queue.handoffs -= 1
                    return true
                }
                queue.waiters.append(.task(continuation))
                return false
            }
            if handedOver { continuation.resume() }
        }
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
        case .task(let continuation): continuation.resume()
        case nil: break
        }
    }

    /// Counts the caller in; true when no one held the turn (it is the caller's now).
    private func takeUncontended() -> Bool {
        contenders.add(1, ordering: .acquiringAndReleasing).oldValue == 0
    }
}
