/// A recipe for work that sends events: nothing happens until it is started, and each start runs the
/// work again, feeding a new `Signal`.
///
/// ```swift
/// let load = SignalProducer<[Todo], APIError> { observer, lifetime in
///     let request = api.fetchTodos { result in
///         switch result {
///         case .success(let todos): observer.send(value: todos); observer.sendCompleted()
///         case .failure(let error): observer.send(error: error)
///         }
///     }
///     lifetime.observeEnded { request.cancel() }
/// }
/// let disposable = load.startWithResult { print($0) }
/// disposable.dispose()   // cancels the request; the observer gets `.interrupted` instead
/// ```
/// The failure type is part of the signature: `Never` for producers that cannot fail.
public struct SignalProducer<Value, Error: Swift.Error> {
    private let startHandler: (Signal<Value, Error>.Observer, Lifetime) -> Void

    /// A producer whose work is `startHandler`: it runs on each start, on the starting thread, with
    /// the new signal's input and lifetime (which ends when the signal terminates or is interrupted).
    public init(_ startHandler: @escaping (Signal<Value, Error>.Observer, Lifetime) -> Void) {
        self.startHandler = startHandler
    }

    /// Sends `value`, then completes.
    public init(value: Value) {
        self.init { observer, _ in
            observer.send(value: value)
            observer.sendCompleted()
        }
    }

    /// Fails with `error` at once.
    public init(error: Error) {
        self.init { observer, _ in observer.send(error: error) }
    }

    /// Sends the success and completes, or fails.
    public init(result: Result<Value, Error>) {
        switch result {
        case .success(let value): self.init(value: value)
        case .failure(let error): self.init(error: error)
        }
    }

    /// Sends each value, then completes (stopping early if interrupted).
    public init<S: Sequence>(_ values: S) where S.Element == Value {
        self.init { observer, lifetime in
            for value in values {
                guard !lifetime.hasEnded else { return }
                observer.send(value: value)
            }
            observer.sendCompleted()
        }
    }

    /// Completes at once.
    public static var empty: SignalProducer {
        SignalProducer { observer, _ in observer.sendCompleted() }
    }

    /// Never sends anything (until interrupted).
    public static var never: SignalProducer {
        SignalProducer { _, _ in }
    }

    /// Starts the work, sending its events to `observer`. The result interrupts it: the observer then
    /// gets `.interrupted` (unless the work has terminated already) and the work's lifetime ends.
    @discardableResult
    public func start(_ observer: Signal<Value, Error>.Observer = .init()) -> Disposable {
        let (signal, input, lifetime) = Signal<Value, Error>.produced()
        signal.observe(observer)
        startHandler(input, lifetime)
        return Interrupter(signal: signal, input: input, lifetime: lifetime)
    }

    /// Starts the work for an operator: its interruption joins `outer` *before* the work starts, so
    /// that a synchronous producer is stopped even when `outer` ends while the work is still sending
    /// (`take(first:)` on a long sequence). If `outer` has ended already, the work does not start.
    /// When the work ends first, it leaves `outer` (a long-lived `flatMap` keeps nothing per inner
    /// producer that ended).
    func start(_ observer: Signal<Value, Error>.Observer, interruptedBy outer: Lifetime) {
        let (signal, input, lifetime) = Signal<Value, Error>.produced()
        signal.observe(observer)
        let membership = outer.add(Interrupter(signal: signal, input: input, lifetime: lifetime))
        guard !lifetime.hasEnded else { return }
        lifetime += membership
        startHandler(input, lifetime)
    }

    /// `start(_:interruptedBy:)` with an event handler.
    func start(interruptedBy outer: Lifetime, _ action: @escaping (Signal<Value, Error>.Event) -> Void) {
        start(Signal.Observer(action), interruptedBy: outer)
    }

    /// Starts the work, sending every event to `action`.
    @discardableResult
    public func start(_ action: @escaping (Signal<Value, Error>.Event) -> Void) -> Disposable {
        start(Signal.Observer(action))
    }

    /// Starts the work; values arrive as `.success`, the failure as `.failure`.
    @discardableResult
    public func startWithResult(_ action: @escaping (Result<Value, Error>) -> Void) -> Disposable {
        start(Signal.Observer(value: { action(.success($0)) }, failed: { action(.failure($0)) }))
    }

    /// Starts the work, observing only its failure.
    @discardableResult
    public func startWithFailed(_ action: @escaping (Error) -> Void) -> Disposable {
        start(Signal.Observer(failed: action))
    }

    /// Starts the work, observing only its completion.
    @discardableResult
    public func startWithCompleted(_ action: @escaping () -> Void) -> Disposable {
        start(Signal.Observer(completed: action))
    }

    /// Starts the work, observing only its interruption.
    @discardableResult
    public func startWithInterrupted(_ action: @escaping () -> Void) -> Disposable {
        start(Signal.Observer(interrupted: action))
    }
}

extension SignalProducer where Error == Never {
    /// Starts a producer that cannot fail, observing its values.
    @discardableResult
    public func startWithValues(_ action: @escaping (Value) -> Void) -> Disposable {
        start(Signal.Observer(value: action))
    }
}

/// What `start` returns: disposing it interrupts the signal (or, where the work routes interruption
/// through itself, asks the work to); it counts as disposed once the signal has terminated in any way.
private final class Interrupter<Value, Error: Swift.Error>: Disposable {
    private let signal: Signal<Value, Error>
    private let input: Signal<Value, Error>.Observer
    private let lifetime: Lifetime

    init(signal: Signal<Value, Error>, input: Signal<Value, Error>.Observer, lifetime: Lifetime) {
        self.signal = signal
        self.input = input
        self.lifetime = lifetime
    }

    var isDisposed: Bool { signal.isTerminated }

    func dispose() {
        if let route = lifetime.takeInterruptionRoute() {
            route()
        } else {
            input.sendInterrupted()
        }
    }
}
