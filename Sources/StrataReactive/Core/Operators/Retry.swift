extension SignalProducer {
    /// Starts the work again after a failure, at most `count` times; the last failure is forwarded.
    ///
    /// ```swift
    /// api.fetchTodos().retry(upTo: 2)   // at most three attempts
    /// ```
    public func retry(upTo count: Int) -> SignalProducer<Value, Error> {
        precondition(count >= 0, "retry(upTo:) needs a count of at least 0")
        return SignalProducer { observer, lifetime in
            var remaining = count
            func attempt() {
                // Each attempt joins the lifetime; an earlier one, terminated, does nothing when disposed.
                self.start(interruptedBy: lifetime) { event in
                    if case .failed = event, remaining > 0, !lifetime.hasEnded {
                        remaining -= 1
                        attempt()
                    } else {
                        observer.send(event)
                    }
                }
            }
            attempt()
        }
    }
}
