import Foundation

/// The rows of a walk grouped by the value of one column, as the sort by that column would group
/// them: numbers by their sort key (0 and -0 one value), strings, data and UUIDs by their bytes,
/// nulls apart; each group's rows in key order. What `sectioned(by:)` on a stored property reads
/// in one walk of the column, without sorting the rows (a counting sort: the groups are sorted,
/// not the rows).
struct ColumnGroups: ColumnValueSink {
    let order: ColumnOrder
    let keyKind: KeyKind
    /// Per group: the bytes of its first value, its sort key (numbers), its rows' keys.
    private(set) var values: [[UInt8]] = []
    private(set) var sortKeys: [UInt64] = []
    private(set) var members: [[RowKey]] = []
    /// The rows whose value is null.
    private(set) var nullMembers: [RowKey] = []
    private var groupOfSortKey: [UInt64: Int] = [:]
    /// Open addressing over the bytes' hash: group + 1, 0 for an empty slot (bytes-ordered columns).
    private var slots = [Int32](repeating: 0, count: 64)

    init(order: ColumnOrder, keyKind: KeyKind) {
        self.order = order
        self.keyKind = keyKind
    }

    static var splits: Bool { true }
    func part(_ index: Int) -> Self { ColumnGroups(order: order, keyKind: keyKind) }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        let key: RowKey
        switch row {
        case .key(let known): key = known
        case .stored(let stored):
            guard let decoded = try? RowKey(stored: stored, kind: keyKind) else { return false }
            key = decoded
        }
        guard let bytes else {
            nullMembers.append(key)
            return true
        }
        guard let group = group(of: bytes) else { return false }
        members[group].append(key)
        return true
    }

    mutating func merge(_ later: Self) {
        nullMembers += later.nullMembers
        for (index, value) in later.values.enumerated() {
            // The later part took the value: it is one of the column's.
            guard let group = value.withUnsafeBytes({ (bytes) -> Int? in self.group(of: bytes) }) else { continue }
            members[group] += later.members[index]
        }
    }

    /// The group of a non-null value (made when new); nil when the bytes are no value of the column.
    @inline(__always)
    private mutating func group(of bytes: UnsafeRawBufferPointer) -> Int? {
        if order != .bytes {
            guard let sortKey = order.sortKey(bytes) else { return nil }
            if let group = groupOfSortKey[sortKey] { return group }
            groupOfSortKey[sortKey] = values.count
            return add(bytes, sortKey: sortKey)
        }
        let mask = slots.count - 1
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a (`FNV1a`), inlined: short values, few groups
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let group = Int(slots[slot]) - 1
            if values[group].withUnsafeBytes({ ColumnOrder.byteOrder($0, bytes) == 0 }) { return group }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(values.count + 1)
        let group = add(bytes, sortKey: 0)
        if values.count * 2 > slots.count { rehash() }
        return group
    }

    private mutating func add(_ bytes: UnsafeRawBufferPointer, sortKey: UInt64) -> Int {
        values.append(Array(bytes))
        sortKeys.append(sortKey)
        members.append([])
        return values.count - 1
    }

    private mutating func rehash() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (group, value) in values.enumerated() {
            var slot = Int(truncatingIfNeeded: FNV1a.hash(value)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(group + 1)
        }
    }

    /// The groups in the order of a stable sort by the column (nulls first ascending, last
    /// descending; the rows of a group keep their key order): each group's value (nil: null) and
    /// rows.
    func sorted(ascending: Bool) -> [(value: [UInt8]?, rows: [RowKey])] {
        var order = Array(values.indices)
        if self.order == .bytes {
            order.sort { a, b in
                values[a].withUnsafeBytes { lhs in values[b].withUnsafeBytes { ColumnOrder.byteOrder(lhs, $0) < 0 } }
            }
        } else {
            order.sort { sortKeys[$0] < sortKeys[$1] }
        }
        var groups: [(value: [UInt8]?, rows: [RowKey])] = order.map { (values[$0], members[$0]) }
        if !nullMembers.isEmpty { groups.insert((nil, nullMembers), at: 0) }
        return ascending ? groups : groups.reversed()
    }
}

/// A section layout read from a column (`ColumnGroups`) rather than from the sorted objects: what
/// `SectionedResults` keeps when its key is the stored property its Results is sorted by.
struct ColumnSectionLayout<Key: Hashable & _Persistable, Element: Object> {
    /// The Results before its sort: conditions only.
    let base: Results<Element>
    let column: Int
    let ascending: Bool

    /// For `sorted` (Results sorted by `keyPath` only, ascending or not) split by the same key path:
    /// the base and the column, when the base is conditions only and the column has an order; nil
    /// otherwise (the layout is then read from the sorted objects).
    init?(sorted: Results<Element>, by keyPath: KeyPath<Element, Key>) {
        guard case .sort(let keys)? = sorted.stages.last, keys.count == 1, keys[0].keyPath == keyPath else {
            return nil
        }
        let base = Results(core: sorted.core, binding: sorted.binding, stages: Array(sorted.stages.dropLast()))
        guard base.stages.allSatisfy({ if case .predicate = $0 { true } else { false } }),
            let column = base.storedColumn(of: keyPath), ColumnOrder(base.binding.columnTypes[column]) != nil
        else { return nil }
        self.base = base
        self.column = column
        ascending = keys[0].ascending
    }

    /// The sections (each key once, positions in the sorted Results) and the rows' keys in that order.
    ///
    /// - Warning: Traps on a damaged row or value, naming it, as reading the objects would.
    func layout() -> (sections: [(key: Key, positions: [Int])], rowKeys: [RowKey]) {
        let binding = base.binding
        let order = ColumnOrder(binding.columnTypes[column])!
        let matches = base.plan.matches!  // conditions only
        let groups = base.synchronizedEvaluating("sectioning") { (engine) throws(StoreError) in
            try engine.readColumn(column, of: matches, into: ColumnGroups(order: order, keyKind: binding.keyKind))
        }.sorted(ascending: ascending)
        var sections = SectionsBuilder<Key>()
        var rowKeys: [RowKey] = []
        rowKeys.reserveCapacity(groups.reduce(0) { $0 + $1.rows.count })
        let context = _DecodeContext(owner: nil, column: column)
        for group in groups {
            let key: Key
            do {
                key = try group.value.withOptionalBytes { (bytes) throws in
                    try Key._strataDecodeColumn(bytes, in: context)
                }
            } catch {
                preconditionFailure(
                    "\(TrapMessage.corrupted): \(binding.name).\(binding.columnNames[column]): \(error)")
            }
            // Values the sort tells apart may be one key (canonically equivalent strings): one section.
            sections.place(key, at: rowKeys.count..<(rowKeys.count + group.rows.count))
            rowKeys += group.rows
        }
        return (sections.sections, rowKeys)
    }
}
