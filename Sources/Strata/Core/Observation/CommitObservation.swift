/// Observation of one Store's managed objects (types that conform to `Observable`): the accessors a
/// read may have tracked, by row, and the observer that tells Observation of each commit the Store
/// moves to. A commit's changed columns are told for each accessor of a changed row (`willSet` then
/// `didSet` under the column's key path), every column of a deleted row, and every column of every
/// accessor when the commit's changes are not known (another process committed). A change to an
/// object a row embeds is told as a change of the owner's property that holds it (`EmbeddedChanges`).
///
/// An accessor is watched from its first read (`ObjectContext.observeCommits(of:)`), weakly: the
/// watch ends with the accessor, and the observer with the last watch. A Results of an observable type
/// is watched the same way from its first read (`ResultsObservation`), and told when what was read
/// of it (its count, its objects, their values) differs at a commit that may change it. Owned by the
/// Store's core, on its thread.
final class CommitObservation {
    private unowned(unsafe) let core: StoreCore  // the core owns this part
    /// Per table, per row, the accessors watched.
    private var watched: [String: [RowKey: [WatchedObject]]] = [:]
    /// The Results watched (queries: a whole table's are in `tables`).
    private var watchedResults: [WatchedResults] = []
    /// Per table, the observation every whole-table Results of it shares, held as long as the Store:
    /// a Results made anew inside a tracked closure (`store.objects(Note.self).count`) is told too.
    private var tables: [String: ResultsObservation] = [:]
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

    private struct WatchedResults {
        weak var results: ResultsObservation?
    }

    /// Watches `object` (managed by this Store, of an observable type) from now on.
    func watch(_ object: Object) {
        guard !core.isFrozen, let binding = object._binding else { return }
        watched[binding.name, default: [:]][object._key, default: []].append(WatchedObject(object: object))
        added()
        if !observes() { object.stopObservationWatch() }  // the next read tries again
    }

    /// Watches a Results' observation from now on; false when the Store cannot (the next read tries
    /// again).
    func watch(_ results: ResultsObservation) -> Bool {
        guard !core.isFrozen else { return false }
        watchedResults.append(WatchedResults(results: results))
        added()
        guard observes() else {
            watchedResults.removeLast()
            return false
        }
        return true
    }

    /// The observation the whole-table Results of `table` share, made by `make` and watched at first
    /// use; nil when the Store cannot watch (the next read tries again).
    func tableObservation(_ table: String, make: () -> ResultsObservation) -> ResultsObservation? {
        if let known = tables[table] { return known }
        guard !core.isFrozen, observes() else { return nil }
        let observation = make()
        tables[table] = observation
        count += 1
        return observation
    }

    /// Whether the Store shows changes its commit observer has not delivered yet: inside a write, or
    /// after it moved to a commit (this thread's, or at a write's start) whose delivery is pending.
    var showsUndelivered: Bool {
        guard core.session == nil, let observer else { return true }
        return ((try? core.version()) ?? .max) != observer.version
    }

    private func added() {
        count += 1
        if count >= sweepAt {
            sweep()
            sweepAt = max(64, 2 * count)
        }
    }

    /// Registers the commit observer unless it is there; false when the snapshot cannot be read.
    private func observes() -> Bool {
        guard observer == nil else { return true }
        let observer = CommitObserver(observation: self, state: ObserverState(core: core))
        do {
            try core.observers.addShowing(observer)
            self.observer = observer
            return true
        } catch {
            observer.state.invalidate()
            return false
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
        watchedResults.removeAll { $0.results == nil }
        count = watched.values.reduce(watchedResults.count + tables.count) {
            $0 + $1.values.reduce(0) { $0 + $1.count }
        }
    }

    /// Tells Observation what `span` changed of the watched accessors.
    fileprivate func deliver(_ span: ChangeSpan) {
        var told: [(Object, ColumnObservation, [Int]?)] = []
        let embedded = EmbeddedChanges(core: core, span: span)
        for (table, rows) in watched {
            let binding = span.isComplete ? core.tables.existingBinding(named: table) : nil
            let throughEmbedded = binding.map(embedded.mayChange) == true
            guard span.touches(table) || throughEmbedded else { continue }
            let changes = span.tables[table]
            for (key, objects) in rows {
                let columns: [Int]?  // nil: every column
                // (A row deleted and stored again within the span is modified in every column: -1.)
                if !span.isComplete || changes?.deleted.contains(key) == true {
                    columns = nil
                } else {
                    // (A row the span inserted is told only what later commits of the span did to it.)
                    var changed = changes?.modified[key] ?? changes?.changedAfterInsertion[key] ?? []
                    if throughEmbedded, let binding { changed.formUnion(embedded.columns(of: key, in: binding)) }
                    guard !changed.isEmpty else { continue }
                    columns = changed.contains(-1) ? nil : changed.sorted()
                }
                for watched in objects {
                    guard let object = watched.object, let observation = object._observation else { continue }
                    told.append((object, observation.takeUnretainedValue(), columns))
                }
            }
        }
        var toldResults: [(ResultsObservation, ResultsObservation.Aspects)] = []
        for results in tables.values.map(Optional.some) + watchedResults.map(\.results) {
            guard let results, results.mayChange(in: span) else { continue }
            let changed = results.changes(in: span)
            if !changed.isEmpty { toldResults.append((results, changed)) }
        }
        // Told after the walk: an observer's `onChange` may read objects, and a read may watch more.
        for (object, observation, columns) in told {
            guard let columns else {
                observation.changed(object, column: nil)
                continue
            }
            for column in columns { observation.changed(object, column: column) }
        }
        for (results, changed) in toldResults { results.tell(changed) }
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
