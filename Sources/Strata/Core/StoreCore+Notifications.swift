import Dispatch

/// Delivering changes to observers: when a commit wakes the Store on its queue, on `refresh()`, and
/// when a write begins.
extension StoreCore {
    /// A commit landed (this Store's or another's): on the Store's queue, move to it (`autorefresh`)
    /// and tell the observers. Inside a write nothing happens; the write's commit wakes again.
    func deliverChanges() {
        guard isConfined, session == nil else { return }
        if autorefresh, (try? refresh()) != nil { return }  // refresh delivers
        deliverToObservers()
    }

    /// Starts new observers and brings every other one to the version the Store shows.
    func deliverToObservers() {
        pruneObservers()
        guard !observers.isEmpty, var current = try? version() else { return }
        if session != nil { current -= 1 }  // a write's id is the version it will commit; it starts from the one before
        var spans: [Int: ChangeSpan] = [:]
        for observer in observers where !observer.state.isInvalidated {
            if !observer.isStarted {
                observer.start(version: current)
            } else if observer.state.everyCommit {
                deliverEachCommit(to: observer, upTo: current)
            } else if observer.version < current {
                let span = spans[observer.version] ?? shared.changes.span(from: observer.version, to: current)
                spans[observer.version] = span
                observer.deliver(span, at: nil)
            }
        }
        pruneObservers()
        reportObserverPosition()
    }

    /// One change per commit, each evaluated on the snapshot pinned when it landed; commits whose
    /// snapshot is gone (another process, too many pending) join the next change.
    private func deliverEachCommit(to observer: StoreObserver, upTo current: Int) {
        var from = observer.version
        guard from < current else { return }
        for version in (from + 1)...current where !observer.state.isInvalidated {
            let snapshot = version == current ? nil : shared.changes.snapshot(at: version)
            guard version == current || snapshot.map(observer.canEvaluate(on:)) == true else { continue }
            observer.deliver(shared.changes.span(from: from, to: version), at: snapshot)
            from = version
        }
    }

    /// Tells the hub which logs this Store's observers may still need.
    func reportObserverPosition() {
        guard !observers.isEmpty else { return shared.changes.observersOf(ObjectIdentifier(self), standAt: nil) }
        // An observer yet to start will start at this version or later: it needs nothing older.
        var now = (try? version()) ?? 0
        if session != nil { now -= 1 }  // a write's id is the version it will commit
        let oldest = observers.map { $0.isStarted ? $0.version : now }.min()
        shared.changes.observersOf(ObjectIdentifier(self), standAt: oldest)
    }

    /// Drops invalidated observers. A Store with a queue keeps itself alive while it has observers
    /// (their tokens are what the user holds); the last one gone releases it, so callers must hold
    /// the Store themselves.
    func pruneObservers() {
        if observers.contains(where: { $0.state.isInvalidated }) {
            observers.removeAll { $0.state.isInvalidated }
        }
        if observers.isEmpty {
            shared.changes.observersOf(ObjectIdentifier(self), standAt: nil)
            keepAlive = nil
        }
    }

    /// Registers an observer; it starts on the Store's queue (at once for an object, whose baseline is
    /// taken now), or on the next `refresh()` for a Store of a thread without queue.
    func addObserver(_ observer: StoreObserver, startNow: Bool) throws(StoreError) {
        if startNow { observer.start(version: try version()) }
        observers.append(observer)
        reportObserverPosition()
        if let listener {
            keepAlive = self
            listener.wake()
        }
    }

    /// The other queue a notification goes to, or nil for this Store's own (the main queue is a main
    /// thread Store's own).
    ///
    /// - Throws: `.invalidArgument` for a frozen Store, or a concurrent queue.
    func foreignDeliveryQueue(_ queue: DispatchQueue?) throws(StoreError) -> DispatchQueue? {
        guard !isFrozen else { throw .invalidArgument("a frozen snapshot never changes: observe the live Store") }
        guard let queue else { return nil }
        if let deliveryQueue, DispatchQueues.isSame(queue, deliveryQueue) { return nil }
        guard !DispatchQueues.isConcurrent(queue) else {
            throw .invalidArgument("\(queue.label) is a concurrent queue: notifications need a serial queue")
        }
        return queue
    }

    /// Registers an observer on a Store of `queue` (opened there, as `Store(configuration:queue:)`),
    /// so that callbacks run on `queue` with objects of that Store. `make` runs on `queue`.
    static func observeElsewhere(
        configuration: Store.Configuration, queue: DispatchQueue, state: ObserverState,
        make: @escaping (StoreCore) throws(StoreError) -> (StoreObserver, startNow: Bool),
        failed: @escaping (StoreError) -> Void
    ) {
        let work = UncheckedWork {
            guard !state.isInvalidated else { return }
            do throws(StoreError) {
                let store = try Store(configuration: configuration, queue: queue)
                state.attach(to: store.core)
                let (observer, startNow) = try make(store.core)
                try store.core.addObserver(observer, startNow: startNow)
            } catch {
                state.invalidate()
                failed(error)
            }
        }
        queue.async { work.run() }
    }

    /// The observers of `tokens`, which must be this Store's.
    func observers(of tokens: [NotificationToken]) throws(StoreError) -> [StoreObserver] {
        var found: [StoreObserver] = []
        for token in tokens {
            guard let observer = observers.first(where: { $0.state === token.state }) else {
                if token.state.isInvalidated { continue }
                throw .invalidArgument("a token of another Store was passed to commitWrite(withoutNotifying:)")
            }
            found.append(observer)
        }
        return found
    }
}

extension Store {
    /// Whether a commit (of any thread of the process) moves this Store to it the next time its queue
    /// runs (true by default). Only Stores with a queue (a serial queue, or the main thread's) can;
    /// others move on `refresh()` and writes.
    ///
    /// - Warning: Traps off the Store's thread.
    public var autorefresh: Bool {
        get {
            core.assertConfined()
            return core.autorefresh
        }
        nonmutating set {
            core.assertConfined()
            core.autorefresh = newValue
        }
    }
}

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
        let (stream, continuation) = AsyncStream<CollectionChange<Results<Element>>>.makeStream(bufferingPolicy: .unbounded)
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

/// Carries the registration of an observer to the queue it is delivered on; the closures it holds
/// run there only.
struct UncheckedWork: @unchecked Sendable {
    let run: () -> Void
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
