extension Results {
    /// The changes of the Results as an `AsyncSequence`: `.initial`, then one `.update` per change,
    /// each exactly the previous collection with its deletions removed and its insertions added.
    ///
    /// ```swift
    /// for await change in adults.changes {     // on the main actor, for a Store of the main thread
    ///     if case .update(let results, _, _, _) = change { render(results) }
    /// }
    /// ```
    /// Iterated on the Store's actor (the main actor for a Store of the main thread), each element is
    /// computed when the loop asks for it, so its Results shows exactly the state it describes while
    /// the loop's body runs; see `ResultsChanges`. Ending the iteration and dropping the sequence (or
    /// cancelling its task) stops the observation. Observing failures, such as creating it off its
    /// Store's thread, arrive as one `.error` that ends the sequence.
    ///
    /// - Warning: The Results in each change belongs to the Store's thread: iterate where that thread
    ///   runs (the Store's actor, or the main actor for a Store of the main thread).
    public var changes: ResultsChanges<Element> {
        ResultsChanges(self)
    }
}
