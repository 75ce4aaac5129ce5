extension QueryEngine {
    /// The route `.heapPage`: the first page of a sort by one numeric property (numbers, dates,
    /// Bools) that no index serves, taken as the walk goes: each match's sort value is read in place
    /// and offered to a heap of the best `limit` entries (O(n log k)); only an entry that enters the
    /// heap copies its key. No key array, no row array, no object. With `readsCopy` (no condition), a
    /// column walked before at this version is read from its copy in memory (`columnCopy`).
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`.
    func heapPage(
        _ access: RowAccess, column: Int, order: ColumnOrder, ascending: Bool, limit: Int, readsCopy: Bool
    ) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        guard limit > 0 else { return [] }
        if readsCopy, let (copy, id) = try columnCopy(of: column, order: order) {
            do {
                return try rows(ofStoredKeys: copy.firstPage(ascending: ascending, limit: limit))
            } catch {
                // A row the copy names is gone or damaged: drop the copy, and let the walk below
                // read the rows themselves (and name a damaged one).
                core.shared.columnCopies.drop(id)
            }
        }
        var sink = FirstPageSink(order: order, ascending: ascending, limit: limit)
        if case .batch(.everyRow) = access {
            sink.bound = try sampledBound(column: column, order: order, ascending: ascending, limit: limit)
        }
        sink = try readColumn(column, of: access, into: sink)
        return try rows(ofStoredKeys: sink.heap.sorted().map(\.key))
    }

    /// A rank at least `limit` rows reach: the `limit`-th best of the rows at both ends of the table
    /// (the first and last `limit` in key order), read before the walk. A sort by a value that grows
    /// or shrinks with insertion ("newest first") has its page there: the walk then refuses every
    /// other row with one comparison, where the heap alone would take each row better than its
    /// worst, which is every row in that order. Nil for a table of fewer than `4 × limit` rows, or
    /// when an end row cannot be read (the walk then names it).
    private func sampledBound(column: Int, order: ColumnOrder, ascending: Bool, limit: Int) throws(StoreError)
        -> FirstPageSink.Rank?
    {
        let rows = try StoreError.mapping { () throws(LMDBError) in try core.count(binding.table) }
        guard rows >= 4 * limit else { return nil }
        let reader = core.rows
        let sampled = try StoreError.mapping { () throws(LMDBError) -> [FirstPageSink.Rank]? in
            try core.withCursor(binding.table) { (cursor) throws(LMDBError) -> [FirstPageSink.Rank]? in
                var ranks: [FirstPageSink.Rank] = []
                for fromEnd in [false, true] {
                    var entry = try fromEnd ? cursor.last() : cursor.first()
                    for _ in 0..<limit {
                        guard let current = entry,
                            let key = try? reader.decodeRowKey(current.key, binding: binding),
                            let row = try? reader.storedRow(
                                current.value, keyBytes: current.key, binding: binding, key: key)
                        else { return nil }
                        let bytes: UnsafeRawBufferPointer?
                        do { bytes = try row.column(column) } catch { return nil }
                        if let bytes {
                            guard let rank = order.sortKey(bytes) else { return nil }
                            ranks.append(FirstPageSink.Rank(value: rank, isNull: false))
                        } else {
                            ranks.append(FirstPageSink.Rank(value: 0, isNull: true))
                        }
                        entry = try fromEnd ? cursor.previous() : cursor.next()
                    }
                }
                return ranks
            }
        }
        guard let sampled else { return nil }
        return sampled.sorted { $0.isBetter(than: $1, ascending: ascending) }[limit - 1]
    }
}

/// The best `limit` rows of a sort by one numeric column, offered in key order: each value ranks
/// in place, and only a row that enters the heap copies its key.
struct FirstPageSink: ColumnValueSink {
    /// Entries rank by nil (first ascending, last descending), then the value, then the position.
    typealias Entry = (rank: UInt64, isNull: Bool, position: Int, key: [UInt8])

    let order: ColumnOrder
    let ascending: Bool
    let limit: Int
    var heap: TopHeap<Entry>
    private var position = 0
    /// The rank of the worst entry kept once the heap is full, held apart from the heap so that a row
    /// that does not enter it is refused without copying an entry (its key is an array).
    private var worst: (rank: UInt64, isNull: Bool)?
    /// A rank at least `limit` rows reach (`QueryEngine.sampledBound`): a row ranked worse is refused
    /// before the heap is full.
    var bound: Rank?

    /// A row's place in the order: nil first ascending, last descending, then the value.
    struct Rank {
        let value: UInt64
        let isNull: Bool

        @inline(__always)
        func isBetter(than other: Rank, ascending: Bool) -> Bool {
            if isNull != other.isNull { return isNull == ascending }
            return ascending ? value < other.value : value > other.value
        }
    }

    /// A sink that ranks rows from `position` on (a split walk's range `index` starts at
    /// `index << 40`, so that positions keep the key order across ranges).
    init(order: ColumnOrder, ascending: Bool, limit: Int, position: Int = 0) {
        self.order = order
        self.ascending = ascending
        self.limit = limit
        self.position = position
        heap = TopHeap(capacity: limit) { lhs, rhs in
            if lhs.isNull != rhs.isNull { return lhs.isNull == ascending }
            if lhs.rank != rhs.rank { return ascending ? lhs.rank < rhs.rank : lhs.rank > rhs.rank }
            return lhs.position < rhs.position
        }
    }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        let position = self.position
        self.position = position &+ 1
        var rank: UInt64 = 0
        if let bytes {
            guard let value = order.sortKey(bytes) else { return false }
            rank = value
        }
        let isNull = bytes == nil
        if let bound, bound.isBetter(than: Rank(value: rank, isNull: isNull), ascending: ascending) { return true }
        if let worst {
            // Not better than the worst kept (a later position loses ties): skip, copying nothing.
            if isNull != worst.isNull {
                if isNull != ascending { return true }
            } else if ascending ? rank >= worst.rank : rank <= worst.rank {
                return true
            }
        }
        heap.offer((rank, isNull, position, row.storedBytes))
        worst = heap.worstKept.map { ($0.rank, $0.isNull) }
        return true
    }

    static var splits: Bool { true }

    func part(_ index: Int) -> Self {
        var part = FirstPageSink(order: order, ascending: ascending, limit: limit, position: index << 40)
        part.bound = bound
        return part
    }

    mutating func merge(_ later: Self) {
        for entry in later.heap.sorted() { heap.offer(entry) }
        worst = heap.worstKept.map { ($0.rank, $0.isNull) }
    }
}
