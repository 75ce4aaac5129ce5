extension SignalProducer {
    /// Sends `value` first, then starts this producer.
    ///
    /// ```swift
    /// state.prefix(value: .loading)
    /// ```
    public func prefix(value: Value) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            observer.send(value: value)
            guard !lifetime.hasEnded else { return }
            self.start(observer, interruptedBy: lifetime)
        }
    }
}
