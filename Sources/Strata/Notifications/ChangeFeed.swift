/// What a `ResultsChanges` and the Store share: the changes computed and not yet taken, the
/// iteration waiting for one, and the observer that computes them. `@unchecked Sendable`: its state
/// is under `state`'s lock; the observer is used on the Store's thread (queue, actor) only.
final class ChangeFeed<Model: Object>: @unchecked Sendable {
    /// Who computes elements: undecided until the first `next()`, which decides by where it runs.
    enum Mode {
        case undecided
        /// The iteration, on the Store's actor, at each `next()`.
        case pull
        /// The Store's queue, at each delivery (the iteration runs elsewhere, or the Store is a
        /// thread's, which delivers on `refresh()`).
        case push
    }

    private struct State {
        var mode: Mode
        var pending: [CollectionChange<Results<Model>>] = []
        var waiter: CheckedContinuation<Void, Never>?
        /// Set by a wake that found no waiter, so that the next wait does not sleep through it.
        var woken = false
        var finished = false

        enum Taken {
            case element(CollectionChange<Results<Model>>)
            case finished
            case none
        }

        mutating func takePending() -> Taken {
            if !pending.isEmpty { return .element(pending.removeFirst()) }
            return finished ? .finished : .none
        }

        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            guard let waiter else {
                woken = true
                return nil
            }
            self.waiter = nil
            return waiter
        }
    }

    private let state: Locked<State>
    /// The observer's registration (nil when observing failed at once).
    private var observerState: ObserverState?
    /// Computes the changes; used on the Store's thread only.
    private var observer: ResultsObserver<Model>?

    init(_ results: Results<Model>) {
        let core = results.core
        state = Locked(State(mode: core.listener == nil ? .push : .undecided))
        do throws(StoreError) {
            try core.checkConfined()
            _ = try core.observers.foreignDeliveryQueue(nil)  // a frozen Results cannot be observed
            let observed = try ObservedPaths(
                ObservationSpec(keyPaths: [], schema: results.binding.schema), root: results.binding, in: core)
            let registration = ObserverState(core: core)
            let observer = ResultsObserver(results: results, observed: observed, state: registration) {
                [weak self] change, _ in self?.received(change)
            }
            self.observer = observer
            observerState = registration
            try core.observers.add(FeedObserver(feed: self, computing: observer), startNow: false)
        } catch {
            observerState?.invalidate()
            received(.error(error))
        }
    }

    deinit {
        observerState?.invalidate()
    }

    var mode: Mode { state.withLock { $0.mode } }

    /// On the Store's thread: an element the observer computed. An `.error` ends the feed.
    private func received(_ change: CollectionChange<Results<Model>>) {
        nonisolated(unsafe) let change = change  // taken by the iteration, where the Store runs
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.pending.append(change)
            if case .error = change { state.finished = true }
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// Something may have changed: the waiting iteration looks again.
    func wake() {
        state.withLock { $0.takeWaiter() }?.resume()
    }

    func next(isolation actor: isolated (any Actor)?) async -> CollectionChange<Results<Model>>? {
        while true {
            switch state.withLock({ $0.takePending() }) {
            case .element(let change): return change
            case .finished: return nil
            case .none: break
            }
            if !computeHere() { await waitForWake(isolation: actor) }
            if Task.isCancelled {
                finish()
                return nil
            }
        }
    }

    /// On the Store's thread: brings the observer to what the Store shows now (its `.initial` first),
    /// which queues an element when something changed. Elsewhere: leaves it to the Store's queue.
    /// Returns whether it computed.
    private func computeHere() -> Bool {
        guard let observer, let core = observerState?.coreIfCurrent() else {
            let decided = state.withLock { state -> Bool in
                guard case .undecided = state.mode else { return false }
                state.mode = .push
                return true
            }
            if decided { observerState?.wakeStore() }  // it delivers what the Store shows
            return false
        }
        let isPulling = state.withLock { state -> Bool in
            if case .undecided = state.mode { state.mode = .pull }
            if case .pull = state.mode { return true }
            return false
        }
        guard isPulling else { return false }
        core.observers.catchUp(observer)
        return state.withLock { !$0.pending.isEmpty || $0.finished }
    }

    private func waitForWake(isolation actor: isolated (any Actor)?) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.woken || state.finished || !state.pending.isEmpty || Task.isCancelled {
                        state.woken = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }

    /// Ends the feed: the iteration gets what it has not taken, then nil.
    private func finish() {
        state.withLock { $0.finished = true }
        observerState?.invalidate()
    }
}

/// The feed's observer as its Store's registry sees it: in push mode it computes at each delivery;
/// otherwise a delivery only wakes the iteration, which computes on the actor.
private final class FeedObserver<Model: Object>: StoreObserver {
    private weak var feed: ChangeFeed<Model>?
    private let computing: ResultsObserver<Model>

    init(feed: ChangeFeed<Model>, computing: ResultsObserver<Model>) {
        self.feed = feed
        self.computing = computing
    }

    var state: ObserverState { computing.state }
    var version: Int { computing.version }
    var isStarted: Bool { computing.isStarted }

    private var computesOnDelivery: Bool {
        guard let feed else { return false }
        if case .push = feed.mode { return true }
        feed.wake()
        return false
    }

    func start(version: Int) {
        if computesOnDelivery { computing.start(version: version) }
    }

    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?) {
        if computesOnDelivery { computing.deliver(span, at: snapshot) }
    }

    func canEvaluate(on snapshot: StoreCore) -> Bool {
        computing.canEvaluate(on: snapshot)
    }

    /// `commitWrite(withoutNotifying:)`: skipped only when the iteration has taken every change
    /// before that write; otherwise the write joins the next element (indices must stay exact).
    func rebaseline(version: Int) {
        guard computing.isStarted, computing.version >= version - 1 else { return }
        computing.rebaseline(version: version)
    }
}
