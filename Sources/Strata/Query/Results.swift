import Foundation

/// The objects of one type in a Store: a lazy, live, typed collection.
///
/// ```swift
/// let people = store.objects(Person.self)
/// print(people.count)                    // reads the table's count, no object is created
/// for person in people { print(person.name) }
/// let first = people.first
/// ```
/// Nothing is read until you ask. After a write on the same thread, or a `refresh()`, a Results you
/// hold shows the new state. Unsorted Results are in primary-key order, or insertion order for types
/// without primary key. Iterating visits the objects the Results held when the iteration began, even
/// if the loop writes.
///
/// - Warning: Confined to its Store's thread; reading it elsewhere traps.
public struct Results<Element: Object>: RandomAccessCollection {
    let core: StoreCore
    let binding: TableBinding
    /// What `where`, `filter`, `sorted` and `distinct` asked for, in order; empty for the whole table.
    let stages: [Stage]
    private let cache = KeyCache()

    enum Stage {
        case predicate(Predicate)
        case filter((Element) -> Bool)
        case sort([SortKey<Element>])
        case distinct([PartialKeyPath<Element>])
        /// The first n objects (`prefix(_:)`, a query's `LIMIT`).
        case limit(Int)
        /// The string language's `DISTINCT(…)`: properties of the type, or reached through to-one
        /// links (column-comparable).
        case distinctPaths([PropertyPath])
        /// The objects of a managed List of the owner's (its column), in the list's order: the
        /// first stage of `list.where` and `list.sorted`, read again at each evaluation.
        case members(owner: Object, column: Int)
    }

    /// The keys of the rows, for one table version of the Store (a query's for one generation), and
    /// (read outside a write) the rows themselves, for one generation: an object made from them needs
    /// no lookup.
    private final class KeyCache {
        var keys: [RowKey] = []
        var rows: [RowView] = []
        var epoch: UInt64 = 0
        var version: UInt64 = 0
        var rowsGeneration: UInt64 = 0
    }

    init(core: StoreCore, binding: TableBinding, stages: [Stage] = []) {
        self.core = core
        self.binding = binding
        self.stages = stages
    }

    func adding(_ stage: Stage) -> Results {
        Results(core: core, binding: binding, stages: stages + [stage])
    }

    /// The Store these objects belong to.
    public var store: Store { Store(core: core) }

    /// The keys of the rows now, read once per table version.
    func keys() -> [RowKey] {
        contents().keys
    }

    /// The keys, and the rows when they stay valid (a read snapshot, this generation).
    private func contents() -> (keys: [RowKey], rows: [RowView]) {
        core.assertConfined()
        if core.isFrozen {
            FrozenEvaluation.lock.lock()
            defer { FrozenEvaluation.lock.unlock() }
            return unsynchronizedContents()
        }
        return unsynchronizedContents()
    }

    private func unsynchronizedContents() -> (keys: [RowKey], rows: [RowView]) {
        guard stages.isEmpty else { return queryContents() }
        let version = core.tableVersions[binding.ordinal]
        let withRows = core.session == nil
        if cache.epoch == core.epoch, cache.version == version,
            !withRows || cache.rowsGeneration == core.generation
        {
            return (cache.keys, withRows ? cache.rows : [])
        }
        let found: [(key: RowKey, row: RowView)]
        do {
            found = try ColumnScanner(binding: binding, reader: core.rows, condition: .everyRow).rows()
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): reading the rows of \(binding.name): \(error)")
        }
        cache.keys = found.map(\.key)
        cache.rows = withRows ? found.map(\.row) : []
        cache.epoch = core.epoch
        cache.version = version
        cache.rowsGeneration = core.generation
        return (cache.keys, cache.rows)
    }

    /// A query's keys and rows, evaluated again whenever anything may have changed (any change in a
    /// write, or a new snapshot): a condition can follow links into other tables.
    private func queryContents() -> (keys: [RowKey], rows: [RowView]) {
        if cache.epoch == core.epoch, cache.rowsGeneration == core.generation { return (cache.keys, cache.rows) }
        do {
            if let collected = try collectedRows() {
                (cache.keys, cache.rows) = collected
            } else {
                let found = try evaluate()
                cache.keys = found.map(\.key)
                cache.rows = found.map(\.row)
            }
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): querying \(binding.name): \(error)")
        }
        cache.epoch = core.epoch
        cache.rowsGeneration = core.generation
        return (cache.keys, cache.rows)
    }

    /// Runs the stages: candidates from an index when the first stage is a condition that can use
    /// one, else the whole table; then each stage in turn.
    private func evaluate() throws(StoreError) -> [(key: RowKey, row: RowView)] {
        if let page = try indexOrderedFirstPage() { return page }
        if let page = try streamedFirstPage() { return page }
        if let rows = try streamedDistinct() { return rows }
        var items: [(key: RowKey, row: RowView)]
        var remaining = stages[...]
        if case .members(let owner, let column)? = stages.first {
            items = try memberRows(owner: owner, column: column)
            remaining = remaining.dropFirst()
        } else if case .predicate(let predicate)? = stages.first {
            if let plan = CandidatePlan.best(for: predicate, binding: binding) {
                items = try plan.rows(of: binding, in: core.rows)
            } else {
                // A scan tests each row as the cursor reaches it: only the matches are kept.
                items = try matchingRows(predicate)
                remaining = remaining.dropFirst()
            }
        } else {
            items = try ColumnScanner(binding: binding, reader: core.rows, condition: .everyRow).rows()
        }
        for (position, stage) in zip(remaining.indices, remaining) {
            switch stage {
            case .predicate(let predicate):
                var kept: [(key: RowKey, row: RowView)] = []
                let evaluator = BoundEvaluator(predicate, binding: binding, rows: core.rows)
                for item in items where try evaluator.matches(item.row, .key(item.key)) {
                    kept.append(item)
                }
                items = kept
            case .filter(let isIncluded):
                items = items.filter { isIncluded(object(for: $0)) }
            case .distinctPaths(let paths):
                let current = items
                guard let properties = PropertyPath.directProperties(paths),
                    let distinct = ColumnDistinct(properties: properties, binding: binding)
                else {
                    items = try PathOrderKeys(rows: core.rows, binding: binding).distinct(current, by: paths)
                    continue
                }
                items = try distinct.kept(
                    current.map(\.row), location: { binding.location(of: current[$0].key, column: $1) }
                ).map { current[$0] }
            case .members:
                continue  // the first stage only
            case .limit(let count):
                if items.count > count { items.removeLast(items.count - Swift.max(count, 0)) }
            case .sort(let sortKeys):
                // A limit right after the sort asks for the first page only.
                var limit: Int?
                if position + 1 < stages.endIndex, case .limit(let count) = stages[position + 1] {
                    limit = Swift.max(count, 0)
                }
                let sorted = items
                if let sorter = try ColumnSorter(
                    sortKeys, rows: sorted.map(\.row), binding: binding,
                    location: { binding.location(of: sorted[$0].key, column: $1) })
                {
                    items = sorter.order(count: sorted.count, limit: limit).map { sorted[$0] }
                    continue
                }
                let objects = items.map(object(for:))
                let comparators = sortKeys.map { $0.comparator(objects) }
                let order = items.indices.sorted { a, b in
                    for comparator in comparators {
                        let result = comparator(a, b)
                        if result != 0 { return result < 0 }
                    }
                    return a < b  // stable
                }
                items = order.map { items[$0] }
            case .distinct(let keyPaths):
                let current = items
                if let distinct = ColumnDistinct(keyPaths, binding: binding) {
                    items = try distinct.kept(
                        current.map(\.row), location: { binding.location(of: current[$0].key, column: $1) }
                    ).map { current[$0] }
                    continue
                }
                // As in Realm, an object whose link on the way to a distinct property is nil is left out.
                let linkPaths = keyPaths.compactMap { KeyPathResolver.path($0, in: binding.schema) }.filter {
                    $0.steps.count > 1
                }
                var seen = Set<[AnyHashable]>()
                var kept: [(key: RowKey, row: RowView)] = []
                for item in items {
                    var reachesEveryProperty = true
                    for path in linkPaths
                    where try PredicateEvaluator(rows: core.rows).pathEnd(
                        path, row: item.row, binding: binding, key: .key(item.key)) == nil
                    {
                        reachesEveryProperty = false
                    }
                    guard reachesEveryProperty else { continue }
                    let object = object(for: item)
                    if seen.insert(keyPaths.map { distinctValue(object[keyPath: $0]) }).inserted { kept.append(item) }
                }
                items = kept
            }
        }
        return items
    }

    /// The rows of the objects a List of `owner` holds now, in its order (none when the owner is
    /// deleted; a deleted target is skipped).
    private func memberRows(owner: Object, column: Int) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        guard let ownerBinding = owner._tableBinding, owner._core === core,
            let ownerRow = try core.rows.fetchRow(ownerBinding, key: owner._key)
        else { return [] }
        let elements: [UnsafeRawBufferPointer?]
        do {
            guard let bytes = try ownerRow.column(column) else { return [] }
            elements = try ListFormat.elements(bytes)
        } catch {
            throw .damaged(at: ownerBinding.location(of: owner._key, column: column), error)
        }
        var found: [(key: RowKey, row: RowView)] = []
        for element in elements {
            guard let element else { continue }
            let key: RowKey
            do {
                key = try RowKey(stored: element, kind: binding.keyKind)
            } catch {
                throw .damaged(at: ownerBinding.location(of: owner._key, column: column), error)
            }
            if let row = try core.rows.fetchRow(binding, key: key) { found.append((key, row)) }
        }
        return found
    }

    /// The rows of the whole table that satisfy `predicate`, in key order.
    private func matchingRows(_ predicate: Predicate) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        if let scanner = columnScanner(predicate) { return try scanner.rows() }
        let evaluator = BoundEvaluator(predicate, binding: binding, rows: core.rows)
        var kept: [(key: RowKey, row: RowView)] = []
        try core.rows.forEachRow(binding) { (keyBytes, row) throws(StoreError) in
            if try evaluator.matches(row, .stored(keyBytes)) {
                kept.append((try core.rows.decodeRowKey(keyBytes, binding: binding), row))
            }
            return true
        }
        return kept
    }

    private func object(for item: (key: RowKey, row: RowView)) -> Element {
        core.materialize(Element.self, binding: binding, key: item.key, row: item.row)
    }

    /// A value `distinct` can compare: the value itself, or for an object its identity in the file.
    private func distinctValue(_ value: Any) -> AnyHashable {
        if let object = value as? Object, object.isManaged {
            return AnyHashable([AnyHashable(ObjectIdentifier(type(of: object))), AnyHashable(object._key)])
        }
        if let hashable = value as? AnyHashable { return hashable }
        return AnyHashable(String(describing: value))
    }

    /// A managed object for the row at `position` of `contents`.
    private func object(at position: Int, _ contents: (keys: [RowKey], rows: [RowView]), generation: UInt64) -> Element
    {
        let row = position < contents.rows.count && generation == core.generation ? contents.rows[position] : nil
        return core.materialize(Element.self, binding: binding, key: contents.keys[position], row: row)
    }

    // MARK: Collection

    /// Always 0.
    public var startIndex: Int { 0 }
    /// Equal to `count`.
    public var endIndex: Int { count }

    /// The number of objects (for a whole table, its count: no row is read).
    public var count: Int {
        core.assertConfined()
        guard stages.isEmpty else { return scannedCount() ?? contents().keys.count }
        do {
            return try core.count(binding.table)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): counting \(binding.name): \(error)")
        }
    }

    /// The object at `position` in the Results' order (evaluated once per Store generation).
    ///
    /// - Warning: Traps off the Store's thread, or past the end.
    public subscript(position: Int) -> Element {
        let contents = contents()
        precondition(
            contents.keys.indices.contains(position),
            "Strata: index \(position) out of range 0..<\(contents.keys.count)")
        return object(at: position, contents, generation: core.generation)
    }

    /// The object with the smallest primary key (the first inserted, without one), read with a cursor.
    public var first: Element? { edge(last: false) }
    /// The object with the greatest primary key (the last inserted, without one), read with a cursor.
    public var last: Element? { edge(last: true) }

    private func edge(last: Bool) -> Element? {
        core.assertConfined()
        guard stages.isEmpty else {
            let contents = contents()
            guard let position = last ? contents.keys.indices.last : contents.keys.indices.first else { return nil }
            return object(at: position, contents, generation: core.generation)
        }
        do throws(StoreError) {
            let keyBytes = try StoreError.mapping { () throws(LMDBError) -> [UInt8]? in
                try core.withCursor(binding.table) { (cursor) throws(LMDBError) -> [UInt8]? in
                    try (last ? cursor.last() : cursor.first()).map { Array($0.key) }
                }
            }
            guard let keyBytes else { return nil }
            let key = try keyBytes.withBytes { (raw) throws(StoreError) in
                try core.rows.decodeRowKey(raw, binding: binding)
            }
            return core.materialize(Element.self, binding: binding, key: key)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): reading \(binding.name): \(error)")
        }
    }

    /// Iterates the objects as the Results shows them now (see `Iterator`).
    public func makeIterator() -> Iterator {
        Iterator(results: self, walk: rowWalk())
    }

    /// The results of `transform` on each object, in order: through the iterator (one object re-pointed
    /// at each row unless `transform` keeps it), where `Collection.map` would make one per position.
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var mapped: [T] = []
        mapped.reserveCapacity(underestimatedCount)
        for object in self { mapped.append(try transform(object)) }
        return mapped
    }

    /// A walk over the rows the Results holds now: for a whole table a live cursor (see
    /// `TableIteration`), for a query the keys and rows it evaluated.
    func rowWalk() -> RowWalk {
        core.assertConfined()
        if stages.isEmpty, !core.isFrozen {
            return RowWalk(core: core, binding: binding, source: .table(TableIteration(core: core, binding: binding)))
        }
        let contents = contents()
        return RowWalk(
            core: core, binding: binding,
            source: .keys(contents.keys, rows: contents.rows, generation: core.generation))
    }

    /// Visits the objects the Results held when the iteration began (see `RowWalk`), skipping objects
    /// a query held that were deleted meanwhile.
    ///
    /// The object handed out last is re-pointed at the next row when nothing else holds it any more:
    /// an iteration whose objects are not kept makes one object in all. An object you keep (in an
    /// array, a capture, an observation, a variable outside the loop) is never changed under you.
    /// A `weak` or `unowned` reference does not keep it. Types with a stored property that is not
    /// `@Persisted` always get a new object per row.
    public struct Iterator: IteratorProtocol {
        private let results: Results
        private var walk: RowWalk
        /// The object handed out last: the next row re-points it when nothing else holds it any more.
        private var handedOut: Element?

        init(results: Results, walk: RowWalk) {
            self.results = results
            self.walk = walk
        }

        /// The next object, or nil at the end.
        public mutating func next() -> Element? {
            results.core.assertConfined()
            var key = RowKey.integer(0)
            var row: RowView?
            guard walk.next(key: &key, row: &row) else { return nil }
            return object(key: key, row: row)
        }

        /// The accessor for a row: the one handed out last, re-pointed, when only this iterator holds
        /// it; else a new one.
        private mutating func object(key: RowKey, row: RowView?) -> Element {
            let binding = results.binding
            guard binding.reusesAccessors else {
                return results.core.materialize(Element.self, binding: binding, key: key, row: row)
            }
            if isKnownUniquelyReferenced(&handedOut), let object = handedOut,
                results.core.repoint(object, binding: binding, key: key, row: row)
            {
                return object
            }
            let object = results.core.materialize(Element.self, binding: binding, key: key, row: row)
            handedOut = object
            return object
        }
    }
}

extension Results: CustomStringConvertible {
    /// `Results<Person> (3): [Person { id = 1; … }, …]`: the type, the count and the first objects.
    public var description: String {
        guard core.isConfined else { return "Results<\(Element.self)> (on another thread)" }
        let count = self.count
        let shown = prefix(Describing.elementLimit).map(\.description)
        return "Results<\(Element.self)> (\(count)): " + Describing.list(shown, total: count)
    }
}

@available(*, unavailable, message: "Results are confined to their Store's thread")
extension Results: Sendable {}

/// Serialises evaluations of frozen Results, which any thread may read at once.
enum FrozenEvaluation {
    static let lock = NSLock()
}
