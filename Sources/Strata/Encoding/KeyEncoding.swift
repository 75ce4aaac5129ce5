/// Derives row keys and index keys from encoded column bytes, so that adding, updating, deleting and
/// verifying all compute them the same way.
enum KeyEncoding {
    /// Index keys keep at most this many bytes of a value (LMDB keys are at most 511 bytes). Longer
    /// strings share a key with every string of the same prefix; lookups compare the full value.
    static let maxIndexedValueBytes = 480
    static let nullTag: UInt8 = 0x00
    static let valueTag: UInt8 = 0x01

    /// An integer column's value, widened.
    private static func integer(_ bytes: UnsafeRawBufferPointer, _ type: PropertyType) throws(RowDamage) -> (
        signed: Int64?, unsigned: UInt64?
    ) {
        func load<T: FixedWidthInteger>(_: T.Type) throws(RowDamage) -> T {
            guard bytes.count == MemoryLayout<T>.size else {
                throw RowDamage("a \(T.self) key column has \(bytes.count) bytes")
            }
            return T(littleEndian: bytes.loadUnaligned(as: T.self))
        }
        switch type {
        case .int8: return (Int64(try load(Int8.self)), nil)
        case .int16: return (Int64(try load(Int16.self)), nil)
        case .int32: return (Int64(try load(Int32.self)), nil)
        case .int64: return (try load(Int64.self), nil)
        case .uint8: return (nil, UInt64(try load(UInt8.self)))
        case .uint16: return (nil, UInt64(try load(UInt16.self)))
        case .uint32: return (nil, UInt64(try load(UInt32.self)))
        case .uint64: return (nil, try load(UInt64.self))
        default: throw RowDamage("\(type) is not an integer type")
        }
    }

    /// The row key of a primary-key column.
    static func rowKey(column bytes: UnsafeRawBufferPointer, type: PropertyType) throws(RowDamage) -> RowKey {
        if case .int64 = type, bytes.count == 8 {  // the common key: Int
            return .signed(Int64(littleEndian: bytes.loadUnaligned(as: Int64.self)))
        }
        switch type {
        case .string:
            guard UTF8Text.isValid(bytes) else {
                throw RowDamage("a String primary key is not valid UTF-8")
            }
            var key = [UInt8]()
            key.reserveCapacity(bytes.count + 1)
            key.append(RowKey.stringTag)
            key.append(contentsOf: bytes)
            return .bytes(key)
        case .uuid:
            guard bytes.count == 16 else { throw RowDamage("a UUID primary key has \(bytes.count) bytes") }
            return .wide(bytes)
        case .objectId:
            guard bytes.count == 12 else { throw RowDamage("an ObjectId primary key has \(bytes.count) bytes") }
            return .bytes(Array(bytes))
        default:
            let value = try integer(bytes, type)
            if let signed = value.signed { return .signed(signed) }
            return .integer(value.unsigned ?? 0)
        }
    }

    /// The row key of an integer primary key of type `keyType`, or nil when `value` does not fit it.
    static func rowKey(integer value: Int128, keyType: PropertyType) -> RowKey? {
        guard let range = integerRange(keyType), range.contains(value) else { return nil }
        return keyType.isSignedInteger ? .signed(Int64(value)) : .integer(UInt64(value))
    }

    private static func integerRange(_ type: PropertyType) -> ClosedRange<Int128>? {
        switch type {
        case .int8: Int128(Int8.min)...Int128(Int8.max)
        case .int16: Int128(Int16.min)...Int128(Int16.max)
        case .int32: Int128(Int32.min)...Int128(Int32.max)
        case .int64: Int128(Int64.min)...Int128(Int64.max)
        case .uint8: 0...Int128(UInt8.max)
        case .uint16: 0...Int128(UInt16.max)
        case .uint32: 0...Int128(UInt32.max)
        case .uint64: 0...Int128(UInt64.max)
        default: nil
        }
    }

    /// Replaces `key` with the index key of an indexed column: a tag byte (null or value), then an
    /// order-preserving encoding of the value.
    static func indexKey(
        column bytes: UnsafeRawBufferPointer?, type: PropertyType, into key: inout [UInt8]
    ) throws(RowDamage) {
        key.removeAll(keepingCapacity: true)
        guard let bytes else {
            key.append(nullTag)
            return
        }
        key.append(valueTag)
        switch type {
        case .optional(let wrapped):
            key.removeAll(keepingCapacity: true)
            try indexKey(column: bytes, type: wrapped, into: &key)
        case .string:
            key.append(contentsOf: bytes.prefix(maxIndexedValueBytes))
        case .uuid:
            guard bytes.count == 16 else { throw RowDamage("an indexed UUID has \(bytes.count) bytes") }
            key.append(contentsOf: bytes)
        case .objectId:
            guard bytes.count == 12 else { throw RowDamage("an indexed ObjectId has \(bytes.count) bytes") }
            key.append(contentsOf: bytes)
        case .decimal128:
            guard bytes.count == 16 else { throw RowDamage("an indexed Decimal128 has \(bytes.count) bytes") }
            let value = Decimal128(
                high: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                low: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
            Decimal128.appendIndexKey(of: value, to: &key)
        case .bool:
            guard bytes.count == 1 else { throw RowDamage("an indexed Bool has \(bytes.count) bytes") }
            key.append(bytes[0])
        case .date:
            guard bytes.count == 8 else { throw RowDamage("an indexed Date has \(bytes.count) bytes") }
            let bits = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
            // Order-preserving Double: flip every bit of negatives, only the sign bit of positives.
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
        default:
            let value = try integer(bytes, type)
            let ordered = value.signed.map { UInt64(bitPattern: $0) ^ (1 << 63) } ?? value.unsigned ?? 0
            withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
        }
    }
}
