extension SignalProducer {
    /// Folds the values into an accumulated value, sending each intermediate result.
    ///
    /// ```swift
    /// SignalProducer([1, 2, 3]).scan(0, +)   // 1, 3, 6
    /// ```
    public func scan<U>(_ initial: U, _ next: @escaping (U, Value) -> U) -> SignalProducer<U, Error> {
        relay { observer, _ in
            var accumulated = initial
            return { event in
                observer.send(
                    event.map { value in
                        accumulated = next(accumulated, value)
                        return accumulated
                    })
            }
        }
    }
}
