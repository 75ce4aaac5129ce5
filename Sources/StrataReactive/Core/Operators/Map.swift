extension SignalProducer {
    /// Transforms each value.
    ///
    /// ```swift
    /// store.reactive.objects(Person.self).map(\.count)
    /// ```
    public func map<U>(_ transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        relay { observer, _ in { event in observer.send(event.map(transform)) } }
    }
}
