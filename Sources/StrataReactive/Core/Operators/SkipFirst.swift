extension SignalProducer {
    /// Drops the first `count` values.
    public func skip(first count: Int) -> SignalProducer<Value, Error> {
        precondition(count >= 0, "skip(first:) needs a count of at least 0")
        return relay { observer, _ in
            var skipped = 0
            return { event in
                if case .value = event, skipped < count {
                    skipped += 1
                    return
                }
                observer.send(event)
            }
        }
    }
}
