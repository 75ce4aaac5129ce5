extension SignalProducer {
    /// Starts the producer and delivers its values as an `AsyncThrowingStream`: the stream finishes on
    /// completion, throws the failure, and throws `CancellationError` if the work is interrupted.
    /// Ending the iteration (or cancelling its task) interrupts the work.
    ///
    /// ```swift
    /// for try await todos in repository.todos().values { render(todos) }
    /// ```
    /// - Warning: Values cross to the iterating task as they are: do not move thread-confined values
    ///   (Strata objects, Results) to another thread this way.
    public var values: AsyncThrowingStream<Value, Swift.Error> {
        AsyncThrowingStream { continuation in
            let sink = StreamSink<Value, Error>(continuation)
            let disposable = start { event in sink.send(event) }
            continuation.onTermination = { _ in disposable.dispose() }
        }
    }
}

/// `@unchecked Sendable`: events reach the continuation one at a time; the values' confinement is the
/// caller's responsibility (see `values`).
private struct StreamSink<Value, Error: Swift.Error>: @unchecked Sendable {
    let continuation: AsyncThrowingStream<Value, Swift.Error>.Continuation

    init(_ continuation: AsyncThrowingStream<Value, Swift.Error>.Continuation) {
        self.continuation = continuation
    }

    func send(_ event: Signal<Value, Error>.Event) {
        switch event {
        case .value(let value):
            nonisolated(unsafe) let sent = value
            continuation.yield(sent)
        case .failed(let error): continuation.finish(throwing: error)
        case .completed: continuation.finish()
        case .interrupted: continuation.finish(throwing: CancellationError())
        }
    }
}
