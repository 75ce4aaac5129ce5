extension SignalProducer {
    /// Turns every event, the terminating one included, into a value, then completes: a failure no
    /// longer ends whatever the producer is merged into.
    ///
    /// ```swift
    /// sync().materialize().filter { $0.error != nil }   // failures, as values
    /// ```
    public func materialize() -> SignalProducer<Signal<Value, Error>.Event, Never> {
        relay { observer, _ in
            { event in
                observer.send(value: event)
                if event.isTerminating { observer.sendCompleted() }
            }
        }
    }
}

extension SignalProducer where Error == Never {
    /// The inverse of `materialize()`: sends the events the values describe.
    public func dematerialize<V, E>() -> SignalProducer<V, E> where Value == Signal<V, E>.Event {
        relay { observer, _ in
            { event in
                switch event {
                case .value(let inner): observer.send(inner)
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}
