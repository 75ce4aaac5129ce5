extension SignalProducer {
    /// Runs side effects for the producer's life cycle and events, each before the event is forwarded.
    ///
    /// ```swift
    /// sync().on(started: { spinner.start() }, terminated: { spinner.stop() })
    /// ```
    /// `starting` runs before the work starts, `started` after its start handler returned;
    /// `terminated` after any terminating event; `disposed` when the work's lifetime ends.
    public func on(
        starting: (() -> Void)? = nil, started: (() -> Void)? = nil,
        event: ((Signal<Value, Error>.Event) -> Void)? = nil, value: ((Value) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil, completed: (() -> Void)? = nil, interrupted: (() -> Void)? = nil,
        terminated: (() -> Void)? = nil, disposed: (() -> Void)? = nil
    ) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            starting?()
            self.start(interruptedBy: lifetime) { sent in
                event?(sent)
                switch sent {
                case .value(let sentValue): value?(sentValue)
                case .failed(let error): failed?(error)
                case .completed: completed?()
                case .interrupted: interrupted?()
                }
                if sent.isTerminating { terminated?() }
                observer.send(sent)
            }
            // After the work's disposable: when the lifetime ends, the work is interrupted first.
            if let disposed { lifetime.observeEnded(disposed) }
            started?()
        }
    }
}
