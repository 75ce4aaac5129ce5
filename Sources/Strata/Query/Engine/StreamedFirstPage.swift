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
        let sink = try readColumn(
            column, of: access, into: FirstPageSink(order: order, ascending: ascending, limit: limit))
        return try rows(ofStoredKeys: sink.heap.sorted().map(\.key))
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
        FirstPageSink(order: order, ascending: ascending, limit: limit, position: index << 40)
    }

    mutating func merge(_ later: Self) {
        for entry in later.heap.sorted() { heap.offer(entry) }
        worst = heap.worstKept.map { ($0.rank, $0.isNull) }
    }
}
