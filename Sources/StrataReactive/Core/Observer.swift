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

        public func send(_ event: Event) {
            action.run(event)
        }

        public func send(value: Value) {
            send(.value(value))
        }

        public func send(error: Error) {
            send(.failed(error))
        }

        public func sendCompleted() {
            send(.completed)
        }

        public func sendInterrupted() {
            send(.interrupted)
        }
    }
}
