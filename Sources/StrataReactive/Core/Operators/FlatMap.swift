import Foundation

extension SignalProducer {
    /// Makes a producer of each value and combines their values by `strategy`.
    ///
    /// ```swift
    /// searchText.flatMap(.latest) { text in api.search(text) }
    /// ```
    /// It completes when this producer and every inner producer it started have ended; it fails as
    /// soon as any of them fails, and is interrupted when this producer is. An interrupted inner
    /// producer counts as completed (as in ReactiveSwift): the others go on. Any number of inner
    /// producers that end at once (10,000 synchronous ones under `.concat`) run one after another,
    /// never nested on the stack.
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Error>
    ) -> SignalProducer<U, Error> {
        SignalProducer<U, Error> { observer, lifetime in
            let flattening = Flattening(strategy: strategy, observer: observer, lifetime: lifetime)
            self.start(interruptedBy: lifetime) { event in
                switch event {
                case .value(let value): flattening.add(transform(value))
                case .failed(let error): observer.send(error: error)
                case .completed: flattening.outerCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}

extension SignalProducer where Value: _SignalProducerConvertible, Value.Failure == Error {
    /// Combines the producers this one sends by `strategy` (`flatMap(strategy) { $0 }`).
    public func flatten(_ strategy: FlattenStrategy) -> SignalProducer<Value.Output, Error> {
        flatMap(strategy) { $0._producer }
    }
}

/// Implementation detail of `flatten(_:)`: a SignalProducer, seen through its type parameters.
public protocol _SignalProducerConvertible {
    associatedtype Output
    associatedtype Failure: Swift.Error
    var _producer: SignalProducer<Output, Failure> { get }
}

extension SignalProducer: _SignalProducerConvertible {
    public var _producer: SignalProducer<Value, Error> { self }
}

/// The state of one started `flatMap`: inner producers come from the outer signal's thread and
/// finish on theirs, so it is guarded by a recursive lock (an inner producer may complete inside
/// `add`, on the same thread). Events are forwarded under the lock, which keeps them in order.
private final class Flattening<Value, Error: Swift.Error>: @unchecked Sendable {
    private let strategy: FlattenStrategy
    private let observer: Signal<Value, Error>.Observer
    private let lifetime: Lifetime
    private let lock = NSRecursiveLock()
    private var isOuterCompleted = false
    /// Inner producers running (merge), or 0/1 (concat, latest).
    private var running = 0
    /// Inner producers waiting their turn (concat), from `nextQueued` on.
    private var queued: [SignalProducer<Value, Error>] = []
    private var nextQueued = 0
    /// Whether `startNextQueued` is already starting producers further up the stack: an inner
    /// producer that completes while it starts is followed by that loop, not by a nested call.
    private var isStartingQueued = false
    /// Which inner producer is the newest (latest): older ones' events are ignored.
    private var generation = 0
    private let latest = SerialDisposable()

    init(strategy: FlattenStrategy, observer: Signal<Value, Error>.Observer, lifetime: Lifetime) {
        self.strategy = strategy
        self.observer = observer
        self.lifetime = lifetime
        lifetime += latest
    }

    func add(_ inner: SignalProducer<Value, Error>) {
        lock.withLock {
            switch strategy {
            case .merge:
                running += 1
                inner.start(interruptedBy: lifetime) { [self] event in innerEvent(event, generation: nil) }
            case .concat:
                queued.append(inner)
                startNextQueued()
            case .latest:
                generation += 1
                let current = generation
                running = 1
                latest.inner = nil  // the previous one is interrupted before the next starts
                let (innerLifetime, token) = Lifetime.make()
                latest.inner = AnyDisposable { token.dispose() }
                inner.start(interruptedBy: innerLifetime) { [self] event in innerEvent(event, generation: current) }
            }
        }
    }

    func outerCompleted() {
        lock.withLock {
            isOuterCompleted = true
            completeIfDone()
        }
    }

    private func startNextQueued() {
        guard !isStartingQueued else { return }  // the loop further up starts it
        isStartingQueued = true
        defer { isStartingQueued = false }
        while running == 0, nextQueued < queued.count, !lifetime.hasEnded {
            running = 1
            let next = queued[nextQueued]
            nextQueued += 1
            if nextQueued == queued.count {
                queued.removeAll(keepingCapacity: true)
                nextQueued = 0
            }
            next.start(interruptedBy: lifetime) { [self] event in innerEvent(event, generation: nil) }
        }
    }

    private func innerEvent(_ event: Signal<Value, Error>.Event, generation eventGeneration: Int?) {
        lock.withLock {
            if let eventGeneration, eventGeneration != generation { return }  // superseded (latest)
            switch event {
            case .value, .failed:
                observer.send(event)
            case .completed, .interrupted:
                running -= 1
                if strategy == .concat { startNextQueued() }
                completeIfDone()
            }
        }
    }

    private func completeIfDone() {
        if isOuterCompleted, running == 0, nextQueued >= queued.count { observer.sendCompleted() }
    }
}
