/// One sort key read from the rows: the values of its column, in the order of the items sorted,
/// as order-preserving integers (numbers, dates, Bools) or as the bytes themselves (strings, data,
/// UUIDs). nil sorts first in ascending order.
struct SortColumn {
    enum Values {
        /// Order-preserving keys (`ColumnOrder.sortKey`), and which are nil (empty: none is).
        case numeric([UInt64], nulls: [Bool])
        case bytes([UnsafeRawBufferPointer?])
    }

    let values: Values
    let ascending: Bool

    /// Item `a` against item `b` in this key's direction (-1, 0, 1).
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        let order: Int
        switch values {
        case .numeric(let keys, let nulls):
            if !nulls.isEmpty, nulls[a] != nulls[b] {
                order = nulls[a] ? -1 : 1
            } else {
                order = ColumnOrder.order(keys[a], keys[b])
            }
        case .bytes(let values):
            switch (values[a], values[b]) {
            case (nil, nil): order = 0
            case (nil, _): order = -1
            case (_, nil): order = 1
            case (let lhs?, let rhs?): order = ColumnOrder.byteOrder(lhs, rhs)
            }
        }
        return ascending ? order : -order
    }
}

extension ColumnOrder {
    /// An integer whose order is this column type's order for the non-null `bytes` (0 and -0 equal);
    /// nil for byte-ordered types or damaged bytes.
    @inline(__always)
    func sortKey(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        switch self {
        case .signed(let width):
            guard bytes.count == width else { return nil }
            return UInt64(bitPattern: Self.signedValue(bytes, width: width)) ^ (1 << 63)
        case .unsigned(let width):
            guard bytes.count == width else { return nil }
            return Self.unsignedValue(bytes, width: width)
        case .double:
            guard bytes.count == 8 else { return nil }
            return Self.orderedBits(Double(bitPattern: bytes.loadUnaligned(as: UInt64.self)))
        case .float:
            guard bytes.count == 4 else { return nil }
            return Self.orderedBits(Double(Float(bitPattern: bytes.loadUnaligned(as: UInt32.self))))
        case .bool:
            guard bytes.count == 1, bytes[0] <= 1 else { return nil }
            return UInt64(bytes[0])
        case .bytes:
            return nil
        }
    }

    /// Flips every bit of a negative Double, only the sign bit of a positive one: unsigned order is then
    /// the numbers' order.
    @inline(__always)
    static func orderedBits(_ value: Double) -> UInt64 {
        let bits = (value == 0 ? 0 : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}

/// Sorts items by keys read from their rows (`SortColumn`): a radix sort for one numeric key, a heap
/// of `limit` entries for a first page (O(n log k)), a comparison sort otherwise. Ties keep the
/// items' order (stable).
struct ColumnSorter {
    let columns: [SortColumn]

    /// The columns of `keys` for `rows`; nil when a key is no stored property of the row's own type
    /// with a column order (a link's property, a computed one, a Decimal: sorted through objects).
    ///
    /// - Throws: `.corrupted` naming the row of a damaged column.
    /// Whether every key is a stored property of the row's own type with a column order (what the
    /// failable initialiser asks).
    static func sorts<Root: Object>(_ keys: [SortKey<Root>], binding: TableBinding) -> Bool {
        keys.allSatisfy { key in
            guard let property = key.directProperty(in: binding.schema) else { return false }
            let column = binding.columnOfProperty[property]
            return column >= 0 && ColumnOrder(binding.columnTypes[column]) != nil
        }
    }

    init?<Root: Object>(
        _ keys: [SortKey<Root>], rows: [RowView], binding: TableBinding, location: (Int, Int) -> String
    ) throws(StoreError) {
        var columns: [SortColumn] = []
        for key in keys {
            guard let property = key.directProperty(in: binding.schema) else { return nil }
            let column = binding.columnOfProperty[property]
            guard column >= 0, let order = ColumnOrder(binding.columnTypes[column]) else { return nil }
            columns.append(
                SortColumn(
                    values: try Self.read(column, order: order, rows: rows, location: location),
                    ascending: key.ascending)
            )
        }
        self.columns = columns
    }

    init(columns: [SortColumn]) {
        self.columns = columns
    }

    static func read(
        _ column: Int, order: ColumnOrder, rows: [RowView], location: (Int, Int) -> String
    ) throws(StoreError) -> SortColumn.Values {
        if order == .bytes {
            var values: [UnsafeRawBufferPointer?] = []
            values.reserveCapacity(rows.count)
            for (index, row) in rows.enumerated() {
                do {
                    values.append(try row.column(column))
                } catch {
                    throw .corrupted("\(location(index, column)): \(error)")
                }
            }
            return .bytes(values)
        }
        var keys = [UInt64](repeating: 0, count: rows.count)
        var nulls: [Bool] = []
        for (index, row) in rows.enumerated() {
            let bytes: UnsafeRawBufferPointer?
            do {
                bytes = try row.column(column)
            } catch {
                throw .corrupted("\(location(index, column)): \(error)")
            }
            guard let bytes else {
                if nulls.isEmpty { nulls = [Bool](repeating: false, count: rows.count) }
                nulls[index] = true
                continue
            }
            guard let key = order.sortKey(bytes) else {
                throw .corrupted("\(location(index, column)): undecodable in a sort")
            }
            keys[index] = key
        }
        return .numeric(keys, nulls: nulls)
    }

    /// Whether item `a` comes before item `b`: by every key, then by position.
    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        for column in columns {
            let order = column.compare(a, b)
            if order != 0 { return order < 0 }
        }
        return a < b
    }

    /// The positions of the `count` items in sorted order, the first `limit` only when given.
    func order(count: Int, limit: Int? = nil) -> [Int] {
        if let limit, limit < count / 8 { return firstPage(count: count, limit: limit) }
        var order: [Int]
        if columns.count == 1, case .numeric(let keys, let nulls) = columns[0].values {
            order = Self.radixOrder(keys, nulls: nulls, ascending: columns[0].ascending)
        } else {
            order = Array(0..<count)
            order.sort(by: precedes)
        }
        if let limit, limit < order.count { order.removeLast(order.count - limit) }
        return order
    }

    /// The first `limit` positions through a heap holding the best `limit` seen: O(n log k).
    private func firstPage(count: Int, limit: Int) -> [Int] {
        guard limit > 0 else { return [] }
        var heap = TopHeap<Int>(capacity: limit, precedes: precedes)
        for index in 0..<count { heap.offer(index) }
        return heap.sorted()
    }

    /// A stable least-significant-byte radix sort of the keys (nil first ascending, last descending).
    static func radixOrder(_ keys: [UInt64], nulls: [Bool], ascending: Bool) -> [Int] {
        var nullPositions: [Int] = []
        var entries: [RadixEntry] = []
        entries.reserveCapacity(keys.count)
        for index in keys.indices {
            if !nulls.isEmpty, nulls[index] {
                nullPositions.append(index)
            } else {
                entries.append(RadixEntry(key: ascending ? keys[index] : ~keys[index], index: index))
            }
        }
        radixSort(&entries)
        let sorted = entries.map(\.index)
        return ascending ? nullPositions + sorted : sorted + nullPositions
    }

    /// Sorts `entries` by key, stably (equal keys keep their order): 8 passes of one byte at most, the
    /// counts of every pass taken in one read of the entries, a pass skipped when every key has the
    /// same byte there.
    static func radixSort(_ entries: inout [RadixEntry]) {
        let count = entries.count
        guard count > 1 else { return }
        var counts = [Int](repeating: 0, count: 8 * 256)
        counts.withUnsafeMutableBufferPointer { counts in
            for entry in entries {
                var key = entry.key
                for pass in 0..<8 {
                    counts[pass &* 256 &+ Int(key & 0xFF)] &+= 1
                    key >>= 8
                }
            }
        }
        var scratch = [RadixEntry](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        for pass in 0..<8 {
            let base = pass * 256
            if counts[base..<base + 256].contains(count) { continue }  // one byte value everywhere
            var next = [Int](repeating: 0, count: 256)
            var total = 0
            for bucket in 0..<256 {
                next[bucket] = total
                total += counts[base + bucket]
            }
            let shift = UInt64(pass * 8)
            entries.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { target in
                    next.withUnsafeMutableBufferPointer { next in
                        for entry in source {
                            let bucket = Int((entry.key >> shift) & 0xFF)
                            target[next[bucket]] = entry
                            next[bucket] &+= 1
                        }
                    }
                }
            }
            swap(&entries, &scratch)
        }
    }
}

/// A key to sort by and the position of its item (`ColumnSorter.radixSort`).
struct RadixEntry {
    var key: UInt64
    var index: Int
}

/// The best `capacity` items seen, by `precedes`: a binary heap whose root is the worst of them.
struct TopHeap<Item> {
    private var items: [Item] = []
    let capacity: Int
    let precedes: (Item, Item) -> Bool

    init(capacity: Int, precedes: @escaping (Item, Item) -> Bool) {
        self.capacity = capacity
        self.precedes = precedes
        items.reserveCapacity(capacity)
    }

    /// The worst item kept, once the heap is full (an item that does not precede it is not kept).
    var worstKept: Item? { items.count == capacity ? items.first : nil }

    mutating func offer(_ item: Item) {
        if items.count < capacity {
            items.append(item)
            siftUp(items.count - 1)
        } else if precedes(item, items[0]) {
            items[0] = item
            siftDown(0)
        }
    }

    /// The items, best first.
    func sorted() -> [Item] { items.sorted(by: precedes) }

    /// Whether `a` is worse than `b` (the heap keeps the worst on top).
    private func worse(_ a: Item, _ b: Item) -> Bool { precedes(b, a) }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard worse(items[child], items[parent]) else { return }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { return }
            var worst = left
            if left + 1 < items.count, worse(items[left + 1], items[left]) { worst = left + 1 }
            guard worse(items[worst], items[parent]) else { return }
            items.swapAt(worst, parent)
            parent = worst
        }
    }
}
