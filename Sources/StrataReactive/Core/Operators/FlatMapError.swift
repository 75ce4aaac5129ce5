extension SignalProducer {
    /// On failure, continues with the producer `transform` makes of the error.
    ///
    /// ```swift
    /// api.fetchTodos().flatMapError { _ in SignalProducer(value: cachedTodos) }
    /// ```
    public func flatMapError<F>(_ transform: @escaping (Error) -> SignalProducer<Value, F>) -> SignalProducer<Value, F>
    {
        relay { observer, lifetime in
            { event in
                switch event {
                case .value(let value): observer.send(value: value)
                case .failed(let error): transform(error).start(observer, interruptedBy: lifetime)
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}
