/// `distinct(by:)` on properties of the row's own type, read from the rows: the first item of each
/// combination of values is kept, values compared as queries compare them (numbers by value, so 0
/// equals -0; strings, data and UUIDs by their bytes), through a hash of the column values.
struct ColumnDistinct {
    private let columns: [(column: Int, order: ColumnOrder)]

    /// Nil when a key path is no stored property of the row's own type with a column order (a link's
    /// property, a Decimal, a computed property: compared through objects).
    init?<Root: Object>(_ keyPaths: [PartialKeyPath<Root>], binding: TableBinding) {
        var properties: [Int] = []
        for keyPath in keyPaths {
            guard let path = KeyPathResolver.path(keyPath, in: binding.schema), let property = path.directProperty
            else { return nil }
            properties.append(property)
        }
        self.init(properties: properties, binding: binding)
    }

    /// The same for properties of the row's type (the string language's `DISTINCT`).
    init?(properties: [Int], binding: TableBinding) {
        var columns: [(column: Int, order: ColumnOrder)] = []
        for property in properties {
            let column = binding.columnOfProperty[property]
            guard column >= 0, let order = ColumnOrder(binding.columnTypes[column]) else { return nil }
            columns.append((column, order))
        }
        guard !columns.isEmpty else { return nil }
        self.columns = columns
    }

    init(columns: [(column: Int, order: ColumnOrder)]) {
        self.columns = columns
    }

    /// The one column compared, when it is the only one and compares by a number (what
    /// `FirstOccurrences` reads as the cursor walks).
    var numericColumn: (column: Int, order: ColumnOrder)? {
        guard columns.count == 1, columns[0].order != .bytes else { return nil }
        return columns[0]
    }

    /// The positions of the items kept, in order.
    ///
    /// - Throws: `.corrupted` naming the row of a damaged column.
    func kept(_ rows: [RowView], location: (Int, Int) -> String) throws(StoreError) -> [Int] {
        var kept: [Int] = []
        if columns.count == 1, columns[0].order != .bytes {
            let (column, order) = columns[0]
            var seen = Set<UInt64>()
            var seenNull = false
            for (index, row) in rows.enumerated() {
                guard let bytes = try Self.column(column, of: row, at: index, location: location) else {
                    if !seenNull { kept.append(index) }
                    seenNull = true
                    continue
                }
                guard let key = order.sortKey(bytes) else {
                    throw .corrupted("\(location(index, column)): undecodable in distinct")
                }
                if seen.insert(key).inserted { kept.append(index) }
            }
            return kept
        }
        var seen = Set<[UInt8]>()
        var key: [UInt8] = []
        for (index, row) in rows.enumerated() {
            key.removeAll(keepingCapacity: true)
            for (column, order) in columns {
                guard let bytes = try Self.column(column, of: row, at: index, location: location) else {
                    key.append(0)
                    continue
                }
                key.append(1)
                if let number = order.sortKey(bytes) {
                    withUnsafeBytes(of: number) { key.append(contentsOf: $0) }
                } else if order == .bytes {
                    withUnsafeBytes(of: bytes.count) { key.append(contentsOf: $0) }
                    key.append(contentsOf: bytes)
                } else {
                    throw .corrupted("\(location(index, column)): undecodable in distinct")
                }
            }
            if seen.insert(key).inserted { kept.append(index) }
        }
        return kept
    }

    private static func column(_ column: Int, of row: RowView, at index: Int, location: (Int, Int) -> String)
        throws(StoreError) -> UnsafeRawBufferPointer?
    {
        do {
            return try row.column(column)
        } catch {
            throw .corrupted("\(location(index, column)): \(error)")
        }
    }
}

/// The first row of each value of a numeric column (nulls one value), in key order: its stored key
/// copied, nothing else kept. Values compare as `ColumnDistinct` compares them (by `sortKey`).
struct FirstOccurrences: ColumnValueSink {
    let order: ColumnOrder
    private var seen = Set<UInt64>()
    private var seenNull = false
    /// The first row of each value: the value (nil: null) and the row's stored key.
    private(set) var kept: [(value: UInt64?, key: [UInt8])] = []

    init(order: ColumnOrder) {
        self.order = order
    }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        let value: UInt64?
        if let bytes {
            guard let number = order.sortKey(bytes) else { return false }
            guard seen.insert(number).inserted else { return true }
            value = number
        } else {
            guard !seenNull else { return true }
            seenNull = true
            value = nil
        }
        kept.append((value, row.storedBytes))
        return true
    }

    static var splits: Bool { true }
    func part(_ index: Int) -> Self { FirstOccurrences(order: order) }

    mutating func merge(_ later: Self) {
        for entry in later.kept {
            if let value = entry.value {
                guard seen.insert(value).inserted else { continue }
            } else {
                guard !seenNull else { continue }
                seenNull = true
            }
            kept.append(entry)
        }
    }
}
