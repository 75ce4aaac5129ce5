import Foundation

/// A stream of events that is already under way: observing it has no side effect, and every observer
/// sees the same events in the same order (the ones sent after it began observing).
///
/// ```swift
/// let (signal, input) = Signal<Int, Never>.pipe()
/// signal.observeValues { print($0) }
/// input.send(value: 1)
/// input.sendCompleted()
/// ```
/// The contract (Docs/ReactiveContracts.md): events follow `value* (failed | completed | interrupted)?`;
/// they are delivered one at a time, even when sent from several threads; a value sent from inside
/// an observer of the same signal traps (events are never recursive), while a terminating event sent
/// during a delivery waits for that delivery to finish. After the terminating event the observers are
/// released and the signal's lifetime ends, disposing its resources.
public final class Signal<Value, Error: Swift.Error>: @unchecked Sendable {  // state under `stateLock`
    private enum State {
        case alive
        /// A terminating event is waiting for the delivery under way to finish.
        case terminating(Event)
        case terminated
    }

    private let stateLock = NSLock()
    /// Held while observers run: delivery is serial.
    private let sendLock = NSLock()
    private var state = State.alive
    private var observers: [(token: UInt64, observer: Observer)] = []
    private var nextToken: UInt64 = 0
    /// The thread delivering, to catch a recursive send instead of deadlocking on it.
    private var sendingThread: pthread_t?
    private let resources = CompositeDisposable()

    private init() {}

    /// A signal fed by `generator`, which runs at once with the signal's input and lifetime.
    public convenience init(_ generator: (Observer, Lifetime) -> Void) {
        self.init()
        generator(input, Lifetime(resources))
    }

    /// A signal and the observer that sends its events.
    public static func pipe() -> (output: Signal, input: Observer) {
        let signal = Signal()
        return (signal, signal.input)
    }

    /// A signal, its input and lifetime, for `SignalProducer.start`: observed before its work starts.
    static func produced() -> (signal: Signal, input: Observer, lifetime: Lifetime) {
        let signal = Signal()
        return (signal, signal.input, Lifetime(signal.resources))
    }

    private var input: Observer {
        Observer { [self] event in send(event) }
    }

    /// Whether the terminating event has been sent (or is about to be).
    var isTerminated: Bool {
        stateLock.withLock {
            if case .alive = state { return false }
            return true
        }
    }

    /// Adds an observer. On a signal that has terminated, the observer gets `.interrupted` at once.
    /// The result stops the observation (without interrupting the signal).
    @discardableResult
    public func observe(_ observer: Observer) -> Disposable? {
        let token: UInt64? = stateLock.withLock {
            if case .terminated = state { return nil }
            nextToken += 1
            observers.append((nextToken, observer))
            return nextToken
        }
        guard let token else {
            observer.sendInterrupted()
            return nil
        }
        return AnyDisposable { [weak self] in
            guard let self else { return }
            stateLock.withLock { observers.removeAll { $0.token == token } }
        }
    }

    private func send(_ event: Event) {
        guard case .value = event else {
            let accepted: Bool = stateLock.withLock {
                guard case .alive = state else { return false }
                state = .terminating(event)
                return true
            }
            if accepted { tryToCommitTermination() }
            return
        }
        // Checked before taking the send lock, which this thread may hold: during a delivery (a
        // recursive send, a contract violation) or while delivering the terminating event (when the
        // signal no longer takes values anyway).
        let (isAlive, isRecursive) = stateLock.withLock {
            guard case .alive = state else { return (false, false) }
            return (true, sendingThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false)
        }
        guard isAlive else { return }
        precondition(!isRecursive, "StrataReactive: a value was sent to a Signal from inside one of its own observers")
        sendLock.lock()
        let current: [(token: UInt64, observer: Observer)]? = stateLock.withLock {
            guard case .alive = state else { return nil }
            sendingThread = pthread_self()
            return observers
        }
        if let current {
            for (_, observer) in current { observer.send(event) }
            stateLock.withLock { sendingThread = nil }
        }
        sendLock.unlock()
        let pending = stateLock.withLock {
            if case .terminating = state { return true }
            return false
        }
        if pending { tryToCommitTermination() }
    }

    /// Delivers the waiting terminating event, unless a delivery is under way: its sender does it
    /// when it finishes. This is what lets a signal be disposed from inside its own observer, or
    /// from another thread, without waiting on (or deadlocking with) the delivery.
    private func tryToCommitTermination() {
        guard sendLock.try() else { return }
        let committed: (Event, [(token: UInt64, observer: Observer)])? = stateLock.withLock {
            guard case .terminating(let event) = state else { return nil }
            state = .terminated
            defer { observers = [] }
            return (event, observers)
        }
        if let (event, current) = committed {
            for (_, observer) in current { observer.send(event) }
        }
        sendLock.unlock()
        if committed != nil { resources.dispose() }
    }
}

extension Signal {
    /// Observes every event with `action`.
    @discardableResult
    public func observe(_ action: @escaping (Event) -> Void) -> Disposable? {
        observe(Observer(action))
    }

    /// Observes the values only.
    @discardableResult
    public func observeValues(_ action: @escaping (Value) -> Void) -> Disposable? {
        observe(Observer(value: action))
    }

    /// Observes values as `.success` and the failure as `.failure`.
    @discardableResult
    public func observeResult(_ action: @escaping (Result<Value, Error>) -> Void) -> Disposable? {
        observe(Observer(value: { action(.success($0)) }, failed: { action(.failure($0)) }))
    }
}
