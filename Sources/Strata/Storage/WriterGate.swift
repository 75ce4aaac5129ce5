import Dispatch

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

    private struct State {
        var isHeld = false
        var waiters: [Waiter] = []

        mutating func takeIfFree() -> Bool {
            guard !isHeld else { return false }
            isHeld = true
            return true
        }
    }

    private let state = Locked(State())

    /// Takes the turn, blocking the calling thread until it comes.
    func enter() {
        let turn: DispatchSemaphore? = state.withLock { state in
            guard state.isHeld else {
                state.isHeld = true
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            state.waiters.append(.thread(semaphore))
            return semaphore
        }
        turn?.wait()
    }

    /// Takes the turn, suspending the calling task (no thread held) until it comes.
    func enterAsync() async {
        if state.withLock({ $0.takeIfFree() }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let taken = state.withLock { state in
                if state.takeIfFree() { return true }
                state.waiters.append(.task(continuation))
                return false
            }
            if taken { continuation.resume() }
        }
    }

    /// Ends the turn: the first waiter gets it directly (the gate stays held), else the gate opens.
    func leave() {
        let next: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        switch next {
        case .thread(let semaphore): semaphore.signal()
        case .task(let continuation): continuation.resume()
        case nil: break
        }
    }
}
