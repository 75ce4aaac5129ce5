#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The row format (version 1).
///
/// ```
/// u8 width | u16 columnCount | end[columnCount] (width bytes each) | nullBitmap[(columnCount + 7) / 8] | data…
/// ```
/// `end[i]` is where column `i` ends, counted from the start of the data; column `i` starts where
/// column `i - 1` ends, so one column is found in O(1) straight from the memory map. `width` is the
/// size of an end offset: 1, 2 or 4 bytes, the smallest that holds the data's length (small rows,
/// the common case, pay one byte per column). Integers are little-endian. A null column has its bit
/// set and no bytes.
enum RowFormat {
    /// Wrapping arithmetic: every caller passes a width of 1, 2 or 4 and a column count of at most
    /// 65,535 (a header's `u16`), which cannot overflow; the iteration computes this once per row.
    @inline(__always)
    static func headerSize(columns: Int, width: Int) -> Int {
        3 &+ width &* columns &+ (columns &+ 7) >> 3
    }

    /// The smallest offset width that can express `dataLength`.
    static func width(forDataLength dataLength: Int) -> Int {
        dataLength <= Int(UInt8.max) ? 1 : dataLength <= Int(UInt16.max) ? 2 : 4
    }
}

/// A view of one stored row. Every column read checks its offsets against the row (a few compares),
/// so a damaged row reads as `RowDamage`, never out of bounds and never as a null. Reads check the
/// header only (`init(checkingHeader:)`, O(1)); writes and `verify()` check every column up front
/// (`init(validating:)`).
@usableFromInline
struct RowView {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let columnCount: Int
    @usableFromInline let width: Int
    @usableFromInline let dataStart: Int

    /// Checks the header of `bytes` as a row of `expectedColumns` columns: O(1).
    /// Every row read passes here: the messages are built out of line (`headerDamage`), so that this
    /// path saves no registers for them.
    init(checkingHeader bytes: UnsafeRawBufferPointer, expectedColumns: Int) throws(RowDamage) {
        guard bytes.count >= 3 else { throw Self.headerDamage(bytes, expectedColumns: expectedColumns) }
        let width = Int(bytes[0])
        let count = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt16.self)))
        guard width == 1 || width == 2 || width == 4, count == expectedColumns,
            bytes.count >= RowFormat.headerSize(columns: count, width: width)
        else { throw Self.headerDamage(bytes, expectedColumns: expectedColumns) }
        self.init(encoded: bytes, columns: count, width: width)
    }

    /// What is wrong with the header of `bytes`, which `init(checkingHeader:)` refused.
    @inline(never)
    private static func headerDamage(_ bytes: UnsafeRawBufferPointer, expectedColumns: Int) -> RowDamage {
        guard bytes.count >= 3 else { return RowDamage("row of \(bytes.count) bytes has no header") }
        let width = Int(bytes[0])
        guard width == 1 || width == 2 || width == 4 else { return RowDamage("row offset width is \(width)") }
        let count = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt16.self)))
        guard count == expectedColumns else {
            return RowDamage("row has \(count) columns, the schema has \(expectedColumns)")
        }
        return RowDamage("row of \(bytes.count) bytes is shorter than its header")
    }

    /// Checks `bytes` as a row of `expectedColumns` columns, every column.
    init(validating bytes: UnsafeRawBufferPointer, expectedColumns: Int) throws(RowDamage) {
        let view = try RowView(checkingHeader: bytes, expectedColumns: expectedColumns)
        let dataLength = bytes.count - view.dataStart
        guard view.width == RowFormat.width(forDataLength: dataLength) else {
            throw RowDamage("row offset width \(view.width) does not fit its \(dataLength) data bytes")
        }
        // Offsets in order and inside the row, a null column empty: one pass over the header.
        let bitmap = 3 + view.width * expectedColumns
        var previous = 0
        for column in 0..<expectedColumns {
            let end = view.end(column)
            guard end >= previous, end <= dataLength else {
                throw RowDamage("column \(column) ends at \(end), outside \(previous)...\(dataLength)")
            }
            if bytes[bitmap + column / 8] & (1 << UInt8(column % 8)) != 0, end != previous {
                throw RowDamage("null column \(column) has \(end - previous) bytes")
            }
            previous = end
        }
        guard previous == dataLength else {
            throw RowDamage("row has \(dataLength - previous) bytes after its last column")
        }
        if expectedColumns % 8 != 0, bytes[bitmap + expectedColumns / 8] >> UInt8(expectedColumns % 8) != 0 {
            throw RowDamage("null bitmap marks columns past the last one")
        }
        self = view
    }

    /// The row stored as `stored` under `key` (`RowSeal`): its seal and header checked, O(row length)
    /// for the checksum.
    @inline(__always)
    init(stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, expectedColumns: Int) throws(RowDamage) {
        try self.init(checkingHeader: RowSeal.open(stored, key: key), expectedColumns: expectedColumns)
    }

    /// The row stored as `stored` under `key`, its seal and every column checked.
    init(validatingStored stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, expectedColumns: Int)
        throws(RowDamage)
    {
        try self.init(validating: RowSeal.open(stored, key: key), expectedColumns: expectedColumns)
    }

    /// A row this process just encoded (`_RowEncoder`), one already validated, or one whose header
    /// the cursor's C call checked (`strata_cursor_get_rows`): no checks.
    init(encoded bytes: UnsafeRawBufferPointer, columns: Int, width: Int? = nil) {
        self.bytes = bytes
        columnCount = columns
        self.width = width ?? Int(bytes[0])
        dataStart = RowFormat.headerSize(columns: columns, width: self.width)
    }

    @inlinable @inline(__always)
    func end(_ index: Int) -> Int {
        // Wrapping arithmetic: a column index and a width (1, 2 or 4) of a checked header cannot overflow.
        let offset = 3 &+ width &* index
        switch width {
        case 1: return Int(bytes[offset])
        case 2: return Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        default: return Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
    }

    /// The bytes of column `index`, or nil when it is null.
    ///
    /// - Throws: `RowDamage` when the column's offsets fall outside the row or a null column has bytes.
    @inlinable @inline(__always)
    func column(_ index: Int) throws(RowDamage) -> UnsafeRawBufferPointer? {
        let start = index == 0 ? 0 : end(index &- 1)
        let end = end(index)
        let isNull = bytes[3 &+ width &* columnCount &+ index >> 3] & (1 &<< UInt8(truncatingIfNeeded: index & 7)) != 0
        guard start <= end, dataStart &+ end <= bytes.count, !isNull || start == end else {
            throw RowDamage("column \(index) spans \(start)..<\(end) of \(bytes.count - dataStart) data bytes")
        }
        if isNull { return nil }
        return UnsafeRawBufferPointer(start: bytes.baseAddress! + (dataStart &+ start), count: end &- start)
    }

    /// Whether column `index` holds the same bytes (or the same null) in both rows.
    func columnEquals(_ index: Int, _ other: RowView, _ otherIndex: Int) throws(RowDamage) -> Bool {
        switch (try column(index), try other.column(otherIndex)) {
        case (nil, nil): true
        case (let a?, let b?): a.hasSameBytes(as: b)
        default: false
        }
    }
}

/// Reads one column of many rows of one table (a scan): the header's layout is computed once, and a
/// row of offset width 1 (fewer than 256 data bytes: most rows) finds its column with no switch.
/// The row's header must have been checked (`RowView(checkingHeader:)`, or the cursor's
/// `strata_cursor_get_row`), so that the offsets and the null bitmap lie inside the row.
struct ColumnLocator {
    let column: Int
    let columns: Int
    /// For rows of width 1: where the data starts, the byte and mask of the column's null bit.
    private let narrowDataStart: Int
    private let narrowNullByte: Int
    private let nullMask: UInt8

    init(column: Int, columns: Int) {
        self.column = column
        self.columns = columns
        narrowDataStart = RowFormat.headerSize(columns: columns, width: 1)
        narrowNullByte = 3 + columns + column / 8
        nullMask = 1 << UInt8(column % 8)
    }

    /// The bytes of the column in `row`, or nil when it is null.
    ///
    /// - Throws: `RowDamage` when the column's offsets fall outside the row or a null column has bytes.
    @inline(__always)
    func bytes(in row: UnsafeRawBufferPointer) throws(RowDamage) -> UnsafeRawBufferPointer? {
        let base = row.baseAddress.unsafelyUnwrapped
        guard base.load(as: UInt8.self) == 1 else {
            return try RowView(encoded: row, columns: columns).column(column)
        }
        let end = Int(base.load(fromByteOffset: 3 &+ column, as: UInt8.self))
        let start = column == 0 ? 0 : Int(base.load(fromByteOffset: 2 &+ column, as: UInt8.self))
        let isNull = base.load(fromByteOffset: narrowNullByte, as: UInt8.self) & nullMask != 0
        guard start <= end, narrowDataStart &+ end <= row.count, !isNull || start == end else {
            return try RowView(encoded: row, columns: columns).column(column)  // throws, naming the span
        }
        if isNull { return nil }
        return UnsafeRawBufferPointer(start: base + (narrowDataStart &+ start), count: end &- start)
    }
}
