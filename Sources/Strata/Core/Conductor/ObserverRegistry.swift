import Dispatch

/// The observers registered on one Store, and their delivery: they start on the Store's queue (or at
/// its next `refresh()`), then each brings itself to the version the Store shows, from the spans of
/// commits the file's change hub logged. Owned by the Store's core, on its thread.
final class ObserverRegistry {
    private unowned(unsafe) let core: StoreCore  // the core owns the registry
    private(set) var all: [StoreObserver] = []
    /// The core itself, while observers of a Store with a queue are registered: their tokens are what
    /// the user holds, so the Store lives as long as they do (see `prune`).
    private var keepAlive: StoreCore?

    init(core: StoreCore) {
        self.core = core
    }

    var isEmpty: Bool { all.isEmpty }

    /// Starts new observers and brings every other one to the version the Store shows.
    func deliver() {
        prune()
        // No version when the snapshot cannot be read: deliver at the next wake, which tries again.
        guard !all.isEmpty, let current = shownVersion() else { return }
        var spans: [Int: ChangeSpan] = [:]
        for observer in all where !observer.state.isInvalidated {
            bring(observer, to: current, spans: &spans)
        }
        prune()
        reportPosition()
    }

    /// Tells the observers that a newer version than the Store shows has landed (a Store whose
    /// `autorefresh` is off, woken by a commit).
    func newerVersionLanded() {
        guard !all.isEmpty, let shown = shownVersion(),
            let latest = try? core.environment.latestVersion(), latest > shown
        else { return }
        for observer in all where !observer.state.isInvalidated && observer.isStarted {
            observer.newerVersionLanded(latest)
        }
    }

    /// Brings one observer to the version the Store shows now, for an iteration that asks for its
    /// next change on the Store's actor (`ResultsChanges`).
    func catchUp(_ observer: StoreObserver) {
        guard !observer.state.isInvalidated, let current = shownVersion() else { return }
        var spans: [Int: ChangeSpan] = [:]
        bring(observer, to: current, spans: &spans)
        reportPosition()
    }

    /// The version the Store shows (inside a write, the one the write started from); nil when the
    /// snapshot cannot be read.
    private func shownVersion() -> Int? {
        guard let current = try? core.version() else { return nil }
        return core.session != nil ? current - 1 : current  // a write's id is the version it will commit
    }

    /// Starts `observer`, or delivers what changed since its version (`spans` shares the merged logs
    /// between observers standing at one version).
    private func bring(_ observer: StoreObserver, to current: Int, spans: inout [Int: ChangeSpan]) {
        if !observer.isStarted {
            observer.start(version: current)
        } else if observer.state.everyCommit {
            deliverEachCommit(to: observer, upTo: current)
        } else if observer.version < current {
            let span =
                spans[observer.version] ?? hub.span(from: observer.version, to: current, reader: ObjectIdentifier(core))
            spans[observer.version] = span
            observer.deliver(span, at: nil)
        }
    }

    private var hub: ChangeHub { core.shared.changes }

    /// One change per commit, each evaluated on the snapshot pinned when it landed; commits whose
    /// snapshot is gone (another process, too many pending) join the next change.
    private func deliverEachCommit(to observer: StoreObserver, upTo current: Int) {
        var from = observer.version
        guard from < current else { return }
        for version in (from + 1)...current where !observer.state.isInvalidated {
            let snapshot = version == current ? nil : hub.snapshot(at: version)
            guard version == current || snapshot.map(observer.canEvaluate(on:)) == true else { continue }
            observer.deliver(hub.span(from: from, to: version, reader: ObjectIdentifier(core)), at: snapshot)
            from = version
        }
    }

    /// Tells the hub which logs this Store's observers may still need.
    func reportPosition() {
        guard !all.isEmpty else { return hub.observersOf(ObjectIdentifier(core), standAt: nil) }
        // An observer yet to start will start at this version or later: it needs nothing older.
        // (No version when the snapshot cannot be read: the observers then keep every log.)
        var now = (try? core.version()) ?? 0
        if core.session != nil { now -= 1 }  // a write's id is the version it will commit
        let oldest = all.map { $0.isStarted ? $0.version : now }.min()
        hub.observersOf(ObjectIdentifier(core), standAt: oldest)
    }

    /// Drops invalidated observers; the last one gone releases the core's hold on itself, so callers
    /// must hold the Store themselves.
    func prune() {
        if all.contains(where: { $0.state.isInvalidated }) {
            all.removeAll { $0.state.isInvalidated }
        }
        if all.isEmpty { hub.observersOf(ObjectIdentifier(core), standAt: nil) }
        if !all.contains(where: \.keepsStoreAlive) { keepAlive = nil }
    }

    /// Registers an observer; it starts on the Store's queue (at once for an object, whose baseline is
    /// taken now), or on the next `refresh()` for a Store of a thread without queue.
    func add(_ observer: StoreObserver, startNow: Bool) throws(StoreError) {
        if startNow { observer.start(version: try core.version()) }
        append(observer)
    }

    /// Registers an observer standing at the version the Store shows (inside a write, the one the
    /// write started from: the write's own changes are delivered at its commit).
    func addShowing(_ observer: StoreObserver) throws(StoreError) {
        let version = try core.version()
        if let session = core.session { core.logForNewObserver(session) }
        observer.start(version: core.session != nil ? version - 1 : version)  // as `shownVersion()`
        append(observer)
    }

    private func append(_ observer: StoreObserver) {
        all.append(observer)
        reportPosition()
        if let listener = core.listener {
            if observer.keepsStoreAlive { keepAlive = core }
            listener.wake()
        }
    }

    /// The other queue a notification goes to, or nil for this Store's own (the main queue is a main
    /// thread Store's own).
    ///
    /// - Throws: `.invalidArgument` for a frozen Store, or a queue known to be concurrent (a global
    ///   one, or one a Store was refused on; another is found when a Store is opened there).
    func foreignDeliveryQueue(_ queue: DispatchQueue?) throws(StoreError) -> DispatchQueue? {
        guard !core.isFrozen else { throw .invalidArgument("a frozen snapshot never changes: observe the live Store") }
        guard let queue else { return nil }
        if let deliveryQueue = core.deliveryQueue, DispatchQueues.isSame(queue, deliveryQueue) { return nil }
        guard !DispatchQueues.isConcurrent(queue) else {
            throw .invalidArgument("\(queue.label) is a concurrent queue: notifications need a serial queue")
        }
        return queue
    }

    /// The observers of `states` (their tokens'), which must be this Store's.
    ///
    /// - Throws: `.invalidArgument` for a token of another Store.
    func observers(of states: [ObserverState]) throws(StoreError) -> [StoreObserver] {
        var found: [StoreObserver] = []
        for state in states {
            guard let observer = all.first(where: { $0.state === state }) else {
                if state.isInvalidated { continue }
                throw .invalidArgument("a token of another Store was passed to commitWrite(withoutNotifying:)")
            }
            found.append(observer)
        }
        return found
    }

    /// The Store is going away: its observers stop.
    func storeClosed() {
        for observer in all { observer.state.storeClosed() }
        if !all.isEmpty { hub.observersOf(ObjectIdentifier(core), standAt: nil) }
    }
}

/// What an observer and its token share: whether it was invalidated, and its Store while that lives
/// (attached later for an observer on another queue, whose Store is opened there).
final class ObserverState: Sendable {
    private struct Guarded {
        var isInvalidated = false
        var core: ChangeListener.UncheckedCore?
        /// Wakes the Store on its queue, where it drops invalidated observers.
        var listener: ChangeListener?
    }

    private let guarded = Locked(Guarded())
    private let hub: ChangeHub
    /// Whether the observer wants every commit on its own (commits then pin snapshots).
    let everyCommit: Bool

    init(hub: ChangeHub, everyCommit: Bool = false) {
        self.hub = hub
        self.everyCommit = everyCommit
        hub.observerAdded()
        if everyCommit { hub.everyCommitObserverAdded() }
    }

    convenience init(core: StoreCore, everyCommit: Bool = false) {
        self.init(hub: core.shared.changes, everyCommit: everyCommit)
        attach(to: core)
    }

    /// Binds the observer to the Store that delivers it (on that Store's thread or queue).
    func attach(to core: StoreCore) {
        guarded.withLock {
            $0.core = ChangeListener.UncheckedCore(core: core)
            $0.listener = core.listener
        }
    }

    var isInvalidated: Bool { guarded.withLock { $0.isInvalidated } }

    /// The Store, when the caller runs on its thread (queue, actor) and the observer is still on.
    /// (Decided under the lock the Store's deinit takes: it cannot go away meanwhile.)
    func coreIfCurrent() -> StoreCore? {
        guarded.withLock { guarded -> StoreCore? in
            guard !guarded.isInvalidated, let core = guarded.core, core.core.isConfined else { return nil }
            return core.core
        }
    }

    /// Wakes the Store on its queue or actor, where it delivers to its observers.
    func wakeStore() {
        guarded.withLock { $0.listener }?.wake()
    }

    func invalidate() {
        // Whether this runs on the Store's thread is decided under the lock: the Store's deinit takes
        // it too, so the Store cannot go away meanwhile.
        let outcome = guarded.withLock { guarded -> (core: ChangeListener.UncheckedCore?, listener: ChangeListener?)? in
            if guarded.isInvalidated { return nil }
            guarded.isInvalidated = true
            guard let core = guarded.core, core.core.isConfined else { return (nil, guarded.listener) }
            return (core, nil)
        }
        guard let outcome else { return }
        hub.observerRemoved()
        if everyCommit { hub.everyCommitObserverRemoved() }
        if let core = outcome.core {
            let strong: StoreCore = core.core  // on its own thread: the observer goes at once
            strong.observers.prune()
        } else {
            outcome.listener?.wake()  // elsewhere: when the Store's queue runs
        }
    }

    /// Called by the Store's deinit.
    func storeClosed() {
        guarded.withLock { $0.core = nil }
    }
}

/// An observer as its Store sees it.
protocol StoreObserver: AnyObject {
    var state: ObserverState { get }
    /// The version the observer's last delivery showed.
    var version: Int { get }
    /// Delivers `.initial` (for a collection) or takes the baseline, at `version`.
    func start(version: Int)
    /// Delivers what changed in `span`, then stands at `span.to`. `snapshot` is a frozen core of
    /// version `span.to` to evaluate on (nil: the Store itself, which shows `span.to`).
    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?)
    /// Whether `snapshot` (a writer's, of its configuration) holds the observed type.
    func canEvaluate(on snapshot: StoreCore) -> Bool
    /// Takes the present state as the baseline without delivering (`commitWrite(withoutNotifying:)`).
    func rebaseline(version: Int)
    var isStarted: Bool { get }
    /// A commit of `latest` landed that the Store does not show (`autorefresh` is off).
    func newerVersionLanded(_ latest: Int)
    /// Whether the Store lives while the observer does (its token is what the user holds).
    var keepsStoreAlive: Bool { get }
}

extension StoreObserver {
    var keepsStoreAlive: Bool { true }

    /// Collections and objects are told of a commit once the Store moves to it, not before.
    func newerVersionLanded(_ latest: Int) {}
}
