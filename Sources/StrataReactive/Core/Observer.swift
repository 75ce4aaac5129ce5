extension Signal {
    /// Receives a signal's events; the input of a pipe or of a producer's start handler sends them.
    ///
    /// ```swift
    /// SignalProducer<Int, Never> { observer, _ in
    ///     observer.send(value: 1)
    ///     observer.sendCompleted()
    /// }
    /// ```
    public final class Observer: Sendable {
        /// `@unchecked Sendable`: the action is immutable; a signal calls it one event at a time.
        private struct Action: @unchecked Sendable {
            let run: (Event) -> Void
        }

        private let action: Action

        /// An observer that hands every event to `action`.
        public init(_ action: @escaping (Event) -> Void) {
            self.action = Action(run: action)
        }

        /// An observer with a closure per kind of event (any may be nil).
        public convenience init(
            value: ((Value) -> Void)? = nil, failed: ((Error) -> Void)? = nil, completed: (() -> Void)? = nil,
            interrupted: (() -> Void)? = nil
        ) {
            self.init { event in
                switch event {
                case .value(let sent): value?(sent)
                case .failed(let error): failed?(error)
                case .completed: completed?()
                case .interrupted: interrupted?()
                }
            }
        }

        /// Sends `event`; after a terminating event, the signal ignores anything more.
        public func send(_ event: Event) {
            action.run(event)
        }

        /// Sends a value.
        public func send(value: Value) {
            send(.value(value))
        }

        /// Fails: ends the stream with `error`.
        public func send(error: Error) {
            send(.failed(error))
        }

        /// Ends the stream successfully.
        public func sendCompleted() {
            send(.completed)
        }

        /// Ends the stream as cancelled (what disposing a producer sends).
        public func sendInterrupted() {
            send(.interrupted)
        }
    }
}
