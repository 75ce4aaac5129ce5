/// The route a `Results` takes to its rows: decided once from its stages (`QueryPlanner`), kept by
/// the Results, run by `QueryEngine`, and printed by `queryPlan` (so that what is printed is what
/// runs).
enum QueryRoute<Element: Object> {
    /// No stage: the table itself, walked with a cursor (`TableIteration`) or read into keys once per
    /// table version.
    case table
    /// `[condition] sort limit` whose first sort key has an index: the index walked in order from the
    /// likely end, stopping once the page is full and its last value is passed; the run then sorted
    /// by every key. `filter` tests each row met (a condition no index serves).
    case indexOrderedPage(filter: BoundCondition?, keys: [SortKey<Element>], limit: Int, index: IndexBinding)
    /// `[condition] sort limit` by one numeric property with no index, limit at most 10,000: each
    /// match's value offered to a heap of the best `limit` (O(n log k)). Without a condition, a
    /// column copy kept in memory at this version (`ColumnCopies`) is read instead of the rows.
    case heapPage(
        access: RowAccess, column: Int, order: ColumnOrder, ascending: Bool, limit: Int, readsCopy: Bool)
    /// `[conditions] distinct` on one numeric property, read by the batch loops: the first row of
    /// each value kept as the walk goes.
    case firstOfEachValue(access: RowAccess, column: Int, order: ColumnOrder)
    /// `conditions [sort]` with the sort (if any) by one numeric property: the matches collected as
    /// the walk goes, then radix-sorted (`CollectedRows`).
    case collected(access: RowAccess, sort: CollectedRows.SortColumn?)
    /// Anything else: the source's rows, then each stage in turn.
    case staged(source: StagedSource, stages: ArraySlice<Results<Element>.Stage>)

    /// The route's public name.
    var name: QueryPlan.Route {
        switch self {
        case .table: .table
        case .indexOrderedPage: .indexOrderedPage
        case .heapPage: .heapPage
        case .firstOfEachValue: .firstOfEachValue
        case .collected: .collected
        case .staged: .staged
        }
    }

    /// Where a staged route's rows come from.
    enum StagedSource {
        /// The objects of a List of `owner`'s, in the list's order.
        case list(owner: Object, column: Int)
        /// The rows an access reads, in key order.
        case rows(RowAccess)
        /// The objects a full-text index finds, best first, each tested against `filter` (the
        /// conditions before the ranking), the best `limit` only.
        case ranked(FullTextRanking, filter: BoundCondition?, limit: Int?)
        /// The objects a vector index finds nearest, among those `matching` reads (the conditions
        /// before, when there are).
        case nearest(VectorRanking, matching: RowAccess?)
    }
}

/// A `Results`' route, and the access a count or a column read uses.
struct ExecutionPlan<Element: Object> {
    let route: QueryRoute<Element>
    /// When every stage is a condition or a sort (neither changes a count or a sum): the access to
    /// the conjunction of the conditions, which counts and column reads walk without collecting rows.
    let matches: RowAccess?
}

/// Turns a `Results`' stages into its `ExecutionPlan`: the one place a route is chosen, and the one
/// place the primary key or an index is looked up (`RowAccess`), once per conjunction.
struct QueryPlanner<Element: Object> {
    typealias Stage = Results<Element>.Stage

    let binding: TableBinding
    let stages: [Stage]
    /// The accesses worked out, by the number of conditions conjoined (every conjunction a route
    /// asks for is of the first n conditions: the first alone, or all of them).
    private var accesses: [Int: RowAccess] = [:]

    init(binding: TableBinding, stages: [Stage]) {
        self.binding = binding
        self.stages = stages
    }

    /// The largest first page kept in a heap (a larger one is sorted in full).
    static var heapLimit: Int { 10_000 }

    mutating func plan() -> ExecutionPlan<Element> {
        guard !stages.isEmpty else { return ExecutionPlan(route: .table, matches: .batch(.everyRow)) }
        let matches = access(to: stages.filter { if case .sort = $0 { false } else { true } }[...])
        return ExecutionPlan(route: route(), matches: matches)
    }

    /// The access to the conjunction of `conditions` when every stage there is a condition; nil when
    /// one is not.
    private mutating func access(to conditions: ArraySlice<Stage>) -> RowAccess? {
        guard case .some(let condition) = conjunction(of: conditions) else { return nil }
        if let known = accesses[conditions.count] { return known }
        let access = RowAccess(condition, binding: binding)
        accesses[conditions.count] = access
        return access
    }

    private mutating func route() -> QueryRoute<Element> {
        if let ranked = ranked() { return ranked }
        if let nearest = nearest() { return nearest }
        if let page = firstPage() { return page }
        if let distinct = firstOfEachValue() { return distinct }
        if let collected = collected() { return collected }
        var rest = stages[...]
        let source: QueryRoute<Element>.StagedSource
        switch stages.first {
        case .members(let owner, let column):
            source = .list(owner: owner, column: column)
            rest = rest.dropFirst()
        case .predicate:
            source = .rows(access(to: stages.prefix(1))!)
            rest = rest.dropFirst()
        default:
            source = .rows(.batch(.everyRow))
        }
        return .staged(source: source, stages: rest)
    }

    /// The conjunction of `conditions` when every stage there is a condition (`.some(nil)` for none);
    /// `.none` when one is not.
    private func conjunction(of conditions: ArraySlice<Stage>) -> Predicate?? {
        var condition: Predicate?
        for stage in conditions {
            guard case .predicate(let predicate) = stage else { return .none }
            condition = condition.map { .and($0, predicate) } ?? predicate
        }
        return .some(condition)
    }

    /// `[conditions] ranked [limit] …`: the ranking's index read best first, the conditions tested on
    /// each object met, stopping after the limit. Other stages follow as staged.
    private mutating func ranked() -> QueryRoute<Element>? {
        guard let position = stages.firstIndex(where: { if case .ranked = $0 { true } else { false } }),
            case .ranked(let ranking) = stages[position],
            case .some(let condition) = conjunction(of: stages[..<position])
        else { return nil }
        var limit: Int?
        if position + 1 < stages.endIndex, case .limit(let count) = stages[position + 1] { limit = max(count, 0) }
        let filter = condition.map { BoundCondition($0, binding: binding) }
        return .staged(
            source: .ranked(ranking, filter: filter, limit: limit), stages: stages[(position + 1)...])
    }

    /// `[conditions] nearest …`: the index's nearest among the rows the conditions' access reads. Other
    /// stages follow as staged.
    private mutating func nearest() -> QueryRoute<Element>? {
        guard let position = stages.firstIndex(where: { if case .nearest = $0 { true } else { false } }),
            case .nearest(let ranking) = stages[position], case .some = conjunction(of: stages[..<position])
        else { return nil }
        let matching = position == 0 ? nil : access(to: stages[..<position])
        return .staged(source: .nearest(ranking, matching: matching), stages: stages[(position + 1)...])
    }

    /// `[condition] sort limit`, the condition one no index serves: read from the first sort key's
    /// index in order, or kept in a heap when that key is one numeric property.
    private mutating func firstPage() -> QueryRoute<Element>? {
        var rest = stages[...]
        var access = RowAccess.batch(.everyRow)
        var filtered = false
        if case .predicate? = rest.first {
            access = self.access(to: stages.prefix(1))!
            if access.readsIndex { return nil }
            filtered = true
            rest = rest.dropFirst()
        }
        guard rest.count == 2, case .sort(let keys)? = rest.first, case .limit(let limit)? = rest.last,
            let property = keys.first?.directProperty(in: binding.schema)
        else { return nil }
        let column = binding.columnOfProperty[property]
        if let index = binding.indexes.first(where: { $0.column == column }), ColumnSorter.sorts(keys, binding: binding)
        {
            return .indexOrderedPage(filter: access.condition, keys: keys, limit: limit, index: index)
        }
        guard limit <= Self.heapLimit, keys.count == 1,
            let (column, order) = binding.numericColumn(ofProperty: property)
        else { return nil }
        return .heapPage(
            access: access, column: column, order: order, ascending: keys[0].ascending, limit: limit,
            readsCopy: !filtered)
    }

    /// `[conditions] distinct` on one numeric property of the row's own type, the conditions read by
    /// the batch loops.
    private mutating func firstOfEachValue() -> QueryRoute<Element>? {
        if stages.contains(where: {
            switch $0 {
            case .ranked, .nearest: true
            default: false
            }
        }) {
            return nil
        }
        guard let last = stages.last else { return nil }
        let distinct: ColumnDistinct? =
            switch last {
            case .distinct(let keyPaths): ColumnDistinct(keyPaths, binding: binding)
            case .distinctPaths(let paths):
                PropertyPath.directProperties(paths).flatMap { ColumnDistinct(properties: $0, binding: binding) }
            default: nil
            }
        guard let (column, order) = distinct?.numericColumn, let access = access(to: stages.dropLast()),
            case .batch = access
        else { return nil }
        return .firstOfEachValue(access: access, column: column, order: order)
    }

    /// Conditions (one conjunction), then at most a sort by one numeric property of the row's own
    /// type; not the whole table alone.
    private mutating func collected() -> QueryRoute<Element>? {
        var conditions = stages[...]
        var sort: CollectedRows.SortColumn?
        if case .sort(let keys)? = stages.last {
            guard keys.count == 1, let property = keys[0].directProperty(in: binding.schema),
                let (column, order) = binding.numericColumn(ofProperty: property)
            else { return nil }
            sort = CollectedRows.SortColumn(column: column, order: order, ascending: keys[0].ascending)
            conditions = conditions.dropLast()
        }
        guard sort != nil || !conditions.isEmpty, let access = access(to: conditions) else { return nil }
        return .collected(access: access, sort: sort)
    }
}
