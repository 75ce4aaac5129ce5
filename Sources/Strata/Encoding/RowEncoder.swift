/// Resolves a link to an object into the key of its row, adding the object first when it is unmanaged.
protocol LinkResolver: AnyObject {
    func key(forLinkTo object: Object) throws(StoreError) -> RowKey
}

/// Encodes rows in the format of `RowFormat` into one buffer, reused for every row of a write
/// transaction (no allocation per object once the buffer has grown to the largest row).
///
/// Implementation detail of `_Persistable`; not for use outside Strata.
public struct _RowEncoder {
    private(set) var bytes: [UInt8] = []
    private var columnCount = 0
    private var headerSize = 0
    private var column = 0
    private var columnStart = 0
    /// Resolves links while encoding (set by the write that owns this encoder).
    var links: LinkResolver?

    init() {}

    mutating func beginRow(columns: Int) {
        bytes.removeAll(keepingCapacity: true)
        columnCount = columns
        headerSize = RowFormat.headerSize(columns: columns)
        column = 0
        bytes.append(contentsOf: repeatElement(0, count: headerSize))
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: UInt16(columns).littleEndian, as: UInt16.self) }
    }

    /// Starts the next column; write its bytes, then call `endColumn()`.
    mutating func beginColumn() {
        columnStart = bytes.count
    }

    mutating func endColumn() {
        precondition(column < columnCount, "Strata: more columns encoded than the schema has")
        let end = UInt32(bytes.count - headerSize).littleEndian
        let slot = 2 + 4 * column
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: end, toByteOffset: slot, as: UInt32.self) }
        column += 1
    }

    mutating func appendNullColumn() {
        let bitmap = RowFormat.bitmapOffset(columns: columnCount)
        bytes[bitmap + column / 8] |= 1 << UInt8(column % 8)
        beginColumn()
        endColumn()
    }

    /// Appends a column copied from another row (`nil`: null).
    mutating func appendColumn(copying source: UnsafeRawBufferPointer?) {
        guard let source else { return appendNullColumn() }
        beginColumn()
        write(source)
        endColumn()
    }

    /// The finished row. Valid until the next change to the encoder.
    var isComplete: Bool { column == columnCount }

    // MARK: Value bytes

    mutating func write(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func writeLink(to object: Object) throws(StoreError) {
        guard let links else {
            preconditionFailure("Strata: a link was encoded outside of a write")
        }
        let key = try links.key(forLinkTo: object)
        key.withBytes { bytes.append(contentsOf: $0) }
    }

    // MARK: List elements: u32 count, then per element u32 length (0xFFFF_FFFF: null) and its bytes

    mutating func writeListHeader(count: Int) {
        write(UInt32(count))
    }

    /// Reserves an element's length prefix; pass the result to `endElement`.
    mutating func beginElement() -> Int {
        let position = bytes.count
        write(UInt32(0))
        return position
    }

    mutating func endElement(_ position: Int) {
        let length = UInt32(bytes.count - position - 4).littleEndian
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: position, as: UInt32.self) }
    }

    mutating func writeNullElement() {
        write(ListFormat.nullElement)
    }

    func withRow<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        precondition(isComplete, "Strata: row encoded with \(column) of \(columnCount) columns")
        return try bytes.withBytes { (raw) throws(E) -> R in try body(raw) }
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
