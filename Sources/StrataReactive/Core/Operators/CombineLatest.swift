import Foundation

extension SignalProducer {
    /// Once both have sent a value, sends the latest of each whenever either sends one. Completes when
    /// both have completed; fails or is interrupted when either does.
    ///
    /// ```swift
    /// SignalProducer.combineLatest(filterText, todos).map { text, todos in todos.filter { … } }
    /// ```
    public static func combineLatest<A, B>(
        _ first: SignalProducer<A, Error>, _ second: SignalProducer<B, Error>
    ) -> SignalProducer<(A, B), Error> where Value == (A, B) {
        SignalProducer { observer, lifetime in
            let latest = LatestPair<A, B, Error>(observer: observer)
            first.start(interruptedBy: lifetime) { event in latest.receive(event, update: { $0.first = $1 }) }
            second.start(interruptedBy: lifetime) { event in latest.receive(event, update: { $0.second = $1 }) }
        }
    }

    /// `combineLatest(self, other)`.
    public func combineLatest<U>(with other: SignalProducer<U, Error>) -> SignalProducer<(Value, U), Error> {
        .combineLatest(self, other)
    }

    /// The latest value of every producer, as an array in their order, once each has sent one.
    public static func combineLatest<S: Sequence>(_ producers: S) -> SignalProducer<[Value], Error>
    where S.Element == SignalProducer<Value, Error> {
        var iterator = producers.makeIterator()
        guard let first = iterator.next() else { return .empty }
        var combined = first.map { [$0] }
        while let next = iterator.next() {
            combined = combined.combineLatest(with: next).map { $0 + [$1] }
        }
        return combined
    }
}

/// The latest value of each side of a `combineLatest`, under a recursive lock (the two sides send on
/// their own threads; a disposal during a delivery re-enters on the same one). Values are forwarded
/// under the lock, which keeps them in order.
private final class LatestPair<A, B, Error: Swift.Error>: @unchecked Sendable {
    var first: A?
    var second: B?
    private var completed = 0
    private let lock = NSRecursiveLock()
    private let observer: Signal<(A, B), Error>.Observer

    init(observer: Signal<(A, B), Error>.Observer) {
        self.observer = observer
    }

    func receive<V>(_ event: Signal<V, Error>.Event, update: (LatestPair, V) -> Void) {
        lock.withLock {
            switch event {
            case .value(let value):
                update(self, value)
                if let first, let second { observer.send(value: (first, second)) }
            case .failed(let error): observer.send(error: error)
            case .interrupted: observer.sendInterrupted()
            case .completed:
                completed += 1
                if completed == 2 { observer.sendCompleted() }
            }
        }
    }
}
