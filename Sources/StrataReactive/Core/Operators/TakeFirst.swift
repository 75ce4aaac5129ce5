extension SignalProducer {
    /// Forwards the first `count` values, then completes and interrupts the work (0: is interrupted at
    /// once without starting it, as in ReactiveSwift).
    public func take(first count: Int) -> SignalProducer<Value, Error> {
        precondition(count >= 0, "take(first:) needs a count of at least 0")
        guard count > 0 else { return SignalProducer { observer, _ in observer.sendInterrupted() } }
        return relay { observer, _ in
            var taken = 0
            return { event in
                observer.send(event)
                guard case .value = event else { return }
                taken += 1
                if taken == count { observer.sendCompleted() }
            }
        }
    }
}
