extension SignalProducer {
    /// A producer that, on each start, starts this one and hands its events to the handler that
    /// `makeHandler` builds for that start (with the new signal's input and lifetime): the building
    /// block of the single-source operators. Per-start state lives in the handler's closure; the
    /// upstream's events are serial, so it needs no lock.
    func relay<U, F>(
        _ makeHandler: @escaping (Signal<U, F>.Observer, Lifetime) -> (Signal<Value, Error>.Event) -> Void
    ) -> SignalProducer<U, F> {
        SignalProducer<U, F> { observer, lifetime in
            let handler = makeHandler(observer, lifetime)
            self.start(Signal.Observer(handler), interruptedBy: lifetime)
        }
    }
}
