extension SignalProducer {
    /// Starts every producer at once and forwards all their values; completes when all have ended, and
    /// fails when any of them fails (one that is interrupted counts as completed, as in ReactiveSwift).
    ///
    /// ```swift
    /// SignalProducer.merge([repository.items.map(State.items), syncFailures.map(State.syncFailed)])
    /// ```
    public static func merge<S: Sequence>(_ producers: S) -> SignalProducer<Value, Error>
    where S.Element == SignalProducer<Value, Error> {
        SignalProducer<SignalProducer<Value, Error>, Error>(producers).flatten(.merge)
    }

    /// `merge([a, b, …])`.
    public static func merge(_ producers: SignalProducer<Value, Error>...) -> SignalProducer<Value, Error> {
        merge(producers)
    }
}
