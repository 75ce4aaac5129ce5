#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the stored bytes of one column type compare, read in place: the engine's comparisons, sorts,
/// aggregates and `distinct` use it instead of decoding each value through its Swift type.
///
/// Each case reads the bytes the type's encoder writes (`Persistable+Values.swift`): integers of
/// their exact width, little-endian; Float, Double and Date as bit patterns; Bool as one byte 0 or 1;
/// String, Data and UUID as their bytes, which order as queries order them (UTF-8 byte order).
/// Types without a case (Decimal, Decimal128, ObjectId, AnyValue, collections, links) are compared
/// through their decoded values.
extension TableBinding {
    /// The column of `property` and its order when it orders as a number (numbers, dates, Bools);
    /// nil for a property with no column or one ordered by its bytes.
    func numericColumn(ofProperty property: Int) -> (column: Int, order: ColumnOrder)? {
        let column = columnOfProperty[property]
        guard column >= 0, let order = ColumnOrder(columnTypes[column]), order != .bytes else { return nil }
        return (column, order)
    }
}

enum ColumnOrder: Equatable {
    case signed(width: Int)
    case unsigned(width: Int)
    case float
    /// Double and Date (seconds since 2001 as a Double).
    case double
    case bool
    /// String, Data, UUID: byte order.
    case bytes

    /// The order of a column of `type` (an optional's wrapped type), or nil when its values must be
    /// decoded to compare.
    init?(_ type: PropertyType) {
        switch type.unwrapped {
        case .int8: self = .signed(width: 1)
        case .int16: self = .signed(width: 2)
        case .int32: self = .signed(width: 4)
        case .int64: self = .signed(width: 8)
        case .uint8: self = .unsigned(width: 1)
        case .uint16: self = .unsigned(width: 2)
        case .uint32: self = .unsigned(width: 4)
        case .uint64: self = .unsigned(width: 8)
        case .float: self = .float
        case .double, .date: self = .double
        case .bool: self = .bool
        case .string, .data, .uuid: self = .bytes
        default: return nil
        }
    }

    @inline(__always)
    static func order<T: Comparable>(_ lhs: T, _ rhs: T) -> Int { lhs < rhs ? -1 : lhs == rhs ? 0 : 1 }

    @inline(__always)
    static func byteOrder(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(lhs.count, rhs.count)
        if common > 0 {
            let result = memcmp(lhs.baseAddress!, rhs.baseAddress!, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return order(lhs.count, rhs.count)
    }

    @inline(__always)
    static func signedValue(_ bytes: UnsafeRawBufferPointer, width: Int) -> Int64 {
        switch width {
        case 1: Int64(Int8(bitPattern: bytes[0]))
        case 2: Int64(Int16(littleEndian: bytes.loadUnaligned(as: Int16.self)))
        case 4: Int64(Int32(littleEndian: bytes.loadUnaligned(as: Int32.self)))
        default: Int64(littleEndian: bytes.loadUnaligned(as: Int64.self))
        }
    }

    @inline(__always)
    static func unsignedValue(_ bytes: UnsafeRawBufferPointer, width: Int) -> UInt64 {
        switch width {
        case 1: UInt64(bytes[0])
        case 2: UInt64(UInt16(littleEndian: bytes.loadUnaligned(as: UInt16.self)))
        case 4: UInt64(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        default: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        }
    }
}
