extension Store {
    /// What a Store-wide observer is told (`Store.observe(_:)`), as Realm's `Realm.Notification`.
    public enum Notification: Sendable, Hashable {
        /// The Store moved to a newer version: a commit of this Store, another thread, queue, actor or
        /// (once the Store refreshes) another process.
        case didChange
        /// A commit landed that this Store does not show because `autorefresh` is off: call
        /// `refresh()` to move to it. Told once per newer version, on the Store's queue.
        case refreshRequired
    }

    /// Observes every change of the Store, whatever type it touches, as Realm's `Realm.observe`:
    /// `.didChange` each time the Store moves to a newer version (commits that land before it moves
    /// are told as one), and `.refreshRequired` when `autorefresh` is off and a commit landed.
    /// Nothing is told at first, nor for a write that changed nothing (it stores no new version; Realm
    /// tells `.didChange` for one). Commits of another process are told once the Store refreshes,
    /// never as `.refreshRequired`.
    ///
    /// ```swift
    /// let token = try store.observe { notification, store in
    ///     if notification == .didChange { print(store.objects(Note.self).count) }
    /// }
    /// ```
    ///
    /// Delivered as `Results.observe` is: on the Store's queue (its serial queue, or the main queue for
    /// a Store of the main thread) once the Store moved to the commit; a Store of a thread without
    /// queue tells its observers on `refresh()` and when a write begins. A commit made with
    /// `commitWrite(withoutNotifying:)` naming this token is not told.
    ///
    /// - Throws: `.wrongThread`; `.invalidArgument` for a frozen Store (it never changes).
    /// - Warning: Keep the token: notifications stop when it is deinitialised. The block runs on the
    ///   Store's thread; the Store it receives is this one.
    public func observe(_ block: @escaping (Notification, Store) -> Void) throws(StoreError) -> NotificationToken {
        try core.checkConfined()
        guard !core.isFrozen else {
            throw .invalidArgument("a frozen Store never changes: there is nothing to observe")
        }
        let state = ObserverState(core: core)
        try core.observers.add(StoreWideObserver(core: core, state: state, block: block), startNow: true)
        return NotificationToken(state: state)
    }
}

/// A Store-wide observer (`Store.observe(_:)`): told of every version the Store moves to, and of
/// newer versions it does not show while `autorefresh` is off.
final class StoreWideObserver: StoreObserver {
    let state: ObserverState
    private unowned(unsafe) let core: StoreCore  // the core owns this observer
    private let block: (Store.Notification, Store) -> Void
    private(set) var version = 0
    private(set) var isStarted = false
    /// The newest version told as `.refreshRequired`: each is told once.
    private var announced = 0

    init(core: StoreCore, state: ObserverState, block: @escaping (Store.Notification, Store) -> Void) {
        self.core = core
        self.state = state
        self.block = block
    }

    func start(version: Int) {
        isStarted = true
        self.version = version
        announced = version
    }

    func rebaseline(version: Int) {
        self.version = version
        announced = max(announced, version)
    }

    func canEvaluate(on snapshot: StoreCore) -> Bool { true }

    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?) {
        version = span.to
        announced = max(announced, span.to)
        block(.didChange, Store(core: core))
    }

    func newerVersionLanded(_ latest: Int) {
        guard latest > announced else { return }
        announced = latest
        block(.refreshRequired, Store(core: core))
    }
}
