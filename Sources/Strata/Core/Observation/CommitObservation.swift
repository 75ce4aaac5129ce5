/// Observation of one Store's managed objects (types that conform to `Observable`): the accessors a
/// read may have tracked, by row, and the observer that tells Observation of each commit the Store
/// moves to. A commit's changed columns are told for each accessor of a changed row (`willSet` then
/// `didSet` under the column's key path), every column of a deleted row, and every column of every
/// accessor when the commit's changes are not known (another process committed).
///
/// An accessor is watched from its first read (`ObjectContext.observeCommits(of:)`), weakly: the
/// watch ends with the accessor, and the observer with the last watch. Owned by the Store's core,
/// on its thread.
final class CommitObservation {
    private unowned(unsafe) let core: StoreCore  // the core owns this part
    /// Per table, per row, the accessors watched.
    private var watched: [String: [RowKey: [WatchedObject]]] = [:]
    private var count = 0
    /// Watches to hold before the dead ones are next dropped.
    private var sweepAt = 64
    private var observer: CommitObserver?

    init(core: StoreCore) {
        self.core = core
    }

    private struct WatchedObject {
        weak var object: Object?
    }

    /// Watches `object` (managed by this Store, of an observable type) from now on.
    func watch(_ object: Object) {
        guard !core.isFrozen, let binding = object._binding else { return }
        watched[binding.name, default: [:]][object._key, default: []].append(WatchedObject(object: object))
        count += 1
        if count >= sweepAt {
            sweep()
            sweepAt = max(64, 2 * count)
        }
        guard observer == nil else { return }
        let observer = CommitObserver(observation: self, state: ObserverState(core: core))
        do {
            try core.observers.addShowing(observer)
            self.observer = observer
        } catch {
            observer.state.invalidate()  // the snapshot cannot be read: the next read tries again
            object.stopObservationWatch()
        }
    }

    /// Drops the watches of accessors gone.
    private func sweep() {
        for (table, rows) in watched {
            var kept: [RowKey: [WatchedObject]] = [:]
            for (key, objects) in rows {
                let live = objects.filter { $0.object != nil }
                if !live.isEmpty { kept[key] = live }
            }
            watched[table] = kept.isEmpty ? nil : kept
        }
        count = watched.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
    }

    /// Tells Observation what `span` changed of the watched accessors.
    fileprivate func deliver(_ span: ChangeSpan) {
        var told: [(Object, ColumnObservation, [Int]?)] = []
        for (table, rows) in watched {
            guard span.touches(table) else { continue }
            let changes = span.tables[table]
            for (key, objects) in rows {
                let columns: [Int]?  // nil: every column
                // (A row deleted and stored again within the span is modified in every column: -1.)
                if !span.isComplete || changes?.deleted.contains(key) == true {
                    columns = nil
                } else if let changed = changes?.modified[key] {
                    columns = changed.contains(-1) ? nil : changed.sorted()
                } else {
                    continue
                }
                for watched in objects {
                    guard let object = watched.object, let observation = object._observation else { continue }
                    told.append((object, observation.takeUnretainedValue(), columns))
                }
            }
        }
        // Told after the walk: an observer's `onChange` may read objects, and a read may watch more.
        for (object, observation, columns) in told {
            guard let columns else {
                observation.changed(object, column: nil)
                continue
            }
            for column in columns { observation.changed(object, column: column) }
        }
        sweep()
        if count == 0 {
            observer?.state.invalidate()
            observer = nil
        }
    }
}

/// The observer `CommitObservation` registers with its Store: it holds no token, so it keeps the
/// Store alive no longer than the Store's other holders do.
private final class CommitObserver: StoreObserver {
    let state: ObserverState
    private unowned(unsafe) let observation: CommitObservation  // the core owns both
    private(set) var version = 0
    private(set) var isStarted = false

    init(observation: CommitObservation, state: ObserverState) {
        self.observation = observation
        self.state = state
    }

    var keepsStoreAlive: Bool { false }

    func start(version: Int) {
        isStarted = true
        self.version = version
    }

    func rebaseline(version: Int) { self.version = version }

    func canEvaluate(on snapshot: StoreCore) -> Bool { true }

    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?) {
        version = span.to
        observation.deliver(span)
    }
}
