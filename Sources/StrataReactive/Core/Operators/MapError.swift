extension SignalProducer {
    /// Transforms the failure.
    ///
    /// ```swift
    /// person.reactive.add(to: store).mapError(AppError.storage)
    /// ```
    public func mapError<F>(_ transform: @escaping (Error) -> F) -> SignalProducer<Value, F> {
        relay { observer, _ in { event in observer.send(event.mapError(transform)) } }
    }
}

extension SignalProducer where Error == Never {
    /// The same producer with a failure type it never uses, to combine it with producers that can fail.
    public func promoteError<F>(_: F.Type = F.self) -> SignalProducer<Value, F> {
        mapError { never -> F in }
    }
}
