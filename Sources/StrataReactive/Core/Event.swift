extension Signal {
    /// What a signal sends: any number of values, then at most one terminating event.
    ///
    /// ```
    /// value* (failed | completed | interrupted)?
    /// ```
    /// After a terminating event nothing more is sent. `interrupted` means the work was cancelled
    /// (its producer was disposed) before it could finish: it is neither a success nor a failure.
    public enum Event {
        /// A value; any number of them come first.
        case value(Value)
        /// The work failed: the stream ends.
        case failed(Error)
        /// The work finished: the stream ends.
        case completed
        /// The work was cancelled before it finished: the stream ends.
        case interrupted

        /// Whether the event ends the stream.
        public var isTerminating: Bool {
            if case .value = self { return false }
            return true
        }

        /// The value, for a `.value` event.
        public var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }

        /// The error, for a `.failed` event.
        public var error: Error? {
            if case .failed(let error) = self { return error }
            return nil
        }

        /// The same event with its value transformed.
        public func map<U>(_ transform: (Value) -> U) -> Signal<U, Error>.Event {
            switch self {
            case .value(let value): .value(transform(value))
            case .failed(let error): .failed(error)
            case .completed: .completed
            case .interrupted: .interrupted
            }
        }

        /// The same event with its error transformed.
        public func mapError<F>(_ transform: (Error) -> F) -> Signal<Value, F>.Event {
            switch self {
            case .value(let value): .value(value)
            case .failed(let error): .failed(transform(error))
            case .completed: .completed
            case .interrupted: .interrupted
            }
        }
    }
}

extension Signal.Event: Equatable where Value: Equatable, Error: Equatable {}

extension Signal.Event: CustomStringConvertible {
    /// `value 1`, `failed E`, `completed`, `interrupted`.
    public var description: String {
        switch self {
        case .value(let value): "value \(value)"
        case .failed(let error): "failed \(error)"
        case .completed: "completed"
        case .interrupted: "interrupted"
        }
    }
}
