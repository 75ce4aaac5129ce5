/// A predicate bound to one table: each comparison of a property of the row itself knows its column
/// and tests the column's bytes directly; comparisons through links, collection counts and Map keys
/// go through `PredicateEvaluator`. Bound once per evaluation, not per row.
indirect enum BoundCondition {
    /// A comparison on column `column` of the row, compiled for its bytes.
    case column(Int, ColumnPredicate)
    /// A comparison on column `column` of the row, through its test closure.
    case columnTest(Int, ColumnTest)
    /// A comparison reached through links, a collection's count or elements: evaluated by
    /// `PredicateEvaluator`.
    case general(Predicate)
    case constant(Bool)
    case and(BoundCondition, BoundCondition)
    case or(BoundCondition, BoundCondition)
    case not(BoundCondition)

    init(_ predicate: Predicate, binding: TableBinding) {
        switch predicate {
        case .comparison(let comparison):
            if let property = comparison.path.directProperty {
                let column = binding.columnOfProperty[property]
                if let predicate = comparison.columnPredicate {
                    self = .column(column, predicate)
                } else {
                    self = .columnTest(column, comparison.test)
                }
            } else {
                self = .general(predicate)
            }
        case .collection: self = .general(predicate)
        case .constant(let value): self = .constant(value)
        case .and(let lhs, let rhs):
            self = .and(BoundCondition(lhs, binding: binding), BoundCondition(rhs, binding: binding))
        case .or(let lhs, let rhs):
            self = .or(BoundCondition(lhs, binding: binding), BoundCondition(rhs, binding: binding))
        case .not(let inner): self = .not(BoundCondition(inner, binding: binding))
        }
    }
}

/// Evaluates a `BoundCondition` on the rows of its table.
struct BoundEvaluator {
    let condition: BoundCondition
    let binding: TableBinding
    let general: PredicateEvaluator

    init(_ predicate: Predicate, binding: TableBinding, rows: RowReader) {
        self.init(BoundCondition(predicate, binding: binding), binding: binding, rows: rows)
    }

    init(_ condition: BoundCondition, binding: TableBinding, rows: RowReader) {
        self.condition = condition
        self.binding = binding
        general = PredicateEvaluator(rows: rows)
    }

    /// Whether the row `identity` names satisfies the condition.
    ///
    /// - Throws: `.corrupted` naming the row and column when a column it reads is damaged, `.storage`.
    @inline(__always)
    func matches(_ row: RowView, _ identity: RowIdentity) throws(StoreError) -> Bool {
        if case .column(let column, let predicate) = condition {
            return try Self.test(predicate.evaluate, column: column, row: row, identity: identity, binding: binding)
        }
        return try matches(condition, row, identity)
    }

    private func matches(_ condition: BoundCondition, _ row: RowView, _ identity: RowIdentity) throws(StoreError)
        -> Bool
    {
        switch condition {
        case .column(let column, let predicate):
            return try Self.test(predicate.evaluate, column: column, row: row, identity: identity, binding: binding)
        case .columnTest(let column, let test):
            return try Self.test(test, column: column, row: row, identity: identity, binding: binding)
        case .general(let predicate):
            return try general.matches(predicate, row: row, binding: binding, key: identity)
        case .constant(let value):
            return value
        case .and(let lhs, let rhs):
            guard try matches(lhs, row, identity) else { return false }
            return try matches(rhs, row, identity)
        case .or(let lhs, let rhs):
            if try matches(lhs, row, identity) { return true }
            return try matches(rhs, row, identity)
        case .not(let inner):
            return try !matches(inner, row, identity)
        }
    }

    @inline(__always)
    private static func test(
        _ test: (UnsafeRawBufferPointer?) -> Bool?, column: Int, row: RowView, identity: RowIdentity,
        binding: TableBinding
    ) throws(StoreError) -> Bool {
        let bytes = try row.column(column, of: identity, in: binding)
        guard let outcome = test(bytes) else { throw undecodable(column, identity, binding) }
        return outcome
    }

    @inline(never)
    static func undecodable(_ column: Int, _ identity: RowIdentity, _ binding: TableBinding) -> StoreError {
        .corrupted("\(binding.location(of: identity.key(in: binding), column: column)): undecodable in a query")
    }
}
