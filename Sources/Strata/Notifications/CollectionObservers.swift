/// What changed in a Map between two deliveries, by key (Realm's `RealmMapChange`).
public enum MapChange<Collection> {
    /// The map when observation began: always delivered first, on its own.
    case initial(Collection)
    /// The map now; the keys removed, added, and whose value changed since the previous delivery.
    /// When the map's owner is deleted, every key is removed and observation ends.
    case update(Collection, deletions: [String], insertions: [String], modifications: [String])
    /// Observing failed (the file is damaged); nothing more is delivered.
    case error(StoreError)
}

extension Map {
    /// Observes the map: `.initial` first, then an `.update` naming the keys removed, added and
    /// changed by each write that changes it (from any thread or Store of the process).
    ///
    /// ```swift
    /// let token = try contact.phones.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { … }
    /// }
    /// ```
    /// Delivery is as for `Object.observe` on the Store's own queue or thread. When the owner is
    /// deleted, the last update removes every key.
    ///
    /// - Throws: `.notManaged` for an unmanaged map, `.wrongThread`, `.invalidated` when its owner
    ///   is deleted.
    /// - Warning: Keep the token: notifications stop when it is deinitialised. A change of an object
    ///   a value links to is not a modification of the map (its link did not change).
    public func observe(_ block: @escaping (MapChange<Map>) -> Void) throws(StoreError) -> NotificationToken {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try ColumnObserver.register(owner: owner, column: column) { [self] event in
            do throws(RowDamage) {
                switch event {
                case .start: block(.initial(self))
                case .failed(let error): block(.error(error))
                case .deleted(let old):
                    let keys = try Self.storedEntries(old).map(\.key)
                    block(.update(self, deletions: keys, insertions: [], modifications: []))
                case .change(let old, let new):
                    var oldValues: [String: [UInt8]?] = [:]
                    for entry in try Self.storedEntries(old) { oldValues[entry.key] = entry.value }
                    var insertions: [String] = []
                    var modifications: [String] = []
                    for entry in try Self.storedEntries(new) {
                        guard let previous = oldValues.removeValue(forKey: entry.key) else {
                            insertions.append(entry.key)
                            continue
                        }
                        if previous != entry.value { modifications.append(entry.key) }
                    }
                    let deletions = oldValues.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                    guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
                    block(.update(self, deletions: deletions, insertions: insertions, modifications: modifications))
                }
            } catch {
                block(.error(.corrupted("Map<String, \(Value.self)>: \(error)")))
            }
        }
    }

    /// A stored map's keys and value bytes, copied out.
    private static func storedEntries(_ bytes: [UInt8]) throws(RowDamage) -> [(key: String, value: [UInt8]?)] {
        try bytes.withBytes { (raw) throws(RowDamage) in
            try MapFormat.entries(raw).map { (String(decoding: $0.key, as: UTF8.self), $0.value.map { Array($0) }) }
        }
    }
}

extension MutableSet {
    /// Observes the set: `.initial` first, then an `.update` with the indices (in the set's order)
    /// removed (old indices) and added (new indices) by each write that changes it.
    ///
    /// ```swift
    /// let token = try contact.tags.observe { change in
    ///     if case .update(_, let deletions, let insertions, _) = change { … }
    /// }
    /// ```
    /// When the owner is deleted, the last update removes every element.
    ///
    /// - Throws: `.notManaged` for an unmanaged set, `.wrongThread`, `.invalidated` when its owner
    ///   is deleted.
    /// - Warning: Keep the token: notifications stop when it is deinitialised. Modifications are
    ///   always empty: a member that changes is another member.
    public func observe(_ block: @escaping (CollectionChange<MutableSet>) -> Void) throws(StoreError)
        -> NotificationToken
    {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try ColumnObserver.register(owner: owner, column: column) { [self] event in
            do throws(RowDamage) {
                switch event {
                case .start: block(.initial(self))
                case .failed(let error): block(.error(error))
                case .deleted(let old):
                    let count = try Self.memberKeys(old).count
                    block(.update(self, deletions: Array(0..<count), insertions: [], modifications: []))
                case .change(let old, let new):
                    let before = try Self.memberKeys(old)
                    let after = try Self.memberKeys(new)
                    let kept = Set(before).intersection(after)
                    let deletions = before.indices.filter { !kept.contains(before[$0]) }
                    let insertions = after.indices.filter { !kept.contains(after[$0]) }
                    guard !(deletions.isEmpty && insertions.isEmpty) else { return }
                    block(.update(self, deletions: deletions, insertions: insertions, modifications: []))
                }
            } catch {
                block(.error(.corrupted("MutableSet<\(Element.self)>: \(error)")))
            }
        }
    }

    /// The order keys of a stored set's members, in order.
    private static func memberKeys(_ bytes: [UInt8]) throws(RowDamage) -> [[UInt8]] {
        let type = Element._strataElementType.type
        return try bytes.withBytes { (raw) throws(RowDamage) in
            try ListFormat.elements(raw).map { (element) throws(RowDamage) in try SetOrder.key(element, type: type) }
        }
    }
}

/// What a `ColumnObserver` reports: the column's bytes at the start, old and new bytes when they
/// changed, the last bytes when the row was deleted (it stops then), or a failure (it stops).
enum ColumnEvent {
    case start([UInt8])
    case change(old: [UInt8], new: [UInt8])
    case deleted(old: [UInt8])
    case failed(StoreError)
}

/// Watches one column of one row (a Map's or a MutableSet's): keeps its bytes, and reports a
/// `ColumnEvent` when they change.
final class ColumnObserver: StoreObserver {
    let state: ObserverState
    private unowned(unsafe) let core: StoreCore  // the core owns this observer
    private let binding: TableBinding
    private let key: RowKey
    private let column: Int
    private let changed: (ColumnEvent) -> Void
    private var bytes: [UInt8]?
    private(set) var version = 0
    private(set) var isStarted = false

    private init(
        core: StoreCore, binding: TableBinding, key: RowKey, column: Int, state: ObserverState,
        changed: @escaping (ColumnEvent) -> Void
    ) {
        self.core = core
        self.binding = binding
        self.key = key
        self.column = column
        self.state = state
        self.changed = changed
    }

    /// Starts watching `column` of `owner`'s row on its Store.
    static func register(
        owner: Object, column: Int, changed: @escaping (ColumnEvent) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard let core = owner._core, let binding = owner._tableBinding else { throw .notManaged }
        try core.checkConfined()
        _ = try core.currentRow(of: owner)  // .invalidated for a deleted owner; damage stays damage
        let state = ObserverState(core: core)
        let observer = ColumnObserver(
            core: core, binding: binding, key: owner._key, column: column, state: state, changed: changed)
        try core.observers.add(observer, startNow: true)
        return NotificationToken(state: state)
    }

    /// The column's bytes now (nil: the row is gone); an empty array for a null column.
    private func current(in source: StoreCore) throws(StoreError) -> [UInt8]? {
        guard let binding = source === core ? self.binding : source.tables.existingBinding(named: self.binding.name),
            let row = try source.rows.fetchRow(binding, key: key)
        else { return nil }
        do {
            return try row.column(column).map { Array($0) } ?? []
        } catch {
            throw .damaged(at: binding.location(of: key, column: column), error)
        }
    }

    func start(version: Int) {
        isStarted = true
        self.version = version
        bytes = (try? current(in: core)) ?? nil
        if let bytes { changed(.start(bytes)) }
    }

    func rebaseline(version: Int) {
        self.version = version
        bytes = ((try? current(in: core)) ?? nil) ?? bytes
    }

    func canEvaluate(on snapshot: StoreCore) -> Bool {
        snapshot.tables.existingBinding(named: binding.name) != nil
    }

    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?) {
        defer { version = span.to }
        if span.isComplete {
            guard let changes = span.tables[binding.name],
                changes.deleted.contains(key) || changes.modified[key] != nil || changes.inserted.contains(key)
            else { return }
        }
        let now: [UInt8]?
        do {
            now = try current(in: snapshot ?? core)
        } catch {
            state.invalidate()
            return changed(.failed(error))
        }
        guard let old = bytes else { return }
        guard let now else {
            state.invalidate()
            return changed(.deleted(old: old))
        }
        guard now != old else { return }
        bytes = now
        changed(.change(old: old, new: now))
    }
}
