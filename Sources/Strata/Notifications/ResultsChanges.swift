/// The changes of a Results as an `AsyncSequence` (`results.changes`): `.initial`, then one `.update`
/// per change, each exactly the previous collection with its deletions removed and its insertions
/// added.
///
/// ```swift
/// for await change in adults.changes {     // on the Store's actor (the main actor for main's Store)
///     if case .update(let results, let deletions, let insertions, _) = change { apply(deletions, insertions, results) }
/// }
/// ```
/// Iterated where its Store runs (its actor, or the main actor for a Store of the main thread), each
/// element is computed when the iteration asks for it, against what the Store shows at that moment:
/// commits that landed meanwhile coalesce into it, and its Results shows exactly that state while the
/// loop's body runs (nothing else runs on the actor until the body awaits). Iterated elsewhere (a
/// Store of a queue or of a thread), elements are computed on the Store's queue as commits arrive;
/// their Results then belong to that queue.
///
/// The observation ends when the sequence and its iterators are gone, or when the iterating task is
/// cancelled. Observing failures, such as creating it off its Store's thread, arrive as one `.error`
/// that ends the sequence.
public struct ResultsChanges<Model: Object>: AsyncSequence, Sendable {
    /// A change of the Results: `.initial` first, then `.update`s (or one `.error` that ends it).
    public typealias Element = CollectionChange<Results<Model>>
    /// The sequence does not throw: a failure of the observation arrives as `.error`.
    public typealias Failure = Never

    private let feed: ChangeFeed<Model>

    init(_ results: Results<Model>) {
        feed = ChangeFeed(results)
    }

    /// An iterator over the changes (one at a time: the sequence has one consumer).
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: feed)
    }

    /// Gives the changes one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let feed: ChangeFeed<Model>

        /// The next change, computed on the caller's actor when that is the Store's; nil once the
        /// observation ended.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            await feed.next(isolation: actor)
        }

        /// The next change (from no actor: computed on the Store's queue).
        public mutating func next() async -> Element? {
            await feed.next(isolation: nil)
        }
    }
}
