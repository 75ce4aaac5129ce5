/// Counts and aggregates read from the stored rows as the cursor walks: no key is collected, no
/// object made, no value decoded through a protocol witness for the common numeric types.
///
/// They serve a `Results` whose stages are conditions only (and sorts, which change no count nor
/// sum); other Results evaluate their objects first.
extension Results {
    /// The conjunction of the Results' conditions, when every stage is a condition or a sort (nil
    /// for the whole table); `.none` when a stage needs the objects (a filter, distinct, a limit).
    var scannableCondition: Predicate?? {
        var condition: Predicate?
        for stage in stages {
            switch stage {
            case .predicate(let predicate): condition = condition.map { .and($0, predicate) } ?? predicate
            case .sort: continue
            default: return .none
            }
        }
        return .some(condition)
    }

    /// The conjunction of `conditions` when every stage there is a condition (nil for none); `.none`
    /// when one is not.
    func conjunction(of conditions: ArraySlice<Stage>) -> Predicate?? {
        var condition: Predicate?
        for stage in conditions {
            guard case .predicate(let predicate) = stage else { return .none }
            condition = condition.map { .and($0, predicate) } ?? predicate
        }
        return .some(condition)
    }

    /// Runs `body` under the lock frozen Results share (their snapshot is read from any thread).
    func synchronizedIfFrozen<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        guard core.isFrozen else { return try body() }
        FrozenEvaluation.lock.lock()
        defer { FrozenEvaluation.lock.unlock() }
        return try body()
    }

    /// Visits the rows that satisfy `condition` (every row when nil), in key order. A condition one of
    /// whose comparisons an index or the primary key serves reads those rows only.
    func forEachMatchingRow(
        _ condition: Predicate?, _ visit: (RowView, RowIdentity) throws(StoreError) -> Void
    ) throws(StoreError) {
        let reader = core.rows
        guard let condition else {
            try reader.forEachRow(binding) { (key, row) throws(StoreError) in
                try visit(row, .stored(key))
                return true
            }
            return
        }
        let evaluator = BoundEvaluator(condition, binding: binding, rows: reader)
        if let plan = CandidatePlan.best(for: condition, binding: binding) {
            for item in try plan.rows(of: binding, in: reader) where try evaluator.matches(item.row, .key(item.key)) {
                try visit(item.row, .key(item.key))
            }
            return
        }
        if case .column(let column, let predicate) = evaluator.condition {
            // One comparison on the row's own column (the common case): the loop holds the column and
            // its test, nothing else.
            try reader.forEachRow(binding) { (key, row) throws(StoreError) in
                let bytes = try row.column(column, of: .stored(key), in: binding)
                guard let outcome = predicate.evaluate(bytes) else {
                    throw BoundEvaluator.undecodable(column, .stored(key), binding)
                }
                if outcome { try visit(row, .stored(key)) }
                return true
            }
            return
        }
        try reader.forEachRow(binding) { (key, row) throws(StoreError) in
            let identity = RowIdentity.stored(key)
            if try evaluator.matches(row, identity) { try visit(row, identity) }
            return true
        }
    }

    /// The batch loops (`ColumnScanner`) for `condition` when they can read it: every row, or one
    /// comparison on the row's own column that no index serves; nil for other conditions.
    func columnScanner(_ condition: Predicate?) -> ColumnScanner? {
        guard let condition else { return ColumnScanner(binding: binding, reader: core.rows, condition: .everyRow) }
        guard CandidatePlan.best(for: condition, binding: binding) == nil,
            case .column(let column, let predicate) = BoundCondition(condition, binding: binding)
        else { return nil }
        return ColumnScanner(binding: binding, reader: core.rows, condition: .column(column, predicate))
    }

    /// The number of objects of a Results whose stages are conditions and sorts, counted as the cursor
    /// walks; nil for other Results.
    func scannedCount() -> Int? {
        guard case .some(let condition) = scannableCondition else { return nil }
        do {
            return try synchronizedIfFrozen { () throws(StoreError) -> Int in
                if let scanner = columnScanner(condition) { return try scanner.count() }
                var count = 0
                try forEachMatchingRow(condition) { _, _ in count += 1 }
                return count
            }
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): counting \(binding.name): \(error)")
        }
    }

    /// Gives `sink` the value of `column` of each object of a Results whose stages are conditions and
    /// sorts (nil: null), in key order; nil for other Results, which read nothing (`readColumn`).
    ///
    /// - Warning: Traps on a damaged row, and on a value the sink refuses, naming the object.
    @inline(__always)
    func scanColumn<Sink: ColumnValueSink>(_ column: Int, into sink: Sink) -> Sink? {
        guard case .some(let condition) = scannableCondition else { return nil }
        do {
            return try synchronizedIfFrozen { () throws(StoreError) -> Sink in
                try readColumn(column, of: condition, into: sink)
            }
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): reading \(binding.name): \(error)")
        }
    }

    /// Gives `sink` the value of `column` of each row that satisfies `condition` (every row when nil),
    /// in key order. Every row and one comparison on the row's own column run in a loop specialised
    /// for the comparison and the sink (`ColumnScanner`: inlined here, so that a caller's concrete
    /// sink reaches it outside the Results' generic context); other conditions go through
    /// `forEachMatchingRow`.
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged or the sink refuses
    ///   a value, `.storage`.
    @inline(__always)
    func readColumn<Sink: ColumnValueSink>(_ column: Int, of condition: Predicate?, into sink: Sink)
        throws(StoreError) -> Sink
    {
        if let scanner = columnScanner(condition) { return try scanner.values(of: column, into: sink) }
        var reader = ColumnValueReader(column: column, binding: binding, sink: sink)
        try forEachMatchingRow(condition) { (row, identity) throws(StoreError) in
            try reader.take(row.bytes, of: identity)
        }
        return reader.sink
    }

    /// Visits the value of `column` of each object of a Results whose stages are conditions and sorts
    /// (nil: null); false for other Results, which visit nothing (`scanColumn`).
    ///
    /// - Warning: Traps on a damaged row, as reading the objects would.
    func forEachColumnValue(_ column: Int, _ visit: (UnsafeRawBufferPointer?) -> Void) -> Bool {
        withoutActuallyEscaping(visit) { visit in scanColumn(column, into: VisitingSink(visit: visit)) != nil }
    }

    /// The sum of a stored numeric column as `V`, read in place; nil when the column or the Results
    /// cannot be read so (the caller reads values).
    func columnSum<V: _QueryNumeric>(_ keyPath: PartialKeyPath<Element>, as type: V.Type) -> V? {
        guard let column = storedColumn(of: keyPath), let order = ColumnOrder(binding.columnTypes[column]) else {
            return nil
        }
        var damaged = false
        switch order {
        case .double where V.self == Double.self:
            return scanColumn(column, into: DoubleSum())?.total as? V
        case .signed(let width) where V.self == Int.self || V.self == Int64.self:
            guard let total = scanColumn(column, into: SignedSum(width: width))?.total else { return nil }
            return V.self == Int.self ? Int(total) as? V : total as? V
        default:
            var total = V.zero
            let context = _DecodeContext(owner: nil, column: column)
            guard
                forEachColumnValue(
                    column,
                    { bytes in
                        guard bytes != nil else { return }
                        do {
                            total += try V._strataDecodeColumn(bytes, in: context)
                        } catch {
                            damaged = true
                        }
                    })
            else { return nil }
            if damaged { trapUndecodable(column) }
            return total
        }
    }

    /// Visits the non-null values of a stored column, decoded as `V`; false when the Results cannot
    /// be read so (the caller reads values).
    func forEachStoredValue<V: _Persistable>(
        _ keyPath: PartialKeyPath<Element>, as type: V.Type, _ visit: (V) -> Void
    ) -> Bool {
        guard let column = storedColumn(of: keyPath) else { return false }
        var damaged = false
        let context = _DecodeContext(owner: nil, column: column)
        let visited = forEachColumnValue(column) { bytes in
            guard bytes != nil else { return }
            do {
                visit(try V._strataDecodeColumn(bytes, in: context))
            } catch {
                damaged = true
            }
        }
        if damaged { trapUndecodable(column) }
        return visited
    }

    private func trapUndecodable(_ column: Int) -> Never {
        preconditionFailure("\(TrapMessage.corrupted): \(binding.name).\(binding.columnNames[column]): undecodable")
    }
}
