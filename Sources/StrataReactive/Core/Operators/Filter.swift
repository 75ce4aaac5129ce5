extension SignalProducer {
    /// Forwards only the values for which `isIncluded` is true.
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> SignalProducer<Value, Error> {
        relay { observer, _ in
            { event in
                if case .value(let value) = event, !isIncluded(value) { return }
                observer.send(event)
            }
        }
    }
}
