/// How a mixed value (`AnyValue`) is stored: a tag byte (`AnyValue.ValueType`'s raw value), then the
/// value as its own kind stores it; a link as a 2-byte name length, the type's name and the target's
/// key; a nested list or map in the list and map formats, each element a mixed value.
enum MixedFormat {
    enum Tag: UInt8 {
        case none, int, bool, float, double, string, data, date, objectId, decimal128, uuid, object, list, map
    }

    /// The tag and the value's bytes.
    static func split(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> (tag: Tag, payload: UnsafeRawBufferPointer)
    {
        guard let first = bytes.first else { throw RowDamage("a mixed value has no tag") }
        guard let tag = Tag(rawValue: first) else { throw RowDamage("a mixed value has the unknown tag \(first)") }
        return (tag, UnsafeRawBufferPointer(rebasing: bytes[1...]))
    }

    /// A link's type name and key.
    static func link(_ payload: UnsafeRawBufferPointer) throws(RowDamage) -> (
        typeName: String, key: UnsafeRawBufferPointer
    ) {
        guard payload.count >= 2 else { throw RowDamage("a mixed link is cut off") }
        let length = Int(UInt16(littleEndian: payload.loadUnaligned(as: UInt16.self)))
        guard payload.count >= 2 + length + 1 else { throw RowDamage("a mixed link is cut off") }
        guard let name = String(validating: payload[2..<(2 + length)], as: UTF8.self) else {
            throw RowDamage("a mixed link's type name is not UTF-8")
        }
        return (name, UnsafeRawBufferPointer(rebasing: payload[(2 + length)...]))
    }

    /// The mixed value's order key (see `SetOrder.key`): kinds in the order of `Tag` except that every
    /// number (Int, Float, Double, Decimal128) is one kind, compared as a number.
    static func orderKey(_ bytes: UnsafeRawBufferPointer, into key: inout [UInt8]) throws(RowDamage) {
        let (tag, payload) = try split(bytes)
        func exact(_ count: Int) throws(RowDamage) {
            guard payload.count == count else { throw RowDamage("a mixed \(tag) has \(payload.count) bytes") }
        }
        switch tag {
        case .int, .float, .double, .decimal128:
            key.append(Tag.int.rawValue)
            let number: Decimal128
            switch tag {
            case .int:
                try exact(8)
                number = Decimal128(Int(Int64(littleEndian: payload.loadUnaligned(as: Int64.self))))
            case .float:
                try exact(4)
                number = Decimal128(
                    Double(Float(bitPattern: UInt32(littleEndian: payload.loadUnaligned(as: UInt32.self)))))
            case .double:
                try exact(8)
                number = Decimal128(Double(bitPattern: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self))))
            default:
                try exact(16)
                number = Decimal128(
                    high: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                    low: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self)))
            }
            Decimal128.appendIndexKey(of: number, to: &key)
        case .date:
            try exact(8)
            key.append(tag.rawValue)
            let bits = UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self))
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
        default:
            key.append(tag.rawValue)
            key.append(contentsOf: payload)
        }
    }
}
