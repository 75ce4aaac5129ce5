import Synchronization

/// A change of a `Results` (or any collection), as Realm reports it.
///
/// ```swift
/// let token = try adults.observe { change in
///     switch change {
///     case .initial(let results): tableView.reload(results)
///     case .update(let results, let deletions, let insertions, let modifications):
///         tableView.apply(deletions: deletions, insertions: insertions, modifications: modifications)
///     case .error(let error): print(error)
///     }
/// }
/// ```
/// Deletions and modifications are indices in the collection as it was before, insertions in the
/// collection now, each ascending: removing the deletions from the old collection, then inserting the
/// insertions, gives the new one (an object that moved is a deletion and an insertion).
public enum CollectionChange<Collection> {
    /// The collection when observation began: always delivered first, on its own.
    case initial(Collection)
    /// The collection now, and how it got there from the previous delivery.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Observing failed (the file is damaged); nothing more is delivered.
    case error(StoreError)
}

/// A change of one object.
public enum ObjectChange<T: Object> {
    /// The observed properties that changed, with their values before and after.
    case change(T, [PropertyChange])
    /// The object was deleted; nothing more is delivered.
    case deleted
    /// Observing failed (the file is damaged); nothing more is delivered.
    case error(StoreError)
}

/// One property of an `ObjectChange`. Values are as the property's type reads them; for links and
/// Lists they are nil (the new value is on the object).
public struct PropertyChange {
    public let name: String
    public let oldValue: Any?
    public let newValue: Any?
}

/// The commits a delivered change spans: the Store moved from version `from` to `to`, coalescing
/// `commits` commits. For `.initial`, `from == to` and `commits == 0`.
public struct ChangeVersions: Sendable, Equatable {
    public let from: Int
    public let to: Int
    public var commits: Int { to - from }
}

/// Keeps an observation alive: notifications stop when it is invalidated or deinitialised.
public final class NotificationToken: Sendable {
    let state: ObserverState

    init(state: ObserverState) {
        self.state = state
    }

    /// Stops the notifications (from any thread; a delivery under way on the Store's queue finishes).
    public func invalidate() {
        state.invalidate()
    }

    deinit {
        state.invalidate()
    }
}

/// What an observer and its token share: whether it was invalidated, and its Store while that lives.
final class ObserverState: Sendable {
    private struct Guarded {
        var isInvalidated = false
        var core: ChangeListener.UncheckedCore?
    }

    private let guarded: Mutex<Guarded>
    private let hub: ChangeHub
    /// Wakes the Store on its queue, where it drops invalidated observers.
    private let listener: ChangeListener?

    init(core: StoreCore) {
        guarded = Mutex(Guarded(core: ChangeListener.UncheckedCore(core: core)))
        hub = core.environment.changes
        listener = core.listener
        hub.observerAdded()
    }

    var isInvalidated: Bool { guarded.withLock { $0.isInvalidated } }

    func invalidate() {
        let core = guarded.withLock { guarded -> ChangeListener.UncheckedCore?? in
            if guarded.isInvalidated { return nil }
            guarded.isInvalidated = true
            return .some(guarded.core)
        }
        guard let core else { return }
        hub.observerRemoved()
        // On the Store's own thread the observer goes at once; elsewhere when the Store's queue runs.
        if let core, core.core.isConfined {
            let strong: StoreCore = core.core
            strong.pruneObservers()
        } else {
            listener?.wake()
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
    /// Delivers what changed in `span`, then stands at `span.to`.
    func deliver(_ span: ChangeSpan)
    /// Takes the present state as the baseline without delivering (`commitWrite(withoutNotifying:)`).
    func rebaseline(version: Int)
    var isStarted: Bool { get }
}
