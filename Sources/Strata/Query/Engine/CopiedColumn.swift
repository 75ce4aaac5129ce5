extension QueryEngine {
    /// The in-memory copy of the numeric `column` of the whole table at the version this Store reads
    /// (`ColumnCopies`), and the name it is kept under: the one kept from an earlier query, or one this
    /// call makes by walking the rows when the column was walked once already at this version; nil
    /// otherwise (inside a write, copies turned off, the column walked for the first time, or the
    /// table too large for the limit), and the caller walks the rows itself.
    ///
    /// - Throws: `.corrupted` naming a damaged row (while making a copy), `.storage`.
    func columnCopy(of column: Int, order: ColumnOrder) throws(StoreError) -> (ColumnCopy, ColumnCopies.Column)? {
        guard let stamp = try changeStamp() else { return nil }
        let copies = core.shared.columnCopies
        let id = ColumnCopies.Column(table: binding.name, column: column, type: binding.columnTypes[column])
        if let copy = copies.copy(of: id, at: stamp) { return (copy, id) }
        guard copies.noteWalk(of: id, at: stamp) else { return nil }
        let limit = core.configuration.columnCopyLimit
        let rows = try StoreError.mapping { () throws(LMDBError) in try core.count(binding.table) }
        guard rows * ColumnCopyBuilder.bytesPerRow <= limit else { return nil }
        let copy = try readColumn(column, of: .batch(.everyRow), into: ColumnCopyBuilder(order: order)).copy(at: stamp)
        copies.keep(copy, of: id, limit: limit)
        return (copy, id)
    }
}

extension QueryEngine {
    /// The change stamp of the table at the version this Store reads; nil inside a write (its
    /// own changes are stamped only as it commits), when copies are turned off
    /// (`columnCopyLimit` 0), or when a stamp is not 8 bytes (then no copy is trusted).
    ///
    /// - Throws: `.storage` when the stamps cannot be read.
    func changeStamp() throws(StoreError) -> ChangeStamp? {
        guard core.session == nil, core.configuration.columnCopyLimit > 0 else { return nil }
        func stamp(_ key: [UInt8]) throws(StoreError) -> UInt64? {
            try StoreError.mapping { () throws(LMDBError) -> UInt64? in
                try key.withBytes { (key) throws(LMDBError) -> UInt64? in
                    guard let value = try core.get(.main, key: key) else { return 0 }
                    return value.count == 8 ? ChangeStamps.decode(value) : nil
                }
            }
        }
        guard let table = try stamp(ChangeStamps.key(ofTable: TableName.objects(binding.name))),
            let any = try stamp(ChangeStamps.anyKey)
        else { return nil }
        return ChangeStamp(table: table, any: any)
    }
}

/// Makes a `ColumnCopy` as the cursor walks: each row's sort key and stored key, in key order; a split
/// walk's ranges become the copy's chunks, in key order.
struct ColumnCopyBuilder: ColumnValueSink {
    /// What a row of an 8-byte key costs a copy: its sort key and its key.
    static let bytesPerRow = 16

    let order: ColumnOrder
    /// The ranges merged so far; the one being read is `current`.
    private var chunks: [ColumnCopy.Chunk] = []
    private var current = ColumnCopy.Chunk()

    init(order: ColumnOrder) {
        self.order = order
    }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        if let bytes {
            guard let value = order.sortKey(bytes) else { return false }
            current.sortKeys.append(value)
        } else {
            current.nullPositions.append(current.sortKeys.count)
            current.sortKeys.append(0)
        }
        switch row {
        case .stored(let key): current.keys.append(key)
        case .key(let key): key.withBytes { current.keys.append($0) }
        }
        return true
    }

    static var splits: Bool { true }

    func part(_ index: Int) -> Self { ColumnCopyBuilder(order: order) }

    mutating func merge(_ later: Self) {
        if !current.sortKeys.isEmpty { chunks.append(current) }
        current = ColumnCopy.Chunk()
        chunks += later.chunks
        if !later.current.sortKeys.isEmpty { chunks.append(later.current) }
    }

    /// The copy, stamped with the change stamp the walk read at.
    func copy(at stamp: ChangeStamp) -> ColumnCopy {
        ColumnCopy(stamp: stamp, chunks: current.sortKeys.isEmpty ? chunks : chunks + [current])
    }
}

extension ColumnCopy {
    /// The stored keys of the first `limit` rows sorted by the copied column: nil first ascending and
    /// last descending, equal values in key order (what `FirstPageSink` gives from the rows).
    func firstPage(ascending: Bool, limit: Int) -> [[UInt8]] {
        /// A row: its chunk and its place there (which together order as the keys do).
        typealias Row = (chunk: Int, index: Int)
        let nulls = chunks.indices.lazy.flatMap { chunk in self.chunks[chunk].nullPositions.lazy.map { (chunk, $0) } }
        func key(_ row: Row) -> [UInt8] { chunks[row.chunk].keys.key(at: row.index) }
        // Ascending, nulls come first, in key order: the first ones fill the page before any value.
        let leadingNulls = ascending ? Array(nulls.prefix(limit)) : []
        if leadingNulls.count == limit { return leadingNulls.map(key) }
        typealias Entry = (rank: UInt64, chunk: Int, index: Int)
        var heap = TopHeap<Entry>(capacity: limit - leadingNulls.count) { lhs, rhs in
            if lhs.rank != rhs.rank { return ascending ? lhs.rank < rhs.rank : lhs.rank > rhs.rank }
            return lhs.chunk != rhs.chunk ? lhs.chunk < rhs.chunk : lhs.index < rhs.index
        }
        var worst: UInt64?  // the worst rank kept, once the heap is full
        for (chunk, rows) in chunks.enumerated() {
            rows.sortKeys.withUnsafeBufferPointer { sortKeys in
                var start = 0
                // The values lie between the nulls: each stretch in a loop of its own.
                for end in rows.nullPositions + [sortKeys.count] {
                    for index in start..<end {
                        let rank = sortKeys[index]
                        if let worst, ascending ? rank >= worst : rank <= worst { continue }
                        heap.offer((rank, chunk, index))
                        worst = heap.worstKept?.rank
                    }
                    start = end + 1
                }
            }
        }
        let values = heap.sorted().map { key(($0.chunk, $0.index)) }
        if ascending { return leadingNulls.map(key) + values }
        // Descending, nulls come last, in key order: they fill what room the values left.
        return values + nulls.prefix(limit - values.count).map(key)
    }
}
