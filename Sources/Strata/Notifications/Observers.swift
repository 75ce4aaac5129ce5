/// Watches a Results: keeps the keys it last delivered, and on each change computes the new keys and
/// the difference (Realm's indices: deletions and modifications old, insertions new).
final class ResultsObserver<Element: Object>: StoreObserver {
    let state: ObserverState
    private unowned(unsafe) let core: StoreCore  // the core owns this observer
    private let binding: TableBinding
    private let stages: [Results<Element>.Stage]
    /// Observed columns, and the routes through links whose changes count as modifications.
    private let observed: ObservedPaths
    /// Whether the Results can change through other types (conditions through links, closures).
    private let readsOtherTypes: Bool
    private let block: (CollectionChange<Results<Element>>, ChangeVersions) -> Void
    private var keys: [RowKey] = []
    private(set) var version = 0
    private(set) var isStarted = false

    init(
        results: Results<Element>, observed: ObservedPaths, state: ObserverState,
        block: @escaping (CollectionChange<Results<Element>>, ChangeVersions) -> Void
    ) {
        core = results.core
        binding = results.binding
        stages = results.stages
        self.observed = observed
        self.state = state
        self.block = block
        readsOtherTypes = results.stages.contains { stage in
            switch stage {
            case .predicate(let predicate): predicate.followsLinks
            case .filter, .sort, .distinct: true
            case .limit, .ranked, .nearest: false
            case .distinctPaths(let paths): paths.contains { $0.steps.count > 1 }
            case .members: true
            }
        }
    }

    private var results: Results<Element> { Results(core: core, binding: binding, stages: stages) }

    func start(version: Int) {
        isStarted = true
        self.version = version
        keys = results.keys()
        block(.initial(results), ChangeVersions(from: version, to: version))
    }

    func rebaseline(version: Int) {
        self.version = version
        keys = results.keys()
    }

    func canEvaluate(on snapshot: StoreCore) -> Bool {
        (try? snapshot.binding(for: Element.self)) != nil  // its only failure: the type is not in that schema
    }

    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?) {
        defer { version = span.to }
        let relevant =
            readsOtherTypes
            ? !span.isComplete || !span.tables.isEmpty : span.touches(binding.name) || observed.touchesLinkedTypes(span)
        guard relevant else { return }
        let current =
            snapshot.map { Results(core: $0, binding: $0.tables.bindingOrTrap(for: Element.self), stages: stages) }
            ?? results
        let changes = span.tables[binding.name]
        let throughLinks: [RowKey: Set<String>]
        do {
            throughLinks = span.isComplete ? try observed.modifiedThroughLinks(in: span, core: snapshot ?? core) : [:]
        } catch {
            state.invalidate()
            return block(.error(error), ChangeVersions(from: span.from, to: span.to))
        }
        let isModified = { [observed] (key: RowKey) -> Bool in
            guard span.isComplete else { return true }  // another process committed: cannot tell
            if throughLinks[key] != nil { return true }
            guard let changed = changes?.modified[key] else { return false }
            guard let columns = observed.columns else { return true }
            return changed.contains(-1) || !changed.isDisjoint(with: columns)
        }
        let difference: KeyDifference
        if stages.isEmpty, span.isComplete, let changes {
            // A whole table in key order: the log says everything, no need to read the keys again.
            difference = KeyDifference(
                keysInOrder: &keys, applying: changes, alsoModified: throughLinks.keys, isModified: isModified)
        } else if stages.isEmpty, span.isComplete, !throughLinks.isEmpty {
            // Only linked objects changed: the keys are the same.
            difference = KeyDifference(
                keysInOrder: &keys, applying: TableChanges(), alsoModified: throughLinks.keys, isModified: isModified)
        } else {
            let newKeys = current.keys()
            difference = KeyDifference(old: keys, new: newKeys, isModified: isModified)
            keys = newKeys
        }
        guard !difference.isEmpty else { return }
        block(
            .update(
                current, deletions: difference.deletions, insertions: difference.insertions,
                modifications: difference.modifications),
            ChangeVersions(from: span.from, to: span.to))
    }
}

/// Watches one object: keeps the bytes of its observed columns, and reports the ones that differ.
final class ObjectObserver<T: Object>: StoreObserver {
    let state: ObserverState
    private unowned(unsafe) let core: StoreCore
    private let binding: TableBinding
    private let key: RowKey
    /// The observed columns of the object's own row.
    private let columns: [Int]
    /// What else counts: changes of objects its links reach.
    private let observed: ObservedPaths
    private let block: (ObjectChange<T>, ChangeVersions) -> Void
    private var values: [[UInt8]?] = []
    private(set) var version = 0
    private(set) var isStarted = false

    init(
        object: T, observed: ObservedPaths, state: ObserverState,
        block: @escaping (ObjectChange<T>, ChangeVersions) -> Void
    ) {
        core = object._core!
        binding = object._tableBinding!
        key = object._key
        columns = observed.columns.map { $0.sorted() } ?? Array(0..<binding.columnCount)
        self.observed = observed
        self.state = state
        self.block = block
    }

    private func currentValues(in source: StoreCore? = nil) throws(StoreError) -> [[UInt8]?]? {
        let source = source ?? core
        let binding = source === core ? self.binding : source.tables.bindingOrTrap(for: T.self)
        guard let row = try source.rows.fetchRow(binding, key: key) else { return nil }
        var values: [[UInt8]?] = []
        for column in columns {
            do {
                values.append(try row.column(column).map { Array($0) })
            } catch {
                throw .damaged(at: binding.location(of: key, column: column), error)
            }
        }
        return values
    }

    func start(version: Int) {
        isStarted = true
        rebaseline(version: version)
    }

    func rebaseline(version: Int) {
        self.version = version
        // Unreadable now (damage): keep the old baseline; the next delivery reads again and reports it.
        values = ((try? currentValues()) ?? nil) ?? values
    }

    func canEvaluate(on snapshot: StoreCore) -> Bool {
        (try? snapshot.binding(for: T.self)) != nil  // its only failure: the type is not in that schema
    }

    func deliver(_ span: ChangeSpan, at snapshot: StoreCore?) {
        defer { version = span.to }
        let versions = ChangeVersions(from: span.from, to: span.to)
        let throughLinks: Set<String>
        let current: [[UInt8]?]?
        do {
            throughLinks =
                span.isComplete && observed.touchesLinkedTypes(span)
                ? try observed.modifiedThroughLinks(in: span, core: snapshot ?? core)[key] ?? [] : []
            if span.isComplete, throughLinks.isEmpty {
                guard let changes = span.tables[binding.name],
                    changes.deleted.contains(key) || changes.modified[key] != nil || changes.inserted.contains(key)
                else { return }
            }
            current = try currentValues(in: snapshot)
        } catch {
            state.invalidate()
            return block(.error(error), versions)
        }
        guard let current else {
            state.invalidate()
            return block(.deleted, versions)
        }
        var changes: [PropertyChange] = []
        for (index, column) in columns.enumerated()
        where observed.counts(column: column, old: values[index], new: current[index]) {
            changes.append(
                PropertyChange(
                    name: binding.columnNames[column], oldValue: decode(values[index], column: column),
                    newValue: decode(current[index], column: column)))
        }
        // A linked object changed: reported under the link's name (links carry no old and new values).
        for name in binding.columnNames
        where throughLinks.contains(name) && !changes.contains(where: { $0.name == name }) {
            changes.append(PropertyChange(name: name, oldValue: nil, newValue: nil))
        }
        values = current
        guard !changes.isEmpty else { return }
        let source = snapshot ?? core
        let object = source.materialize(
            T.self, binding: source === core ? binding : source.tables.bindingOrTrap(for: T.self), key: key)
        block(.change(object, changes), versions)
    }

    private func decode(_ bytes: [UInt8]?, column: Int) -> Any? {
        let type = binding.columnTypes[column]
        if type.linkedTypeName != nil { return nil }
        if type.isCollection { return nil }
        let kind = binding.columnAccessors[column].kind
        // Old and new values are for display; a value that cannot be decoded shows as nil (reads report it).
        return bytes.withBytesIfPresent { raw in
            try? kind.decodeForDescription(raw, in: _DecodeContext(owner: nil, column: column))
        }
    }
}

extension Optional where Wrapped == [UInt8] {
    fileprivate func withBytesIfPresent(_ body: (UnsafeRawBufferPointer?) -> Any?) -> Any? {
        switch self {
        case .none: body(nil)
        case .some(let bytes): bytes.withUnsafeBytes { body($0) }
        }
    }
}

extension Predicate {
    /// Whether any comparison reads another type's row.
    var followsLinks: Bool {
        switch self {
        case .comparison(let comparison): comparison.path.steps.count > 1
        case .collection: true
        case .constant: false
        case .and(let lhs, let rhs), .or(let lhs, let rhs): lhs.followsLinks || rhs.followsLinks
        case .not(let inner): inner.followsLinks
        }
    }
}

/// The difference between two key lists in Realm's terms. Keys in both lists that keep their
/// relative order (the longest increasing run of their old positions) stay; every other old key is
/// a deletion and every other new key an insertion. Staying keys that `isModified` are modifications.
struct KeyDifference {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    init(old: [RowKey], new: [RowKey], isModified: (RowKey) -> Bool) {
        var oldPositions: [RowKey: Int] = [:]
        oldPositions.reserveCapacity(old.count)
        for (index, key) in old.enumerated() { oldPositions[key] = index }
        // Old positions of the keys that are in both, in new order.
        var common: [(new: Int, old: Int)] = []
        for (index, key) in new.enumerated() {
            if let position = oldPositions[key] { common.append((index, position)) }
        }
        let staying = Self.longestIncreasingRun(common.map(\.old))
        var stayingOld = Set<Int>()
        var stayingNew = Set<Int>()
        for index in staying {
            stayingOld.insert(common[index].old)
            stayingNew.insert(common[index].new)
        }
        for index in old.indices where !stayingOld.contains(index) { deletions.append(index) }
        for index in new.indices where !stayingNew.contains(index) { insertions.append(index) }
        for index in old.indices where stayingOld.contains(index) && isModified(old[index]) {
            modifications.append(index)
        }
    }

    /// For keys in table order, from the log alone: O(changes × log n). Updates `keys` to the new list.
    /// `alsoModified`: keys modified through their links, beside the log's own modifications.
    init(
        keysInOrder keys: inout [RowKey], applying changes: TableChanges, alsoModified: some Collection<RowKey>,
        isModified: (RowKey) -> Bool
    ) {
        func position(_ key: RowKey, in keys: [RowKey]) -> (index: Int, found: Bool) {
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return (low, low < keys.count && keys[low] == key)
        }
        for key in changes.deleted {
            let found = position(key, in: keys)
            if found.found { deletions.append(found.index) }
        }
        var modified = Set<Int>()
        for key in changes.modified.keys.lazy.filter(isModified) + alsoModified where !changes.deleted.contains(key) {
            let found = position(key, in: keys)
            if found.found { modified.insert(found.index) }
        }
        modifications = modified.sorted()
        deletions.sort()
        for index in deletions.reversed() { keys.remove(at: index) }
        let inserted = changes.inserted.sorted()
        if let first = inserted.first, keys.last.map({ $0 < first }) ?? true {
            let start = keys.count
            keys += inserted  // the common case: new keys after every old one
            insertions = Array(start..<keys.count)
        } else {
            for key in inserted {
                let found = position(key, in: keys)
                if !found.found { keys.insert(key, at: found.index) }
            }
            for key in inserted { insertions.append(position(key, in: keys).index) }
            insertions.sort()
        }
    }

    /// Indices (into `values`) of a longest strictly increasing subsequence: O(n log n).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // index into values of the smallest tail of each length
        var previous = Array(repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var current = tails.last ?? -1
        while current >= 0 {
            run.append(current)
            current = previous[current]
        }
        return run.reversed()
    }
}
