/// How the rows that satisfy a conjunction of conditions are read: decided once per query by the
/// planner (`QueryPlanner`), run by the engine (`QueryEngine`). The primary key or an index is looked
/// up here and nowhere else.
enum RowAccess {
    /// The batch loops (`ColumnScanner`): every row, or one comparison on the row's own column no
    /// index serves, tested by a kernel on the column's bytes. A large table's key ranges are
    /// walked at once (`ScanSplit`).
    case batch(ColumnScanner.Condition)
    /// The ranges of the primary key or of an index that hold every match, each row then tested
    /// against the whole condition.
    case candidates(CandidatePlan, BoundCondition)
    /// Every row, tested one by one (links, several columns, collections).
    case rowByRow(BoundCondition)

    /// The access for `condition` (every row when nil): the primary key or an index when a
    /// comparison can use one, else the batch loops when they can test it, else row by row.
    init(_ condition: Predicate?, binding: TableBinding) {
        guard let condition else {
            self = .batch(.everyRow)
            return
        }
        let bound = BoundCondition(condition, binding: binding)
        if let candidates = CandidatePlan.best(for: condition, binding: binding) {
            self = .candidates(candidates, bound)
        } else if case .column(let column, let predicate) = bound {
            self = .batch(.column(column, predicate))
        } else {
            self = .rowByRow(bound)
        }
    }

    /// Whether the primary key or an index is read.
    var readsIndex: Bool {
        if case .candidates = self { true } else { false }
    }

    /// The condition a row must satisfy (nil: every row does).
    var condition: BoundCondition? {
        switch self {
        case .batch(.everyRow): nil
        case .batch(.column(let column, let predicate)): .column(column, predicate)
        case .candidates(_, let condition), .rowByRow(let condition): condition
        }
    }
}
