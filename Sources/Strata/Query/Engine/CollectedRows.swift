extension QueryEngine {
    /// The keys and rows of the route `.collected`: conditions (one conjunction), then at most a sort
    /// by one numeric property of the row's own type (numbers, dates, Bools), collected as the walk
    /// goes (`CollectedRows`): keys and rows go straight into the two arrays the Results keeps, and a
    /// sort reads each row's value into one array of (value, position) that a radix sort orders. No
    /// array of (key, row) pairs is made and copied per stage: a sorted million rows allocate half
    /// the memory the staged route did.
    ///
    /// - Throws: `.corrupted` naming a damaged row, `.storage`.
    func collect(_ access: RowAccess, sortedBy sort: CollectedRows.SortColumn?) throws(StoreError)
        -> (keys: [RowKey], rows: [RowView])
    {
        let capacity = try StoreError.mapping { () throws(LMDBError) in try core.count(binding.table) }
        var sink = CollectedRows(sortedBy: sort, binding: binding, reader: core.rows, capacity: capacity)
        if let scanner = scanner(access) {
            sink = try scanner.scan(into: sink)
        } else {
            // Other accesses (links, several columns, an index's candidates) visit their matches in
            // key order.
            try forEachMatchingRow(access) { (row, identity) throws(StoreError) in
                try sink.take(row.bytes, of: identity)
            }
        }
        return sink.finished()
    }
}

/// The rows a walk keeps, with their keys, in key order; with a sort column, each row's sort value
/// beside its position (nulls apart), ordered when the walk is done.
///
/// Split (`ScanSplit`) although its rows point into the file. LMDB's manual says the data a
/// transaction returns is valid until that transaction ends, and a helper's ends before the rows
/// are read. It is safe here because a helper reads only when its transaction shows the very version
/// the Store's snapshot shows (`ScanSplit.run`), on a file that is not encrypted (no split walk on
/// one: its values are opened into the transaction's buffers). The rows are then on the pages of
/// that version, in the one map the environment has. LMDB reuses a page only once no reader
/// is left on a version that sees it, and the Store's snapshot is such a reader for as long as the
/// rows are used: the Results keep them for the snapshot's generation only (`RowWalk`).
struct CollectedRows: ScannedRowSink {
    /// The numeric column the rows are sorted by, and the direction.
    struct SortColumn {
        let column: Int
        let order: ColumnOrder
        let ascending: Bool
    }

    private struct Sort {
        let locator: ColumnLocator
        let order: ColumnOrder
        let ascending: Bool
    }

    private let sort: Sort?
    private let binding: TableBinding
    private let reader: RowReader
    /// The rows of the table: the room a walk's arrays reserve (what no match uses is never touched).
    private let capacity: Int
    private var keys: [RowKey] = []
    /// The rows, without a sort.
    private var rows: [RowView] = []
    /// The rows' bytes and offset widths, with a sort: half a `RowView`'s size, which the sorted
    /// order reads far apart (S5: 1.65× GRDB so, 1.43× gathering `RowView`s).
    private var rowBytes: [UnsafeRawBufferPointer] = []
    private var widths: [UInt8] = []
    /// The sort value of each non-null row (inverted when descending) and its position.
    private var entries: [RadixEntry] = []
    /// The positions of the rows whose sort value is null.
    private var nulls: [Int] = []

    init(
        sortedBy sort: SortColumn?, binding: TableBinding,
        reader: RowReader, capacity: Int
    ) {
        self.init(
            sort: sort.map {
                Sort(
                    locator: ColumnLocator(column: $0.column, columns: binding.columnCount), order: $0.order,
                    ascending: $0.ascending)
            }, binding: binding, reader: reader, capacity: capacity, reserving: capacity)
    }

    private init(sort: Sort?, binding: TableBinding, reader: RowReader, capacity: Int, reserving room: Int) {
        self.sort = sort
        self.binding = binding
        self.reader = reader
        self.capacity = capacity
        reserve(room)
    }

    private mutating func reserve(_ room: Int) {
        keys.reserveCapacity(room)
        if sort != nil {
            rowBytes.reserveCapacity(room)
            widths.reserveCapacity(room)
            entries.reserveCapacity(room)
        } else {
            rows.reserveCapacity(room)
        }
    }

    @inline(__always)
    mutating func take(_ row: UnsafeRawBufferPointer, of identity: RowIdentity) throws(StoreError) {
        if let sort {
            try takeValue(of: row, identity, sort)
            rowBytes.append(row)
            widths.append(row.load(as: UInt8.self))
        } else {
            rows.append(RowView(encoded: row, columns: binding.columnCount))
        }
        let key: RowKey =
            switch identity {
            case .key(let key): key
            case .stored(let bytes): try reader.decodeRowKey(bytes, binding: binding)
            }
        keys.append(key)
    }

    @inline(__always)
    private mutating func takeValue(of row: UnsafeRawBufferPointer, _ identity: RowIdentity, _ sort: Sort)
        throws(StoreError)
    {
        let bytes: UnsafeRawBufferPointer?
        do throws(RowDamage) {
            bytes = try sort.locator.bytes(in: row)
        } catch {
            throw RowReader.damage(error, column: sort.locator.column, identity: identity, binding: binding)
        }
        guard let bytes else {
            nulls.append(keys.count)
            return
        }
        guard let value = sort.order.sortKey(bytes) else {
            throw BoundEvaluator.undecodable(sort.locator.column, identity, binding)
        }
        entries.append(RadixEntry(key: sort.ascending ? value : ~value, index: keys.count))
    }

    static var splits: Bool { true }

    /// An empty sink for one key range, with room for its share of the table's rows and more: room
    /// reserved and not used is never touched, and a range that outgrows it copies its rows again.
    func part(_ index: Int) -> Self {
        CollectedRows(
            sort: sort, binding: binding, reader: reader, capacity: capacity,
            reserving: capacity / ScanSplit.partsPerThread)
    }

    /// Appends the next key range's rows; their sort entries' and nulls' positions move past this one's.
    mutating func merge(_ later: Self) {
        let offset = keys.count
        // The first range's sink takes them all: room for the whole table, reserved at once.
        if keys.capacity < offset + later.keys.count { reserve(capacity) }
        keys.append(contentsOf: later.keys)
        rows.append(contentsOf: later.rows)
        rowBytes.append(contentsOf: later.rowBytes)
        widths.append(contentsOf: later.widths)
        entries.append(contentsOf: later.entries.lazy.map { RadixEntry(key: $0.key, index: $0.index + offset) })
        nulls.append(contentsOf: later.nulls.lazy.map { $0 + offset })
    }

    /// The keys and rows: in key order, or sorted (nulls first ascending, last descending; ties in
    /// key order).
    consuming func finished() -> (keys: [RowKey], rows: [RowView]) {
        guard let sort else {
            // A few matches in a large table: copies of their size give back the room reserved for
            // every row (`Array(keys)` would share the reserved buffer).
            guard keys.count < capacity / 2 else { return (keys, rows) }
            return (keys.withUnsafeBufferPointer { Array($0) }, rows.withUnsafeBufferPointer { Array($0) })
        }
        ColumnSorter.radixSort(&entries)
        var order: [Int] = []
        order.reserveCapacity(keys.count)
        if sort.ascending { order.append(contentsOf: nulls) }
        for entry in entries { order.append(entry.index) }
        if !sort.ascending { order.append(contentsOf: nulls) }
        let columns = binding.columnCount
        let sortedRows = widths.withUnsafeBufferPointer { widths in
            Self.gather(rowBytes, in: order) { bytes, position in
                RowView(encoded: bytes, columns: columns, width: Int(widths[position]))
            }
        }
        return (Self.gather(keys, in: order) { key, _ in key }, sortedRows)
    }

    /// `make` of each of `items` in `order`: reads far apart, each asking for the one a few steps
    /// ahead to be loaded.
    @inline(__always)
    private static func gather<Item, Gathered>(
        _ items: [Item], in order: [Int], _ make: (Item, Int) -> Gathered
    ) -> [Gathered] {
        let ahead = 16
        return order.withUnsafeBufferPointer { order in
            items.withUnsafeBufferPointer { items in
                [Gathered](unsafeUninitializedCapacity: order.count) { gathered, initialized in
                    for index in 0..<order.count {
                        if index + ahead < order.count {
                            MemoryHint.prefetch(items.baseAddress! + order[index + ahead])
                        }
                        let position = order[index]
                        (gathered.baseAddress! + index).initialize(to: make(items[position], position))
                    }
                    initialized = order.count
                }
            }
        }
    }
}
