/// One numeric column of a table held in memory (`ColumnCopies`): each row's sort key (its value
/// mapped to an unsigned number that orders as the values do) and the row's stored key, in key
/// order, as of the change stamp it was made at. Immutable once made: Stores on any thread read it.
final class ColumnCopy: Sendable {
    let stamp: ChangeStamp
    /// Per row, in key order, the value's sort key (0 for a null).
    let sortKeys: [UInt64]
    /// Per row, whether the value is null; empty when no value is.
    let nulls: [Bool]
    /// The rows' stored keys, one after another; row `i`'s ends at `keyEnds[i]`.
    let keyBytes: [UInt8]
    let keyEnds: [Int]

    init(stamp: ChangeStamp, sortKeys: [UInt64], nulls: [Bool], keyBytes: [UInt8], keyEnds: [Int]) {
        precondition(sortKeys.count == keyEnds.count && (nulls.isEmpty || nulls.count == sortKeys.count))
        self.stamp = stamp
        self.sortKeys = sortKeys
        self.nulls = nulls
        self.keyBytes = keyBytes
        self.keyEnds = keyEnds
    }

    /// The number of rows.
    var count: Int { sortKeys.count }

    /// The memory the copy holds.
    var byteCount: Int {
        sortKeys.count * MemoryLayout<UInt64>.stride + nulls.count + keyBytes.count
            + keyEnds.count * MemoryLayout<Int>.stride
    }

    /// The stored key of row `index`.
    func storedKey(at index: Int) -> [UInt8] {
        Array(keyBytes[(index == 0 ? 0 : keyEnds[index - 1])..<keyEnds[index]])
    }
}
