import Dispatch
import Synchronization

/// Per file and process: the change logs of recent commits, and the Stores to wake when a commit
/// lands (those that deliver notifications on a queue, or refresh automatically).
final class ChangeHub: Sendable {
    private struct State {
        var logs: [Int: CommitLog] = [:]
        var listeners: [ObjectIdentifier: ChangeListener] = [:]
        var watches: [ObjectIdentifier: CommitWatch] = [:]
        /// Per Store with observers: the oldest version one of them stands at. Logs up to the oldest
        /// of these are needed by nobody.
        var positions: [ObjectIdentifier: Int] = [:]
        /// Keys held by the kept logs (a bound on their memory).
        var keptKeys = 0
        /// Kept logs that pin a snapshot.
        var pinned = 0
        /// Logged commits of this process between the start of LMDB's commit and their log's
        /// publication, by version: left when published or withdrawn (`announce`).
        var pending: [Int: DispatchGroup] = [:]

        /// A pending commit among the versions after `from` up to `to`.
        func pending(after from: Int, upTo to: Int) -> DispatchGroup? {
            pending.isEmpty || to <= from ? nil : pending.first { from < $0.key && $0.key <= to }?.value
        }

        mutating func keep(_ log: CommitLog) {
            logs[log.version] = log
            keptKeys += log.keyCount
            if log.snapshot != nil { pinned += 1 }
        }

        mutating func drop(_ version: Int) {
            guard let log = logs.removeValue(forKey: version) else { return }
            keptKeys -= log.keyCount
            if log.snapshot != nil { pinned -= 1 }
        }

        /// Drops the logs nobody needs, then the oldest while too many are kept.
        mutating func trim() {
            let needed = positions.values.min() ?? .max
            for version in logs.keys where version <= needed { drop(version) }
            while logs.count > ChangeHub.keptLogs || keptKeys > ChangeHub.keptKeys, let oldest = logs.keys.min() {
                drop(oldest)
            }
            guard pinned > ChangeHub.keptSnapshots else { return }
            let oldest = logs.filter { $0.value.snapshot != nil }.keys.sorted().dropLast(ChangeHub.keptSnapshots)
            for version in oldest { logs[version]?.snapshot = nil }
            pinned = ChangeHub.keptSnapshots
        }
    }

    private let state = Locked(State())
    /// Observers registered in any Store of the file: writes log their changes only while it is > 0.
    private let observers = Atomic<Int>(0)
    /// Observers that want every commit on its own: commits pin a snapshot only while it is > 0.
    private let everyCommitObservers = Atomic<Int>(0)
    /// Pinned snapshots kept at most (each holds a reader slot); older commits are then coalesced.
    fileprivate static let keptSnapshots = 32

    var wantsSnapshots: Bool { everyCommitObservers.load(ordering: .relaxed) > 0 }

    func everyCommitObserverAdded() { everyCommitObservers.add(1, ordering: .relaxed) }
    func everyCommitObserverRemoved() { everyCommitObservers.subtract(1, ordering: .relaxed) }

    /// The pinned snapshot of `version`, if it is kept.
    func snapshot(at version: Int) -> StoreCore? {
        readingPublished(after: version - 1, upTo: version) { $0.logs[version]?.snapshot?.core }
    }
    /// Logs kept for Stores that have yet to catch up; older ones are dropped (a Store behind that
    /// far then compares instead).
    fileprivate static let keptLogs = 4096
    fileprivate static let keptKeys = 1 << 20

    /// How many commit logs are kept (for tests).
    var keptLogCount: Int { state.withLock { $0.logs.count } }
    /// How many commits announced are yet to be published or withdrawn (for tests).
    var pendingCommitCount: Int { state.withLock { $0.pending.count } }

    var isObserved: Bool { observers.load(ordering: .relaxed) > 0 }

    func observerAdded() { observers.add(1, ordering: .relaxed) }
    func observerRemoved() { observers.subtract(1, ordering: .relaxed) }

    func register(_ listener: ChangeListener) {
        state.withLock { $0.listeners[ObjectIdentifier(listener)] = listener }
    }

    func unregister(_ listener: ChangeListener) {
        _ = state.withLock { $0.listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }

    func register(_ watch: CommitWatch) {
        state.withLock { $0.watches[ObjectIdentifier(watch)] = watch }
    }

    func unregister(_ watch: CommitWatch) {
        _ = state.withLock { $0.watches.removeValue(forKey: ObjectIdentifier(watch)) }
    }

    /// A logged commit of `version` is about to begin in LMDB: from the moment LMDB shows it until
    /// its log is published (or withdrawn, if the commit fails), a Store that moves to it waits for
    /// the log, rather than take it for a commit of another process (whose changes are not known).
    /// The wait is short: the rest of LMDB's commit (its meta page written, or synced), then this.
    func announce(_ version: Int) {
        let published = DispatchGroup()
        published.enter()
        state.withLock { $0.pending[version] = published }
    }

    /// The commit of `version` announced failed: no log comes. (A Store that shows the version, one
    /// another process committed since, or this one if LMDB failed after showing it, takes it as
    /// unlogged: its observers compare.)
    func withdraw(_ version: Int) {
        state.withLock { $0.pending.removeValue(forKey: version) }?.leave()
    }

    /// Records a commit's log (if it was logged), wakes every listener and tells every watch.
    func published(_ log: CommitLog?) {
        let (listeners, watches) = state.withLock { state -> ([ChangeListener], [CommitWatch]) in
            if let log {
                if !state.positions.isEmpty {
                    state.keep(log)
                    state.trim()
                }
                state.pending.removeValue(forKey: log.version)?.leave()
            }
            // Most files have neither: no array is made for them (one commit each, W2).
            let listeners = state.listeners.isEmpty ? [] : Array(state.listeners.values)
            return (listeners, state.watches.isEmpty ? [] : Array(state.watches.values))
        }
        for listener in listeners { listener.wake() }
        for watch in watches { watch.committed() }
    }

    /// A Store's observers now stand at `version` or later (nil: it has none left).
    func observersOf(_ store: ObjectIdentifier, standAt version: Int?) {
        state.withLock { state in
            state.positions[store] = version
            state.trim()
        }
    }

    /// The merged changes of the commits after `from` up to `to`, as the Store `reader` may read them.
    func span(from: Int, to: Int, reader: ObjectIdentifier) -> ChangeSpan {
        readingPublished(after: from, upTo: to) { state in
            var tables: [String: TableChanges] = [:]
            var complete = true
            if to > from {
                for version in (from + 1)...to {
                    // (Another Store at `reader`'s address opened after the commit: it never asks for it.)
                    guard let log = state.logs[version], log.reader == nil || log.reader == reader else {
                        complete = false
                        continue
                    }
                    for (type, changes) in log.tables { tables[type, default: TableChanges()].append(changes) }
                }
            }
            return ChangeSpan(from: from, to: to, tables: tables, isComplete: complete)
        }
    }

    /// `read` of the state once the logs of the versions after `from` up to `to` are published (or
    /// withdrawn): the caller shows `to`, so every commit announced among them is in LMDB already.
    private func readingPublished<T>(after from: Int, upTo to: Int, _ read: (State) -> T) -> T {
        while true {
            let pending = state.withLock { state -> DispatchGroup? in state.pending(after: from, upTo: to) }
            guard let pending else { break }
            pending.wait()
        }
        // (A commit announced after that is of a version above `to`: the Store does not show it yet.)
        return state.withLock { read($0) }
    }
}

/// A Store's entry in its file's hub: wakes the Store on its queue (or actor) after a commit, at
/// most once until the Store has caught up.
final class ChangeListener: Sendable {
    /// Where the Store is woken: its queue, or its actor (held weakly: the actor owns the Store).
    private enum Delivery: Sendable {
        case queue(DispatchQueue)
        case actor(WeakActor)
    }

    private let delivery: Delivery
    private let pending = Atomic<Bool>(false)
    /// The Store, while it lives. Only dereferenced on the Store's queue (its thread, for a Store of
    /// the main thread) or actor, where the Store's deinit runs too, so the two never overlap.
    private let core: Locked<UncheckedCore?>

    struct UncheckedCore: @unchecked Sendable {
        unowned(unsafe) let core: StoreCore
    }

    init(core: StoreCore, queue: DispatchQueue) {
        delivery = .queue(queue)
        self.core = Locked(UncheckedCore(core: core))
    }

    init(core: StoreCore, actor: any Actor) {
        delivery = .actor(WeakActor(actor))
        self.core = Locked(UncheckedCore(core: core))
    }

    /// Held while the observers of a Store whose actor is gone are dropped, and by the Store's deinit
    /// as it detaches: the two never overlap.
    private let releaseLock = Mutex(())

    /// Called by the Store's deinit.
    func detach() {
        releaseLock.withLock { _ in core.withLock { $0 = nil } }
    }

    func wake() {
        if case .actor(let reference) = delivery, reference.actor == nil {
            return releaseObserversOfGoneActor()
        }
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        switch delivery {
        case .queue(let queue):
            queue.async { [self] in deliver() }
        case .actor(let reference):
            guard let actor = reference.actor else { return }
            // The task holds the actor while it runs there: the actor, and so its Store, lives on.
            Task { [self] in await Self.run(on: actor) { self.deliver() } }
        }
    }

    private func deliver() {
        pending.store(false, ordering: .releasing)
        guard let target = core.withLock({ $0 }) else { return }
        let strong: StoreCore = target.core  // retained until delivery ends, even if it drops its last observer
        strong.deliverChanges()
    }

    /// The Store's actor is gone, so nothing will run there again, yet the Store's observers hold it
    /// (`ObserverRegistry.keepAlive`) while any is registered: a token invalidated from here on (as the
    /// actor's own tokens are in its deinit) drops its observer here, on the caller's thread, and the
    /// last one closes the Store. No code of the Store runs elsewhere now: the Store's actor ran it,
    /// and it is gone; `releaseLock` orders this with other callers and with the Store's deinit.
    private func releaseObserversOfGoneActor() {
        let held: StoreCore? = releaseLock.withLock { _ in
            guard let target = core.withLock({ $0 }) else { return nil }
            let strong: StoreCore = target.core
            strong.observers.prune()
            return strong
        }
        withExtendedLifetime(held) {}  // the Store may close now, outside the lock its deinit takes
    }

    private static func run(on actor: isolated any Actor, _ body: @Sendable () -> Void) {
        body()
    }
}

/// An actor held weakly (the weak reference is loaded atomically by the runtime).
final class WeakActor: @unchecked Sendable {
    weak var actor: (any Actor)?

    init(_ actor: any Actor) {
        self.actor = actor
    }
}

#if DEBUG
    extension ChangeHub {
        /// Per file path, what runs on a committing thread after LMDB committed and before the commit's
        /// log is published: a test holds that moment open.
        static let beforePublishing = Locked<[String: @Sendable () -> Void]>([:])

        static func runBeforePublishing(_ path: String) {
            beforePublishing.withLock { $0[path] }?()
        }
    }
#endif
