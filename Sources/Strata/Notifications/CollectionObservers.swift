import Dispatch

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
    /// For a Map of objects, a change of an object it holds is a modification of its key (as Realm):
    /// of any property, or of the properties `keyPaths` names (`["name"]`). Delivery is as for
    /// `Object.observe`, on the Store's own queue or thread, or on another serial `queue` (the map
    /// is then read there, from a Store of that queue). When the owner is deleted, the last update
    /// removes every key.
    ///
    /// - Throws: `.notManaged` for an unmanaged map, `.wrongThread`, `.invalidated` when its owner
    ///   is deleted, `.invalidArgument` for key paths of a Map of values or a name the objects lack,
    ///   or a `queue` already known to be concurrent. Failing to open the Store on `queue` (a
    ///   concurrent one seen there first) arrives as `.error`.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil, _ block: @escaping (MapChange<Map>) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try ColumnObserver.register(owner: owner, column: column, keyPaths: keyPaths, on: queue) { owner in
            let map = Map(owner: owner, column: column)
            return { event in Self.deliver(event, of: map, to: block) }
        }
    }

    private static func deliver(_ event: ColumnEvent, of map: Map, to block: (MapChange<Map>) -> Void) {
        do throws(RowDamage) {
            switch event {
            case .start: block(.initial(map))
            case .failed(let error): block(.error(error))
            case .deleted(let old):
                let keys = try storedEntries(old).map(\.key)
                block(.update(map, deletions: keys, insertions: [], modifications: []))
            case .change(let old, let new, let linkedModified):
                var oldValues: [String: [UInt8]?] = [:]
                for entry in try storedEntries(old) { oldValues[entry.key] = entry.value }
                var insertions: [String] = []
                var modifications: [String] = []
                for entry in try storedEntries(new) {
                    guard let previous = oldValues.removeValue(forKey: entry.key) else {
                        insertions.append(entry.key)
                        continue
                    }
                    if previous != entry.value || entry.value.map(linkedModified.contains) == true {
                        modifications.append(entry.key)
                    }
                }
                let deletions = oldValues.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
                block(.update(map, deletions: deletions, insertions: insertions, modifications: modifications))
            }
        } catch {
            block(.error(.corrupted("Map<String, \(Value.self)>: \(error)")))
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
    /// For a set of objects, a change of a member (of any property, or of those `keyPaths` names) is
    /// a modification at its index (new indices); a set of values has no modifications (a value that
    /// changes is another member). `queue` as for `Map.observe`. When the owner is deleted, the last
    /// update removes every element.
    ///
    /// - Throws: `.notManaged` for an unmanaged set, `.wrongThread`, `.invalidated` when its owner
    ///   is deleted, `.invalidArgument` for key paths of a set of values or a name the objects lack,
    ///   or a `queue` already known to be concurrent. Failing to open the Store on `queue` arrives as
    ///   `.error`.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (CollectionChange<MutableSet>) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try ColumnObserver.register(owner: owner, column: column, keyPaths: keyPaths, on: queue) { owner in
            let set = MutableSet(owner: owner, column: column)
            return { event in Self.deliver(event, of: set, to: block) }
        }
    }

    private static func deliver(
        _ event: ColumnEvent, of set: MutableSet, to block: (CollectionChange<MutableSet>) -> Void
    ) {
        do throws(RowDamage) {
            switch event {
            case .start: block(.initial(set))
            case .failed(let error): block(.error(error))
            case .deleted(let old):
                let count = try memberKeys(old).count
                block(.update(set, deletions: Array(0..<count), insertions: [], modifications: []))
            case .change(let old, let new, let linkedModified):
                let before = try memberKeys(old)
                let after = try memberKeys(new)
                let kept = Set(before).intersection(after)
                let deletions = before.indices.filter { !kept.contains(before[$0]) }
                let insertions = after.indices.filter { !kept.contains(after[$0]) }
                var modifications: [Int] = []
                if !linkedModified.isEmpty {
                    let elements = try new.withBytes { (raw) throws(RowDamage) in
                        try ListFormat.elements(raw).map { $0.map { Array($0) } }
                    }
                    modifications = elements.indices.filter {
                        kept.contains(after[$0]) && elements[$0].map(linkedModified.contains) == true
                    }
                }
                guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
                block(.update(set, deletions: deletions, insertions: insertions, modifications: modifications))
            }
        } catch {
            block(.error(.corrupted("MutableSet<\(Element.self)>: \(error)")))
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
/// changed or an object they link to changed (`linkedModified`: the stored keys of those objects),
/// the last bytes when the row was deleted (it stops then), or a failure (it stops).
enum ColumnEvent {
    case start([UInt8])
    case change(old: [UInt8], new: [UInt8], linkedModified: Set<[UInt8]>)
    case deleted(old: [UInt8])
    case failed(StoreError)
}

/// For a collection of objects: which changes of the objects count (Realm's `keyPaths` of a
/// collection's `observe`): the linked type, and its columns whose change counts (nil: any).
struct LinkedWatch {
    let target: String
    let columns: Set<Int>?

    /// The watch of a collection of `elementType` for Realm's `keyPaths` (property names of the
    /// linked objects; nil: every property). A collection of values watches no objects.
    ///
    /// - Throws: `.invalidArgument` for key paths on a collection of values, or a name the linked type
    ///   lacks.
    static func of(_ elementType: PropertyType, keyPaths: [String]?, in core: StoreCore) throws(StoreError)
        -> LinkedWatch?
    {
        guard let targetName = elementType.linkedTypeName else {
            guard keyPaths?.isEmpty ?? true else {
                throw .invalidArgument("key paths name properties of linked objects; this collection holds values")
            }
            return nil
        }
        guard let keyPaths, !keyPaths.isEmpty else { return LinkedWatch(target: targetName, columns: nil) }
        let target = try core.tables.binding(named: targetName)
        var columns = Set<Int>()
        for name in keyPaths {
            guard let column = target.columnNames.firstIndex(of: name) else {
                throw .invalidArgument("key path \"\(name)\": \(targetName) has no stored property \(name)")
            }
            columns.insert(column)
        }
        return LinkedWatch(target: targetName, columns: columns)
    }
}

/// Watches one column of one row (a Map's or a MutableSet's): keeps its bytes, and reports a
/// `ColumnEvent` when they change, or when an object they link to changes as `linked` says.
final class ColumnObserver: StoreObserver {
    let state: ObserverState
    private unowned(unsafe) let core: StoreCore  // the core owns this observer
    private let binding: TableBinding
    private let key: RowKey
    private let column: Int
    private let linked: LinkedWatch?
    private let changed: (ColumnEvent) -> Void
    private var bytes: [UInt8]?
    private(set) var version = 0
    private(set) var isStarted = false

    private init(
        core: StoreCore, binding: TableBinding, key: RowKey, column: Int, linked: LinkedWatch?,
        state: ObserverState, changed: @escaping (ColumnEvent) -> Void
    ) {
        self.core = core
        self.binding = binding
        self.key = key
        self.column = column
        self.linked = linked
        self.state = state
        self.changed = changed
    }

    /// Starts watching `column` of `owner`'s row, on its Store or, with `queue`, on a Store of that
    /// serial queue (`make` then builds the event handler there, for the owner as that Store reads it).
    static func register(
        owner: Object, column: Int, keyPaths: [String]?, on queue: DispatchQueue?,
        make: @escaping (Object) -> (ColumnEvent) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard let core = owner._core, let binding = owner._tableBinding else { throw .notManaged }
        try core.checkConfined()
        _ = try core.currentRow(of: owner)  // .invalidated for a deleted owner; damage stays damage
        let linked = try LinkedWatch.of(binding.columnTypes[column], keyPaths: keyPaths, in: core)
        let key = owner._key
        if let elsewhere = try core.observers.foreignDeliveryQueue(queue) {
            let state = ObserverState(hub: core.shared.changes, everyCommit: false)
            let typeName = binding.name
            observeElsewhere(
                configuration: core.configuration, queue: elsewhere, state: state,
                make: { (there) throws(StoreError) in
                    let binding = try there.tables.binding(named: typeName)
                    guard let owner = try there.object(Object.self, binding: binding, key: key) else {
                        throw .deletedInAnotherThread
                    }
                    let observer = ColumnObserver(
                        core: there, binding: binding, key: key, column: column, linked: linked, state: state,
                        changed: make(owner))
                    return (observer, true)
                },
                failed: { error in make(owner)(.failed(error)) })
            return NotificationToken(state: state)
        }
        let state = ObserverState(core: core)
        let observer = ColumnObserver(
            core: core, binding: binding, key: key, column: column, linked: linked, state: state,
            changed: make(owner))
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
        // The objects the collection may link to that changed (known only for this process's commits).
        var linkedModified = Set<[UInt8]>()
        if span.isComplete, let linked, let changes = span.tables[linked.target] {
            for (target, columns) in changes.modified
            where linked.columns.map({ columns.contains(-1) || !columns.isDisjoint(with: $0) }) ?? true {
                linkedModified.insert(target.storedBytes)
            }
        }
        if span.isComplete, linkedModified.isEmpty {
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
        guard now != old || !linkedModified.isEmpty else { return }
        bytes = now
        changed(.change(old: old, new: now, linkedModified: linkedModified))
    }
}
