extension QueryEngine {
    typealias Item = (key: RowKey, row: RowView)

    /// The route `.staged`: the source's rows, then each stage in turn (conditions tested, closures
    /// called on objects, sorts and distincts on the rows' columns when they can, else on objects).
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`.
    func staged(_ source: QueryRoute<Element>.StagedSource, _ stages: ArraySlice<Results<Element>.Stage>)
        throws(StoreError) -> [Item]
    {
        var items: [Item]
        switch source {
        case .list(let owner, let column): items = try memberRows(owner: owner, column: column)
        case .rows(let access): items = try rows(access)
        case .ranked(let ranking, let filter, let limit):
            items = try rankedRows(ranking, filter: filter, limit: limit)
        case .nearest(let ranking, let matching):
            var candidates: NearestCandidates?
            if let matching, let condition = matching.condition {
                candidates = matching.readsIndex ? .rows(try rows(matching)) : .matching(condition)
            }
            items = try nearestRows(ranking, among: candidates)
        }
        for (position, stage) in zip(stages.indices, stages) {
            switch stage {
            case .predicate(let predicate):
                var kept: [Item] = []
                let evaluator = BoundEvaluator(predicate, binding: binding, rows: core.rows)
                for item in items where try evaluator.matches(item.row, .key(item.key)) {
                    kept.append(item)
                }
                items = kept
            case .filter(let isIncluded):
                items = items.filter { isIncluded(object(for: $0)) }
            case .distinctPaths(let paths):
                items = try distinct(items, by: paths)
            case .members:
                continue  // the first stage only: the source
            case .ranked(let ranking):
                items = try ranked(items, by: ranking)
            case .nearest(let ranking):
                items = try nearestRows(ranking, among: .rows(items))
            case .limit(let count):
                if items.count > count { items.removeLast(items.count - Swift.max(count, 0)) }
            case .sort(let sortKeys):
                // A limit right after the sort asks for the first page only.
                var limit: Int?
                if position + 1 < stages.endIndex, case .limit(let count) = stages[position + 1] {
                    limit = Swift.max(count, 0)
                }
                items = try sorted(items, by: sortKeys, limit: limit)
            case .distinct(let keyPaths):
                items = try distinct(items, by: keyPaths)
            }
        }
        return items
    }

    /// The rows of the objects a List of `owner` holds now, in its order (none when the owner is
    /// deleted; a deleted target is skipped).
    private func memberRows(owner: Object, column: Int) throws(StoreError) -> [Item] {
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
        var found: [Item] = []
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

    /// `items` sorted by `keys` (stable): on the rows' columns when every key is one, else through
    /// the objects. With `limit`, only the first page is ordered.
    private func sorted(_ items: [Item], by keys: [SortKey<Element>], limit: Int?) throws(StoreError) -> [Item] {
        if let sorter = try ColumnSorter(
            keys, rows: items.map(\.row), binding: binding,
            location: { binding.location(of: items[$0].key, column: $1) })
        {
            return sorter.order(count: items.count, limit: limit).map { items[$0] }
        }
        let objects = items.map(object(for:))
        let comparators = keys.map { $0.comparator(objects) }
        let order = items.indices.sorted { a, b in
            for comparator in comparators {
                let result = comparator(a, b)
                if result != 0 { return result < 0 }
            }
            return a < b  // stable
        }
        return order.map { items[$0] }
    }

    /// The first item of each combination of the string language's `DISTINCT` paths.
    private func distinct(_ items: [Item], by paths: [PropertyPath]) throws(StoreError) -> [Item] {
        guard let properties = PropertyPath.directProperties(paths),
            let distinct = ColumnDistinct(properties: properties, binding: binding)
        else {
            return try PathOrderKeys(rows: core.rows, binding: binding).distinct(items, by: paths)
        }
        return try distinct.kept(items.map(\.row), location: { binding.location(of: items[$0].key, column: $1) })
            .map { items[$0] }
    }

    /// The first item of each combination of values at `keyPaths`: on the rows' columns when they
    /// can, else through the objects.
    private func distinct(_ items: [Item], by keyPaths: [PartialKeyPath<Element>]) throws(StoreError) -> [Item] {
        if let distinct = ColumnDistinct(keyPaths, binding: binding) {
            return try distinct.kept(
                items.map(\.row), location: { binding.location(of: items[$0].key, column: $1) }
            ).map { items[$0] }
        }
        // As in Realm, an object whose link on the way to a distinct property is nil is left out.
        let linkPaths = keyPaths.compactMap { KeyPathResolver.path($0, in: binding.schema) }.filter {
            $0.steps.count > 1
        }
        let evaluator = PredicateEvaluator(rows: core.rows)
        var seen = Set<[AnyHashable]>()
        var kept: [Item] = []
        for item in items {
            var reachesEveryProperty = true
            for path in linkPaths
            where try evaluator.pathEnd(path, row: item.row, binding: binding, key: .key(item.key)) == nil {
                reachesEveryProperty = false
            }
            guard reachesEveryProperty else { continue }
            let object = object(for: item)
            if seen.insert(keyPaths.map { distinctValue(object[keyPath: $0]) }).inserted { kept.append(item) }
        }
        return kept
    }

    private func object(for item: Item) -> Element {
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
}
