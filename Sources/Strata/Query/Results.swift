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
    /// The route to the rows and the access counts and column reads use, decided once from the
    /// stages (`QueryPlanner`); `queryPlan` prints it.
    let plan: ExecutionPlan<Element>
    /// The Results' shared state: what it evaluated, and its observation.
    let cache = KeyCache()

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
        /// The objects whose text matches a full-text query, best first (`search(_:_:)`).
        case ranked(FullTextRanking)
        /// The k objects nearest a vector, nearest first (`nearest(to:k:by:)`).
        case nearest(VectorRanking)
    }

    /// The keys of the rows, for one table version of the Store (a query's for one generation), and
    /// (read outside a write) the rows themselves, for one generation: an object made from them needs
    /// no lookup.
    final class KeyCache {
        var keys: [RowKey] = []
        var rows: [RowView] = []
        var epoch: UInt64 = 0
        var version: UInt64 = 0
        var rowsGeneration: UInt64 = 0
        /// Made at the first read when the element type is observable (`ResultsObservation`).
        var observation: ResultsObservation?
    }

    init(core: StoreCore, binding: TableBinding, stages: [Stage] = []) {
        self.core = core
        self.binding = binding
        self.stages = stages
        var planner = QueryPlanner(binding: binding, stages: stages)
        plan = planner.plan()
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
        let found = evaluating("reading the rows of") { (engine) throws(StoreError) in try engine.contents(.table) }
        cache.keys = found.keys
        cache.rows = withRows ? found.rows : []
        cache.epoch = core.epoch
        cache.version = version
        cache.rowsGeneration = core.generation
        return (cache.keys, cache.rows)
    }

    /// A query's keys and rows, evaluated again whenever anything may have changed (any change in a
    /// write, or a new snapshot): a condition can follow links into other tables.
    private func queryContents() -> (keys: [RowKey], rows: [RowView]) {
        if cache.epoch == core.epoch, cache.rowsGeneration == core.generation { return (cache.keys, cache.rows) }
        (cache.keys, cache.rows) = evaluating("querying") { (engine) throws(StoreError) in
            try engine.contents(plan.route)
        }
        cache.epoch = core.epoch
        cache.rowsGeneration = core.generation
        return (cache.keys, cache.rows)
    }

    /// `body` run by the query engine on this Store's snapshot; a damaged file traps, naming what was
    /// being done (as reading the objects would). The caller holds the lock of frozen Results.
    func evaluating<R>(_ doing: String, _ body: (QueryEngine<Element>) throws(StoreError) -> R) -> R {
        do {
            return try body(QueryEngine(core: core, binding: binding))
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): \(doing) \(binding.name): \(error)")
        }
    }

    /// `evaluating`, under the lock frozen Results share (their snapshot is read from any thread).
    func synchronizedEvaluating<R>(_ doing: String, _ body: (QueryEngine<Element>) throws(StoreError) -> R) -> R {
        core.assertConfined()
        guard core.isFrozen else { return evaluating(doing, body) }
        FrozenEvaluation.lock.lock()
        defer { FrozenEvaluation.lock.unlock() }
        return evaluating(doing, body)
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
        let count: Int
        if let matches = plan.matches, !stages.isEmpty {
            count = synchronizedEvaluating("counting") { (engine) throws(StoreError) in try engine.count(matches) }
        } else if !stages.isEmpty {
            count = contents().keys.count
        } else {
            do {
                count = try core.count(binding.table)
            } catch {
                preconditionFailure("\(TrapMessage.corrupted): counting \(binding.name): \(error)")
            }
        }
        observeCount(count)
        return count
    }

    /// The count now, evaluated afresh (no cache), throwing where `count` traps.
    func currentCount() throws(StoreError) -> Int {
        if let matches = plan.matches, !stages.isEmpty {
            return try QueryEngine(core: core, binding: binding).count(matches)
        }
        guard stages.isEmpty else { return try currentKeys().count }
        return try StoreError.mapping { () throws(LMDBError) in try core.count(binding.table) }
    }

    /// The keys now, evaluated afresh (no cache), throwing where a read traps.
    func currentKeys() throws(StoreError) -> [RowKey] {
        try QueryEngine(core: core, binding: binding).contents(stages.isEmpty ? .table : plan.route).keys
    }

    /// The object at `position` in the Results' order (evaluated once per Store generation).
    ///
    /// - Warning: Traps off the Store's thread, or past the end.
    public subscript(position: Int) -> Element {
        let contents = contents()
        observeElements()
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
        observeElements()
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
        observeElements()
        return Iterator(results: self, walk: rowWalk())
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

    /// A walk over the objects at `positions` of the Results now (a section's), or, given their
    /// keys (a layout read from a column), over those objects.
    func rowWalk(positions: [Int], of rowKeys: [RowKey]? = nil) -> RowWalk {
        core.assertConfined()
        if let rowKeys {
            return RowWalk(
                core: core, binding: binding,
                source: .keys(positions.map { rowKeys[$0] }, rows: [], generation: core.generation))
        }
        let contents = contents()
        let rows = contents.rows.isEmpty ? [] : positions.map { contents.rows[$0] }
        return RowWalk(
            core: core, binding: binding,
            source: .keys(positions.map { contents.keys[$0] }, rows: rows, generation: core.generation))
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
        /// Held as an `Object`, so that the uniqueness check is in line (not generic).
        private var handedOut: Object?

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
        @inline(__always)
        private mutating func object(key: RowKey, row: RowView?) -> Element {
            let binding = results.binding
            guard binding.reusesAccessors else {
                return results.core.materialize(Element.self, binding: binding, key: key, row: row)
            }
            // The non-optional form: the optional one is a call into the standard library per row.
            if handedOut != nil, isKnownUniquelyReferenced(&handedOut!),
                results.core.repoint(handedOut!, binding: binding, key: key, row: row)
            {
                return unsafeDowncast(handedOut!, to: Element.self)  // it was made as an Element
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
