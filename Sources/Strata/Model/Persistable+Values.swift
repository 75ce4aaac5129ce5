import Foundation

// The value types @Persisted stores. Each encodes into a column without allocating, and each decoder checks
// the length (and, for String, UTF-8 validity) before it trusts the bytes.

@inlinable @inline(__always)
func loadExact<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, as type: T.Type) throws(StoreError) -> T {
    guard bytes.count == MemoryLayout<T>.size else {
        throw .corrupted("a \(T.self) value has \(bytes.count) bytes, not \(MemoryLayout<T>.size)")
    }
    return T(littleEndian: bytes.loadUnaligned(as: T.self))
}

extension _PersistableValue where Self: FixedWidthInteger {
    public static var _strataValueType: _SchemaType {
        switch (isSigned, bitWidth) {
        case (true, 8): _SchemaType(.int8)
        case (true, 16): _SchemaType(.int16)
        case (true, 32): _SchemaType(.int32)
        case (true, _): _SchemaType(.int64)
        case (false, 8): _SchemaType(.uint8)
        case (false, 16): _SchemaType(.uint16)
        case (false, 32): _SchemaType(.uint32)
        case (false, _): _SchemaType(.uint64)
        }
    }

    @inlinable public static func _strataZero() -> Self { 0 }
    public static func _strataValueProbe(_ round: Int) -> Self { Probe.integer(round) }
    public static func _strataIsValueProbe(_ value: Self, _ round: Int) -> Bool { value == Probe.integer(round) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(self)
    }

    @inlinable public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Self? {
        try loadExact(bytes, as: Self.self)
    }
}

extension _PrimaryKeyValue where Self: FixedWidthInteger {
    public var _strataPrimaryKey: _PrimaryKey {
        _PrimaryKey(value: Self.isSigned ? .signed(Int64(self)) : .unsigned(UInt64(self)))
    }
}

extension Int: _PrimaryKeyValue, _IndexableValue {}
extension Int8: _PrimaryKeyValue, _IndexableValue {}
extension Int16: _PrimaryKeyValue, _IndexableValue {}
extension Int32: _PrimaryKeyValue, _IndexableValue {}
extension Int64: _PrimaryKeyValue, _IndexableValue {}
extension UInt8: _PrimaryKeyValue, _IndexableValue {}
extension UInt16: _PrimaryKeyValue, _IndexableValue {}
extension UInt32: _PrimaryKeyValue, _IndexableValue {}
extension UInt64: _PrimaryKeyValue, _IndexableValue {}

extension Bool: _PersistableValue, _IndexableValue {
    public static var _strataValueType: _SchemaType { _SchemaType(.bool) }
    @inlinable public static func _strataZero() -> Bool { false }
    public static func _strataValueProbe(_ round: Int) -> Bool { round != 1 }
    public static func _strataIsValueProbe(_ value: Bool, _ round: Int) -> Bool { value == (round != 1) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(self ? 1 as UInt8 : 0)
    }

    @inlinable public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Bool? {
        switch try loadExact(bytes, as: UInt8.self) {
        case 0: false
        case 1: true
        case let other: throw .corrupted("a Bool value is \(other)")
        }
    }
}

extension Float: _PersistableValue {
    public static var _strataValueType: _SchemaType { _SchemaType(.float) }
    @inlinable public static func _strataZero() -> Float { 0 }
    public static func _strataValueProbe(_ round: Int) -> Float { Probe.floating(round) }
    public static func _strataIsValueProbe(_ value: Float, _ round: Int) -> Bool { value == Probe.floating(round) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(bitPattern)
    }

    @inlinable public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Float? {
        Float(bitPattern: try loadExact(bytes, as: UInt32.self))
    }
}

extension Double: _PersistableValue {
    public static var _strataValueType: _SchemaType { _SchemaType(.double) }
    @inlinable public static func _strataZero() -> Double { 0 }
    public static func _strataValueProbe(_ round: Int) -> Double { Probe.floating(round) }
    public static func _strataIsValueProbe(_ value: Double, _ round: Int) -> Bool { value == Probe.floating(round) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(bitPattern)
    }

    @inlinable public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Double? {
        Double(bitPattern: try loadExact(bytes, as: UInt64.self))
    }
}

extension String: _PrimaryKeyValue, _IndexableValue {
    public var _strataPrimaryKey: _PrimaryKey { _PrimaryKey(value: .string(self)) }
    public static var _strataValueType: _SchemaType { _SchemaType(.string) }
    @inlinable public static func _strataZero() -> String { "" }
    public static func _strataValueProbe(_ round: Int) -> String { Probe.string(round) }

    public static func _strataIsValueProbe(_ value: String, _ round: Int) -> Bool {
        value.utf8.elementsEqual(Probe.string(round).utf8)
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(self)
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> String? {
        guard let string = UTF8Text.string(bytes) else {
            throw .corrupted("a String value is not valid UTF-8")
        }
        return string
    }
}

extension Data: _PersistableValue {
    public static var _strataValueType: _SchemaType { _SchemaType(.data) }
    @inlinable public static func _strataZero() -> Data { Data() }
    public static func _strataValueProbe(_ round: Int) -> Data { Data(Probe.string(round).utf8) }
    public static func _strataIsValueProbe(_ value: Data, _ round: Int) -> Bool {
        value == Data(Probe.string(round).utf8)
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        withUnsafeBytes { row.write($0) }
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Data? {
        Data(bytes)
    }
}

extension Date: _PersistableValue, _IndexableValue {
    public static var _strataValueType: _SchemaType { _SchemaType(.date) }
    @inlinable public static func _strataZero() -> Date { Date(timeIntervalSinceReferenceDate: 0) }

    public static func _strataValueProbe(_ round: Int) -> Date {
        Date(timeIntervalSinceReferenceDate: Probe.floating(round) * 1_000_003)
    }

    public static func _strataIsValueProbe(_ value: Date, _ round: Int) -> Bool { value == _strataValueProbe(round) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(timeIntervalSinceReferenceDate.bitPattern)
    }

    @inlinable public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Date? {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: try loadExact(bytes, as: UInt64.self)))
    }
}

extension UUID: _PrimaryKeyValue, _IndexableValue {
    public var _strataPrimaryKey: _PrimaryKey { _PrimaryKey(value: .uuid(self)) }
    public static var _strataValueType: _SchemaType { _SchemaType(.uuid) }
    @inlinable public static func _strataZero() -> UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }

    public static func _strataValueProbe(_ round: Int) -> UUID {
        let tag = UInt8(round)
        return UUID(uuid: (0x53, 0x54, 0x52, 0x41, 0x54, 0x41, tag, 0x40, 0x80, tag, 0, 0, 0, 0, 0x2B, tag))
    }

    public static func _strataIsValueProbe(_ value: UUID, _ round: Int) -> Bool { value == _strataValueProbe(round) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        withUnsafeBytes(of: uuid) { row.write($0) }
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> UUID? {
        guard bytes.count == 16 else { throw .corrupted("a UUID value has \(bytes.count) bytes, not 16") }
        return UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))
    }
}

/// Decimals are stored as their exact decimal text ("NaN" for NaN): `Decimal`'s binary layout is not
/// public, and its text round-trips every value exactly.
extension Decimal: _PersistableValue {
    public static var _strataValueType: _SchemaType { _SchemaType(.decimal) }
    @inlinable public static func _strataZero() -> Decimal { 0 }
    public static func _strataValueProbe(_ round: Int) -> Decimal { Decimal(Probe.floating(round) as Double) }
    public static func _strataIsValueProbe(_ value: Decimal, _ round: Int) -> Bool { value == _strataValueProbe(round) }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(isNaN ? "NaN" : description)
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Decimal? {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .corrupted("a Decimal value is not valid UTF-8")
        }
        if text == "NaN" { return .nan }
        guard !text.isEmpty, text.utf8.allSatisfy({ "0123456789.-e+E".utf8.contains($0) }),
            let value = Decimal(string: text, locale: nil)
        else {
            throw .corrupted("a Decimal value reads \"\(text.prefix(40))\"")
        }
        return value
    }
}
