extension Results {
    /// The changes of the Results as an `AsyncSequence`: `.initial`, then one `.update` per delivery,
    /// delivered as `observe(keyPaths:on:_:)` delivers them (on the Store's queue, or main).
    ///
    /// ```swift
    /// for await change in adults.changes {     // on the main actor, for a Store of the main thread
    ///     if case .update(let results, _, _, _) = change { render(results) }
    /// }
    /// ```
    /// Ending the iteration (or cancelling its task) stops the observation. Observing failures, such
    /// as reading the Results off its Store's thread, arrive as one `.error` that ends the sequence.
    ///
    /// - Warning: The Results in each change belongs to the Store's thread: iterate where that thread
    ///   runs (the main actor for a Store of the main thread).
    public var changes: AsyncStream<CollectionChange<Results<Element>>> {
        let (stream, continuation) = AsyncStream<CollectionChange<Results<Element>>>.makeStream(
            bufferingPolicy: .unbounded)
        let sink = UncheckedContinuation(continuation)
        do {
            let token = try observe { change in sink.yield(change) }
            continuation.onTermination = { _ in token.invalidate() }
        } catch {
            continuation.yield(.error(error))
            continuation.finish()
        }
        return stream
    }
}

/// Carries a continuation of confined values into the delivery closure; they are yielded on the
/// Store's queue and read where the Store's thread runs (see `Results.changes`).
private struct UncheckedContinuation<Element>: @unchecked Sendable {
    let continuation: AsyncStream<Element>.Continuation
    init(_ continuation: AsyncStream<Element>.Continuation) { self.continuation = continuation }

    func yield(_ element: Element) {
        nonisolated(unsafe) let sent = element
        continuation.yield(sent)
    }
}
