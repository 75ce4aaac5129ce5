/// Growable bytes with a stable address, freed with their owner. Never shrinks. Also holds the
/// per-column bookkeeping of the row being encoded (column ends, null bits), so encoding a row does
/// no array work.
final class ByteStorage {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private(set) var ends: UnsafeMutablePointer<UInt32>
    private(set) var nulls: UnsafeMutablePointer<UInt8>
    private(set) var columnCapacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
        columnCapacity = 16
        ends = .allocate(capacity: columnCapacity)
        nulls = .allocate(capacity: (columnCapacity + 7) / 8)
    }

    deinit {
        base.deallocate()
        ends.deallocate()
        nulls.deallocate()
    }

    /// Makes room for the bookkeeping of `columns` columns, with every null bit cleared.
    func prepareColumns(_ columns: Int) {
        if columns > columnCapacity {
            ends.deallocate()
            nulls.deallocate()
            columnCapacity = columns
            ends = .allocate(capacity: columns)
            nulls = .allocate(capacity: (columns + 7) / 8)
        }
        let bytes = (columns + 7) / 8
        if bytes == 1 { nulls[0] = 0 } else { nulls.update(repeating: 0, count: bytes) }
    }

    /// Makes room for `needed` bytes, keeping the first `used`.
    func reserve(_ needed: Int, keeping used: Int) {
        guard needed > capacity else { return }
        let grown = max(needed, capacity * 2)
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        newBase.copyMemory(from: base, byteCount: used)
        base.deallocate()
        base = newBase
        capacity = grown
    }
}

/// Encodes rows in the format of `RowFormat` into one buffer, reused for every row of a write
/// transaction (no allocation per object once it has grown to the largest row). Columns are written
/// after room for the largest header; when the row is finished, the header is written with the
/// smallest offset width right before the data, so the data never moves.
///
/// Implementation detail of `_Persistable`; not for use outside Strata.
public struct _RowEncoder {
    private let storage = ByteStorage()
    /// Bytes used, counting the room reserved for the header.
    private var count = 0
    private var reserved = 0
    private var columnCount = 0
    /// Columns finished so far.
    private var column = 0
    /// Where the finished row starts (its header), once finished.
    private var rowStart: Int?

    init() {}

    mutating func beginRow(columns: Int) {
        columnCount = columns
        reserved = RowFormat.headerSize(columns: columns, width: 4)
        count = reserved
        column = 0
        storage.reserve(reserved + 64, keeping: 0)
        storage.prepareColumns(columns)
        rowStart = nil
    }

    /// Ends the column whose bytes were written since the previous column ended.
    mutating func endColumn() {
        precondition(column < columnCount, "Strata: more columns encoded than the schema has")
        storage.ends[column] = UInt32(count - reserved)
        column += 1
    }

    mutating func appendNullColumn() {
        storage.nulls[column / 8] |= 1 << UInt8(column % 8)
        endColumn()
    }

    /// Appends a column copied from another row (`nil`: null).
    mutating func appendColumn(copying source: UnsafeRawBufferPointer?) {
        guard let source else { return appendNullColumn() }
        write(source)
        endColumn()
    }

    var isComplete: Bool { column == columnCount }

    // MARK: Value bytes

    @inline(__always)
    private mutating func append(_ byteCount: Int) -> UnsafeMutableRawPointer {
        storage.reserve(count + byteCount, keeping: count)
        let destination = storage.base + count
        count += byteCount
        return destination
    }

    mutating func write(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        append(raw.count).copyMemory(from: source, byteCount: raw.count)
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        append(MemoryLayout<T>.size).storeBytes(of: value.littleEndian, as: T.self)
    }

    mutating func write(_ string: String) {
        if let done: Void = string.utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        var copy = string
        copy.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a link: the key of the row it points to.
    mutating func writeLink(key: RowKey) {
        key.withBytes { write($0) }
    }

    // MARK: List elements: u32 count, then per element u32 length (0xFFFF_FFFF: null) and its bytes

    mutating func writeListHeader(count: Int) {
        write(UInt32(count))
    }

    /// Reserves an element's length prefix; pass the result to `endElement`.
    mutating func beginElement() -> Int {
        let position = count
        write(UInt32(0))
        return position
    }

    mutating func endElement(_ position: Int) {
        let length = UInt32(count - position - 4).littleEndian
        (storage.base + position).storeBytes(of: length, as: UInt32.self)
    }

    mutating func writeNullElement() {
        write(ListFormat.nullElement)
    }

    /// Turns the empty element just begun at `position` (by `beginElement`) into a null element.
    mutating func rewriteAsNullElement(_ position: Int) {
        precondition(position + 4 == count, "Strata: only an empty, last element can become null")
        (storage.base + position).storeBytes(of: ListFormat.nullElement.littleEndian, as: UInt32.self)
    }

    /// Writes an element of these bytes, with its length prefix.
    mutating func writeElement(_ bytes: UnsafeRawBufferPointer) {
        let start = beginElement()
        write(bytes)
        endElement(start)
    }

    /// Appends a List-of-links column holding `keys` (each a row key's bytes).
    mutating func appendKeyList(_ keys: [[UInt8]]) {
        writeListHeader(count: keys.count)
        for key in keys {
            key.withUnsafeBytes { writeElement($0) }
        }
        endColumn()
    }

    // MARK: The finished row

    /// Writes the header before the data (once) and returns where the row starts.
    private mutating func finish() -> Int {
        if let rowStart { return rowStart }
        precondition(isComplete, "Strata: row encoded with \(column) of \(columnCount) columns")
        let width = RowFormat.width(forDataLength: count - reserved)
        let start = reserved - RowFormat.headerSize(columns: columnCount, width: width)
        let header = storage.base + start
        header.storeBytes(of: UInt8(width), as: UInt8.self)
        header.storeBytes(of: UInt16(columnCount).littleEndian, toByteOffset: 1, as: UInt16.self)
        let ends = storage.ends
        let slots = header + 3
        switch width {
        case 1:
            for index in 0..<columnCount {
                slots.storeBytes(of: UInt8(ends[index]), toByteOffset: index, as: UInt8.self)
            }
        case 2:
            for index in 0..<columnCount {
                slots.storeBytes(of: UInt16(ends[index]).littleEndian, toByteOffset: 2 * index, as: UInt16.self)
            }
        default:
            for index in 0..<columnCount {
                slots.storeBytes(of: ends[index].littleEndian, toByteOffset: 4 * index, as: UInt32.self)
            }
        }
        (header + 3 + width * columnCount).copyMemory(from: storage.nulls, byteCount: (columnCount + 7) / 8)
        rowStart = start
        return start
    }

    /// Runs `body` with the finished row's bytes (valid during `body`).
    mutating func withRow<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let start = finish()
        return try body(UnsafeRawBufferPointer(start: storage.base + start, count: count - start))
    }

    /// Runs `body` with the finished row, which has room for its seal after it (valid during `body`):
    /// what the object path stores, sealed without a copy.
    mutating func withEncodedRow<R, E: Error>(columns: Int, _ body: (EncodedRow) throws(E) -> R) throws(E) -> R {
        let start = finish()
        storage.reserve(count + RowSeal.size, keeping: count)
        let bytes = UnsafeRawBufferPointer(start: storage.base + start, count: count - start)
        return try body(EncodedRow(roomAfter: RowView(encoded: bytes, columns: columns)))
    }
}

extension _RowEncoder {
    /// The bytes of one column that `write` writes and ends, outside any row: how a column built
    /// apart (a Map, an embedded image, a patch) is made.
    static func columnBytes(_ write: (inout _RowEncoder) -> Void) -> [UInt8] {
        var encoder = _RowEncoder()
        encoder.beginRow(columns: 1)
        write(&encoder)
        return encoder.withRow { row in
            Array((try? RowView(encoded: row, columns: 1).column(0)) ?? UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}

enum ListFormat {
    static let nullElement = UInt32.max

    /// Splits an encoded list into its elements (nil: a null element). Throws when the bytes are damaged.
    static func elements(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> [UnsafeRawBufferPointer?] {
        guard bytes.count >= 4 else { throw RowDamage("list of \(bytes.count) bytes has no count") }
        let count = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        guard count <= (bytes.count - 4) / 4 else { throw RowDamage("list claims \(count) elements") }
        var elements = [UnsafeRawBufferPointer?]()
        elements.reserveCapacity(count)
        var offset = 4
        for index in 0..<count {
            guard offset + 4 <= bytes.count else { throw RowDamage("list element \(index) is cut off") }
            let length = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += 4
            if length == nullElement {
                elements.append(nil)
                continue
            }
            guard Int(length) <= bytes.count - offset else {
                throw RowDamage("list element \(index) claims \(length) bytes, \(bytes.count - offset) remain")
            }
            elements.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))]))
            offset += Int(length)
        }
        guard offset == bytes.count else { throw RowDamage("list has \(bytes.count - offset) trailing bytes") }
        return elements
    }
}
