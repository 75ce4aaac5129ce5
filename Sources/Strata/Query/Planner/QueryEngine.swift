/// Runs a `Results`' route (`QueryRoute`) on the snapshot its Store reads: the one engine every
/// query goes through. Made per evaluation; holds nothing of its own. Its callers hold the lock
/// frozen Results share (`FrozenEvaluation`).
struct QueryEngine<Element: Object> {
    let core: StoreCore
    let binding: TableBinding

    /// The keys and rows of a route (not `.table`, which `Results` reads and keeps itself).
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`.
    func contents(_ route: QueryRoute<Element>) throws(StoreError) -> (keys: [RowKey], rows: [RowView]) {
        QueryTrace.observer?(route.name)
        let items: [(key: RowKey, row: RowView)]
        switch route {
        case .table:
            items = try ColumnScanner(binding: binding, reader: core.rows, condition: .everyRow).rows()
        case .collected(let access, let sort):
            return try collect(access, sortedBy: sort)
        case .indexOrderedPage(let filter, let keys, let limit, let index):
            items = try indexOrderedPage(filter: filter, keys: keys, limit: limit, index: index)
        case .heapPage(let access, let column, let order, let ascending, let limit, let readsCopy):
            items = try heapPage(
                access, column: column, order: order, ascending: ascending, limit: limit, readsCopy: readsCopy)
        case .firstOfEachValue(let access, let column, let order):
            let kept = try readColumn(column, of: access, into: FirstOccurrences(order: order)).kept
            items = try rows(ofStoredKeys: kept.map(\.key))
        case .staged(let source, let stages):
            items = try staged(source, stages)
        }
        return (items.map(\.key), items.map(\.row))
    }

    /// The batch loops for `access`, when it reads through them.
    func scanner(_ access: RowAccess) -> ColumnScanner? {
        guard case .batch(let condition) = access else { return nil }
        return ColumnScanner(binding: binding, reader: core.rows, condition: condition)
    }

    /// The rows `access` reads that satisfy its condition, in key order, with their keys.
    func rows(_ access: RowAccess) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        if let scanner = scanner(access) { return try scanner.rows() }
        var kept: [(key: RowKey, row: RowView)] = []
        try forEachMatchingRow(access) { (row, identity) throws(StoreError) in
            let key: RowKey =
                switch identity {
                case .key(let key): key
                case .stored(let bytes): try core.rows.decodeRowKey(bytes, binding: binding)
                }
            kept.append((key, row))
        }
        return kept
    }

    /// The number of rows `access` finds.
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`.
    func count(_ access: RowAccess) throws(StoreError) -> Int {
        if let scanner = scanner(access) { return try scanner.count() }
        var count = 0
        try forEachMatchingRow(access) { _, _ in count += 1 }
        return count
    }

    /// Visits the rows `access` finds, in key order.
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`, or what `visit` throws.
    func forEachMatchingRow(
        _ access: RowAccess, _ visit: (RowView, RowIdentity) throws(StoreError) -> Void
    ) throws(StoreError) {
        let reader = core.rows
        switch access {
        case .batch(.everyRow):
            try reader.forEachRow(binding) { (key, row) throws(StoreError) in
                try visit(row, .stored(key))
                return true
            }
        case .batch(.column(let column, let predicate)):
            // One comparison on the row's own column (the common case): the loop holds the column
            // and its test, nothing else.
            try reader.forEachRow(binding) { (key, row) throws(StoreError) in
                let bytes = try row.column(column, of: .stored(key), in: binding)
                guard let outcome = predicate.evaluate(bytes) else {
                    throw BoundEvaluator.undecodable(column, .stored(key), binding)
                }
                if outcome { try visit(row, .stored(key)) }
                return true
            }
        case .candidates(let candidates, let condition):
            let evaluator = BoundEvaluator(condition, binding: binding, rows: reader)
            for item in try candidates.rows(of: binding, in: reader)
            where try evaluator.matches(item.row, .key(item.key)) {
                try visit(item.row, .key(item.key))
            }
        case .rowByRow(let condition):
            let evaluator = BoundEvaluator(condition, binding: binding, rows: reader)
            try reader.forEachRow(binding) { (key, row) throws(StoreError) in
                let identity = RowIdentity.stored(key)
                if try evaluator.matches(row, identity) { try visit(row, identity) }
                return true
            }
        }
    }

    /// Gives `sink` the value of `column` of each row `access` finds, in key order. The batch loops
    /// run specialised for the comparison and the sink (`ColumnScanner`: inlined here, so that a
    /// caller's concrete sink reaches it outside the generic context); other accesses go through
    /// `forEachMatchingRow`.
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged or the sink refuses
    ///   a value, `.storage`.
    @inline(__always)
    func readColumn<Sink: ColumnValueSink>(_ column: Int, of access: RowAccess, into sink: Sink)
        throws(StoreError) -> Sink
    {
        if let scanner = scanner(access) { return try scanner.values(of: column, into: sink) }
        var reader = ColumnValueReader(column: column, binding: binding, sink: sink)
        try forEachMatchingRow(access) { (row, identity) throws(StoreError) in
            try reader.take(row.bytes, of: identity)
        }
        return reader.sink
    }

    /// The rows under stored keys a walk copied (a first page, the first row of each value), read
    /// again through the Store's snapshot, in the order given.
    ///
    /// - Throws: `.corrupted` when a key is damaged or its row is gone, `.storage`.
    func rows(ofStoredKeys keys: [[UInt8]]) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        var rows: [(key: RowKey, row: RowView)] = []
        rows.reserveCapacity(keys.count)
        for stored in keys {
            let key = try stored.withBytes { (bytes) throws(StoreError) in
                try core.rows.decodeRowKey(bytes, binding: binding)
            }
            guard let row = try core.rows.fetchRow(binding, key: key) else {
                throw .corrupted("\(binding.name): a row read just now is missing: \(binding.describe(key))")
            }
            rows.append((key, row))
        }
        return rows
    }
}

/// What tests watch: the route each evaluation of a query's rows runs (the task's observer, if any).
enum QueryTrace {
    @TaskLocal static var observer: (@Sendable (QueryPlan.Route) -> Void)?
}
