/// The row format (version 1).
///
/// ```
/// u16 columnCount | u32 end[columnCount] | nullBitmap[(columnCount + 7) / 8] | column data…
/// ```
/// `end[i]` is where column `i` ends, counted from the start of the data; column `i` starts where
/// column `i - 1` ends, so one column is found in O(1) straight from the memory map. Integers are
/// little-endian. A null column has its bit set and no bytes.
enum RowFormat {
    static let version: UInt32 = 1

    static func headerSize(columns: Int) -> Int {
        2 + 4 * columns + (columns + 7) / 8
    }

    static func bitmapOffset(columns: Int) -> Int {
        2 + 4 * columns
    }
}

/// A validated view of one stored row. Validation checks the header once (column count, offsets in
/// order and inside the row, null columns empty); after it, reading a column is two loads.
@usableFromInline
struct RowView {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let columnCount: Int
    @usableFromInline let dataStart: Int

    /// Checks `bytes` as a row of `expectedColumns` columns.
    init(validating bytes: UnsafeRawBufferPointer, expectedColumns: Int) throws(RowDamage) {
        guard bytes.count >= 2 else { throw RowDamage("row of \(bytes.count) bytes has no header") }
        let count = Int(UInt16(littleEndian: bytes.loadUnaligned(as: UInt16.self)))
        guard count == expectedColumns else {
            throw RowDamage("row has \(count) columns, the schema has \(expectedColumns)")
        }
        let headerSize = RowFormat.headerSize(columns: count)
        guard bytes.count >= headerSize else {
            throw RowDamage("row of \(bytes.count) bytes is shorter than its \(headerSize)-byte header")
        }
        let dataLength = bytes.count - headerSize
        let bitmap = RowFormat.bitmapOffset(columns: count)
        var previous = 0
        for column in 0..<count {
            let end = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 + 4 * column, as: UInt32.self)))
            guard end >= previous, end <= dataLength else {
                throw RowDamage("column \(column) ends at \(end), outside \(previous)...\(dataLength)")
            }
            let isNull = bytes[bitmap + column / 8] & (1 << UInt8(column % 8)) != 0
            if isNull && end != previous { throw RowDamage("null column \(column) has \(end - previous) bytes") }
            previous = end
        }
        guard previous == dataLength else {
            throw RowDamage("row has \(dataLength - previous) bytes after its last column")
        }
        if count % 8 != 0, bytes[bitmap + count / 8] >> UInt8(count % 8) != 0 {
            throw RowDamage("null bitmap marks columns past the last one")
        }
        self.bytes = bytes
        columnCount = count
        dataStart = headerSize
    }

    /// A row this process just encoded (`_RowEncoder`), trusted without validation.
    init(encoded bytes: UnsafeRawBufferPointer, columns: Int) {
        self.bytes = bytes
        columnCount = columns
        dataStart = RowFormat.headerSize(columns: columns)
    }

    /// The bytes of column `index`, or nil when it is null.
    @inlinable
    func column(_ index: Int) -> UnsafeRawBufferPointer? {
        let bitmap = 2 + 4 * columnCount
        if bytes[bitmap + index / 8] & (1 << UInt8(index % 8)) != 0 { return nil }
        let end = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 + 4 * index, as: UInt32.self)))
        let start =
            index == 0
            ? 0 : Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 + 4 * (index - 1), as: UInt32.self)))
        return UnsafeRawBufferPointer(rebasing: bytes[(dataStart + start)..<(dataStart + end)])
    }

    /// Whether column `index` holds the same bytes (or the same null) in both rows.
    func columnEquals(_ index: Int, _ other: RowView, _ otherIndex: Int) -> Bool {
        switch (column(index), other.column(otherIndex)) {
        case (nil, nil): true
        case (let a?, let b?): a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
        default: false
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
