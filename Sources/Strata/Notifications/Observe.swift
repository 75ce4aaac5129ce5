import Dispatch

extension Results {
    /// Observes the Results: `.initial` first, on its own, then an `.update` after every write (of
    /// any thread or Store of the process) that changes which objects it holds, their order, or what
    /// `keyPaths` name of an object it holds.
    ///
    /// ```swift
    /// let token = try dogs.observe(keyPaths: [\.name, \.owner?.name]) { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { … }
    /// }
    /// ```
    /// With no key paths (the default, as in Realm), a change of any property of an object counts as a
    /// modification, and so does a change of any object its links and Lists reach, up to
    /// `ObservedPaths.defaultDepth` (4) links deep. A key path may go through links
    /// (`\.owner?.name`): a change of that property of the linked object, or the link pointing
    /// elsewhere, counts.
    ///
    /// Delivery is asynchronous, on the Store's queue: its serial queue, or the main queue for a Store
    /// of the main thread; when a callback runs, the Store (and the Results it receives) already show
    /// the new state. With `queue`, another serial queue, the Results is opened again on a Store of
    /// that queue (as `Store(configuration:queue:)`), and callbacks receive objects of that Store.
    /// A Store of a thread without queue delivers on `refresh()` and when a write begins. Commits of
    /// another process are noticed when the Store moves to them (`refresh()`); their modifications
    /// cannot be told apart, so every object that stayed is reported as modified.
    ///
    /// - Throws: `.wrongThread`, `.invalidArgument` for a frozen Results, a concurrent `queue`, or a key
    ///   path that names no stored property (a computed one). Failing to open the Store on `queue`
    ///   arrives as `.error`.
    /// - Warning: Keep the token: notifications stop when it is deinitialised. `queue` must be serial.
    public func observe(
        keyPaths: [PartialKeyPath<Element>] = [], on queue: DispatchQueue? = nil, everyCommit: Bool = false,
        _ block: @escaping (CollectionChange<Results<Element>>) -> Void
    ) throws(StoreError) -> NotificationToken {
        try observe(keyPaths: keyPaths, on: queue, everyCommit: everyCommit) { change, _ in block(change) }
    }

    /// As `observe(keyPaths:on:_:)`, with the versions each change spans and how many commits it
    /// coalesces.
    ///
    /// With `everyCommit`, commits are not coalesced: each commit gets its own `.update`, whose
    /// Results is a frozen snapshot of exactly that commit (the last one of a delivery is the live
    /// Results). Each commit then pins a snapshot until every such observer has seen it (at most 32
    /// are kept; beyond that, and for commits of other processes, changes are coalesced again).
    public func observe(
        keyPaths: [PartialKeyPath<Element>] = [], on queue: DispatchQueue? = nil, everyCommit: Bool = false,
        _ block: @escaping (CollectionChange<Results<Element>>, ChangeVersions) -> Void
    ) throws(StoreError) -> NotificationToken {
        try core.checkConfined()
        return try observe(
            ObservationSpec(keyPaths: keyPaths, schema: binding.schema), on: queue, everyCommit: everyCommit, block)
    }

    /// As `observe(keyPaths:on:_:)`, with Realm's dotted property names: `["name", "owner.name"]`, and
    /// through Lists of objects, `["dogs.name"]` (a Swift key path cannot name a List's elements).
    /// A Map key (`"phones.home"`) counts as its whole Map here (a Results observer keeps no old
    /// values); `Object.observe` counts that key only.
    ///
    /// - Throws: as `observe(keyPaths:on:_:)`; `.invalidArgument` for a name the type does not have.
    public func observe(
        keyPaths: [String], on queue: DispatchQueue? = nil, everyCommit: Bool = false,
        _ block: @escaping (CollectionChange<Results<Element>>) -> Void
    ) throws(StoreError) -> NotificationToken {
        try core.checkConfined()
        return try observe(
            ObservationSpec(names: keyPaths, schema: binding.schema), on: queue, everyCommit: everyCommit
        ) {
            change, _ in block(change)
        }
    }

    func observe(
        _ spec: ObservationSpec, on queue: DispatchQueue?, everyCommit: Bool,
        _ block: @escaping (CollectionChange<Results<Element>>, ChangeVersions) -> Void
    ) throws(StoreError) -> NotificationToken {
        try core.checkConfined()
        if let elsewhere = try core.observers.foreignDeliveryQueue(queue) {
            let state = ObserverState(hub: core.shared.changes, everyCommit: everyCommit)
            let stages = self.stages
            observeElsewhere(
                configuration: core.configuration, queue: elsewhere, state: state,
                make: { (there) throws(StoreError) in
                    let results = Results(core: there, binding: try there.binding(for: Element.self), stages: stages)
                    let observed = try ObservedPaths(spec, root: results.binding, in: there)
                    return (ResultsObserver(results: results, observed: observed, state: state, block: block), false)
                },
                failed: { block(.error($0), ChangeVersions(from: 0, to: 0)) })
            return NotificationToken(state: state)
        }
        let observed = try ObservedPaths(spec, root: binding, in: core)
        let state = ObserverState(core: core, everyCommit: everyCommit)
        try core.observers.add(
            ResultsObserver(results: self, observed: observed, state: state, block: block), startNow: false)
        return NotificationToken(state: state)
    }
}

extension ThreadConfined where Self: Object {
    /// Observes the object: `.change` with the properties that a write changed, `.deleted` when it is
    /// deleted. Delivered like `Results.observe`.
    ///
    /// ```swift
    /// let token = try dog.observe(keyPaths: [\.name, \.owner?.name]) { change in
    ///     if case .change(_, let properties) = change { print(properties.map(\.name)) }
    /// }
    /// ```
    /// With no key paths (the default, as in Realm), every property counts, and a change of an object
    /// its links and Lists reach (up to 4 links deep) is reported under the link's name, with nil old
    /// and new values (as for every link and List property). A key path may go through links
    /// (`\.owner?.name`).
    ///
    /// - Throws: `.notManaged`, `.invalidated` (this Store deleted it), `.deletedInAnotherThread`
    ///   (another thread, queue, actor or process did), `.wrongThread`, `.invalidArgument` for
    ///   a frozen object, a concurrent `queue`, or a key path that names no stored property. On another
    ///   `queue` the object's baseline is taken when that queue first runs.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [PartialKeyPath<Self>] = [], on queue: DispatchQueue? = nil, everyCommit: Bool = false,
        _ block: @escaping (ObjectChange<Self>) -> Void
    ) throws(StoreError) -> NotificationToken {
        try observe(keyPaths: keyPaths, on: queue, everyCommit: everyCommit) { change, _ in block(change) }
    }

    /// As `observe(keyPaths:on:_:)`, with the versions each change spans. `everyCommit` as for
    /// `Results.observe`: one `.change` per commit, its object frozen at that commit.
    public func observe(
        keyPaths: [PartialKeyPath<Self>] = [], on queue: DispatchQueue? = nil, everyCommit: Bool = false,
        _ block: @escaping (ObjectChange<Self>, ChangeVersions) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard let binding = _tableBinding else { throw .notManaged }
        return try observe(
            ObservationSpec(keyPaths: keyPaths, schema: binding.schema), on: queue, everyCommit: everyCommit, block)
    }

    /// As `observe(keyPaths:on:_:)`, with Realm's dotted property names (`["name", "dogs.name"]`).
    /// After a Map of values the last part is a key: `["phones.home"]` reports a change of
    /// `phones["home"]` only (set, changed or removed), under the name `phones`.
    ///
    /// - Throws: as `observe(keyPaths:on:_:)`; `.invalidArgument` for a name the type does not have.
    public func observe(
        keyPaths: [String], on queue: DispatchQueue? = nil, everyCommit: Bool = false,
        _ block: @escaping (ObjectChange<Self>) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard let binding = _tableBinding else { throw .notManaged }
        return try observe(
            ObservationSpec(names: keyPaths, schema: binding.schema), on: queue, everyCommit: everyCommit
        ) {
            change, _ in block(change)
        }
    }

    func observe(
        _ spec: ObservationSpec, on queue: DispatchQueue?, everyCommit: Bool,
        _ block: @escaping (ObjectChange<Self>, ChangeVersions) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard let core = _core, let binding = _tableBinding else { throw .notManaged }
        try core.checkConfined()
        _ = try core.currentRow(of: self)  // .invalidated for a deleted object; damage stays damage
        if let elsewhere = try core.observers.foreignDeliveryQueue(queue) {
            let state = ObserverState(hub: core.shared.changes, everyCommit: everyCommit)
            let key = _key
            observeElsewhere(
                configuration: core.configuration, queue: elsewhere, state: state,
                make: { (there) throws(StoreError) in
                    guard let object = try there.object(Self.self, key: key) else { throw .deletedInAnotherThread }
                    let observed = try ObservedPaths(spec, root: try there.binding(for: Self.self), in: there)
                    return (ObjectObserver(object: object, observed: observed, state: state, block: block), true)
                },
                failed: { error in
                    block(error == .deletedInAnotherThread ? .deleted : .error(error), ChangeVersions(from: 0, to: 0))
                })
            return NotificationToken(state: state)
        }
        let observed = try ObservedPaths(spec, root: binding, in: core)
        let state = ObserverState(core: core, everyCommit: everyCommit)
        try core.observers.add(
            ObjectObserver(object: self, observed: observed, state: state, block: block), startNow: true)
        return NotificationToken(state: state)
    }
}

/// Registers an observer on a Store of `queue` (opened there, as `Store(configuration:queue:)`),
/// so that callbacks run on `queue` with objects of that Store. `make` runs on `queue`.
func observeElsewhere(
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
            try store.core.observers.add(observer, startNow: startNow)
        } catch {
            state.invalidate()
            failed(error)
        }
    }
    queue.async { work.run() }
}

/// Carries the registration of an observer to the queue it is delivered on; the closures it holds
/// run there only.
struct UncheckedWork: @unchecked Sendable {
    let run: () -> Void
}
