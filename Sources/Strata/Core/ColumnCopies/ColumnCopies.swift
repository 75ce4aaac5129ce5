/// Copies of numeric columns kept in memory between queries, per file and shared by every Store of
/// it in the process: a column a query walks twice at one version of its table is copied by the
/// second walk (each row's sort key and key, in key order), and later queries of that column read the
/// copy instead of the rows while the table's change stamp (`ChangeStamps`) stays the one the copy
/// was made at. A commit that changes the table, in any process, changes its stamp: the copy is then
/// no longer used, and dropped once a Store sees a later stamp.
///
/// Memory is bounded by `Store.Configuration.columnCopyLimit` (the least used copies go first); a
/// limit of 0 makes and uses no copy.
final class ColumnCopies: Sendable {
    /// A stored column of a table, with the type its copy was read as.
    struct Column: Hashable, Sendable {
        let table: String
        let column: Int
        let type: PropertyType
    }

    private struct Kept {
        let copy: ColumnCopy
        var lastUse: UInt64
    }

    private struct State {
        var kept: [Column: Kept] = [:]
        /// The stamp each column was last walked at without a copy.
        var walked: [Column: ChangeStamp] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// At most this many columns remembered as walked once (a column queried once costs no memory).
    private static let walkedLimit = 1024

    private let state = Locked<State>(State())

    /// The copy of `column` made at `stamp`, if one is kept; a kept copy older than `stamp` is dropped.
    func copy(of column: Column, at stamp: ChangeStamp) -> ColumnCopy? {
        state.withLock { state in
            guard let kept = state.kept[column] else { return nil }
            if kept.copy.stamp == stamp {
                state.clock &+= 1
                state.kept[column]?.lastUse = state.clock
                return kept.copy
            }
            if kept.copy.stamp.precedes(stamp) { Self.drop(column, from: &state) }
            return nil
        }
    }

    /// Notes a walk over `column` at `stamp`; true when it was walked at that stamp before without a
    /// copy (read again: the walk should make one).
    func noteWalk(of column: Column, at stamp: ChangeStamp) -> Bool {
        state.withLock { state in
            if state.walked[column] == stamp {
                state.walked[column] = nil
                return true
            }
            if state.walked.count >= Self.walkedLimit { state.walked.removeAll() }
            state.walked[column] = stamp
            return false
        }
    }

    /// Keeps `copy` as the copy of `column`, dropping the least used copies while all would hold more
    /// than `limit` bytes; a copy larger than `limit` is not kept.
    func keep(_ copy: ColumnCopy, of column: Column, limit: Int) {
        state.withLock { state in
            Self.drop(column, from: &state)
            guard copy.byteCount <= limit else { return }
            while state.bytes + copy.byteCount > limit,
                let oldest = state.kept.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                Self.drop(oldest, from: &state)
            }
            state.clock &+= 1
            state.kept[column] = Kept(copy: copy, lastUse: state.clock)
            state.bytes += copy.byteCount
        }
    }

    /// Drops the copy of `column`, if one is kept.
    func drop(_ column: Column) {
        state.withLock { Self.drop(column, from: &$0) }
    }

    /// The number of copies kept and the bytes they hold.
    var usage: (count: Int, bytes: Int) { state.withLock { ($0.kept.count, $0.bytes) } }

    private static func drop(_ column: Column, from state: inout State) {
        guard let dropped = state.kept.removeValue(forKey: column) else { return }
        state.bytes -= dropped.copy.byteCount
    }
}

/// What a table's rows were at: the count of the commits that changed the table, and of those that
/// changed a table unknown when they committed (`ChangeStamps.anyKey`). 0: none since stamps began.
struct ChangeStamp: Hashable, Sendable {
    let table: UInt64
    let any: UInt64

    /// Whether a Store reading `later` has seen a later commit than this stamp's (stamps only grow).
    func precedes(_ later: ChangeStamp) -> Bool {
        table < later.table || any < later.any
    }
}
