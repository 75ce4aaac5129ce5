extension Results {
    /// The in-memory copy of the numeric `column` of the whole table at the version this Store reads
    /// (`ColumnCopies`): the one kept from an earlier query, or one this call makes by walking the
    /// rows when the column was walked once already at this version; nil otherwise (inside a write,
    /// copies turned off, the column walked for the first time, or the table too large for the
    /// limit), and the caller walks the rows itself.
    ///
    /// - Throws: `.corrupted` naming a damaged row (while making a copy), `.storage`.
    func columnCopy(of column: Int, order: ColumnOrder) throws(StoreError) -> ColumnCopy? {
        guard let stamp = try core.changeStamp(of: binding) else { return nil }
        let copies = core.shared.columnCopies
        let id = ColumnCopies.Column(table: binding.name, column: column, type: binding.columnTypes[column])
        if let copy = copies.copy(of: id, at: stamp) { return copy }
        guard copies.noteWalk(of: id, at: stamp) else { return nil }
        let limit = core.configuration.columnCopyLimit
        let rows = try StoreError.mapping { () throws(LMDBError) in try core.count(binding.table) }
        guard rows * ColumnCopyBuilder.bytesPerRow <= limit else { return nil }
        let copy = try readColumn(column, of: nil, into: ColumnCopyBuilder(order: order)).copy(at: stamp)
        copies.keep(copy, of: id, limit: limit)
        return copy
    }
}

/// Makes a `ColumnCopy` as the cursor walks: each row's sort key and stored key, in key order (a split
/// walk's ranges are appended in key order).
struct ColumnCopyBuilder: ColumnValueSink {
    /// What a row of an integer key costs a copy: its sort key, its key's end, 8 key bytes, its null.
    static let bytesPerRow = 25

    let order: ColumnOrder
    private var sortKeys: [UInt64] = []
    private var nulls: [Bool] = []
    private var nullCount = 0
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []

    init(order: ColumnOrder) {
        self.order = order
    }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        var sortKey: UInt64 = 0
        if let bytes {
            guard let value = order.sortKey(bytes) else { return false }
            sortKey = value
        } else {
            nullCount += 1
        }
        nulls.append(bytes == nil)
        sortKeys.append(sortKey)
        switch row {
        case .stored(let key): keyBytes.append(contentsOf: key)
        case .key(let key): key.withBytes { keyBytes.append(contentsOf: $0) }
        }
        keyEnds.append(keyBytes.count)
        return true
    }

    static var splits: Bool { true }

    func part(_ index: Int) -> Self { ColumnCopyBuilder(order: order) }

    mutating func merge(_ later: Self) {
        let base = keyBytes.count
        sortKeys += later.sortKeys
        nulls += later.nulls
        nullCount += later.nullCount
        keyBytes += later.keyBytes
        keyEnds += later.keyEnds.lazy.map { $0 + base }
    }

    /// The copy, stamped with the change stamp the walk read at.
    func copy(at stamp: ChangeStamp) -> ColumnCopy {
        ColumnCopy(
            stamp: stamp, sortKeys: sortKeys, nulls: nullCount == 0 ? [] : nulls, keyBytes: keyBytes, keyEnds: keyEnds)
    }
}

extension ColumnCopy {
    /// The stored keys of the first `limit` rows sorted by the copied column: nil first ascending and
    /// last descending, equal values in key order (what `FirstPageSink` gives from the rows).
    func firstPage(ascending: Bool, limit: Int) -> [[UInt8]] {
        typealias Entry = (rank: UInt64, isNull: Bool, position: Int)
        var heap = TopHeap<Entry>(capacity: limit) { lhs, rhs in
            if lhs.isNull != rhs.isNull { return lhs.isNull == ascending }
            if lhs.rank != rhs.rank { return ascending ? lhs.rank < rhs.rank : lhs.rank > rhs.rank }
            return lhs.position < rhs.position
        }
        // Ascending, nulls come first: the first ones fill the heap before any value. Descending, they
        // come last: the first ones fill what room the values left.
        if ascending {
            for position in nulls.indices where nulls[position] {
                guard heap.worstKept == nil else { break }
                heap.offer((0, true, position))
            }
            if heap.worstKept != nil { return heap.sorted().map { storedKey(at: $0.position) } }
        }
        sortKeys.withUnsafeBufferPointer { sortKeys in
            var worst = heap.worstKept?.rank  // once full, a value (nulls alone never fill it here)
            for position in sortKeys.indices where nulls.isEmpty || !nulls[position] {
                let rank = sortKeys[position]
                if let worst, ascending ? rank >= worst : rank <= worst { continue }
                heap.offer((rank, false, position))
                worst = heap.worstKept?.rank
            }
        }
        if !ascending {
            for position in nulls.indices where nulls[position] {
                guard heap.worstKept == nil else { break }
                heap.offer((0, true, position))
            }
        }
        return heap.sorted().map { storedKey(at: $0.position) }
    }
}
