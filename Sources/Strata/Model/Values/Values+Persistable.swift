import Foundation

// ObjectId and Decimal128 as stored values: ObjectId as its 12 bytes (which sort as ids do), Decimal128
// as its 16 encoding bytes, low half first (as BSON stores it).

extension ObjectId: _PrimaryKeyValue, _IndexableValue, _QueryComparable {
    public var _strataPrimaryKey: _PrimaryKey { _PrimaryKey(value: .objectId(self)) }
    public static var _strataValueType: _SchemaType { _SchemaType(.objectId) }
    /// A new id, as Realm gives a property declared without an initial value.
    public static func _strataZero() -> ObjectId { .generate() }

    public static func _strataValueProbe(_ round: Int) -> ObjectId {
        ObjectId(timeSeconds: 0x5354_5241, middle: 0x54_4150_524F, count: UInt32(round))
    }

    public static func _strataIsValueProbe(_ value: ObjectId, _ round: Int) -> Bool {
        value == _strataValueProbe(round)
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        withBytes { row.write($0) }
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> ObjectId? {
        guard bytes.count == 12 else { throw .corrupted("an ObjectId value has \(bytes.count) bytes, not 12") }
        return ObjectId(stored: bytes)
    }
}

extension Decimal128: _PersistableValue, _IndexableValue, _QueryComparable {
    public static var _strataValueType: _SchemaType { _SchemaType(.decimal128) }
    @inlinable public static func _strataZero() -> Decimal128 { 0 }
    public static func _strataValueProbe(_ round: Int) -> Decimal128 { Decimal128(Probe.floating(round) as Double) }

    /// The very encoding (not numeric equality: a key path that rescales the value is caught).
    public static func _strataIsValueProbe(_ value: Decimal128, _ round: Int) -> Bool {
        let probe = _strataValueProbe(round)
        return value.high == probe.high && value.low == probe.low
    }

    /// NaN sorts before every number (as in an index), so that sorting is a total order.
    public static func _queryCompare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int {
        switch (lhs.isNaN, rhs.isNaN) {
        case (true, true): 0
        case (true, false): -1
        case (false, true): 1
        case (false, false): compare(lhs, rhs) ?? 0
        }
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(low)
        row.write(high)
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Decimal128? {
        guard bytes.count == 16 else { throw .corrupted("a Decimal128 value has \(bytes.count) bytes, not 16") }
        return Decimal128(
            high: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            low: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
    }
}

extension Decimal128 {
    /// The index key of a stored Decimal128: equal numbers get equal keys, and keys sort as the
    /// numbers (NaN first, then -infinity, negatives, zero, positives, +infinity). A class byte, then
    /// for finite non-zero values the adjusted exponent (biased, big-endian) and the coefficient
    /// scaled to 34 digits (big-endian), every byte inverted for negatives.
    static func appendIndexKey(of value: Decimal128, to key: inout [UInt8]) {
        guard let normal = value.normalized else { return key.append(0) }
        if normal.adjustedExponent == Int.max { return key.append(normal.negative ? 1 : 5) }
        if normal.adjustedExponent == Int.min { return key.append(3) }
        key.append(normal.negative ? 2 : 4)
        let exponent = UInt16(normal.adjustedExponent + exponentBias + 40)
        var body = [UInt8]()
        withUnsafeBytes(of: exponent.bigEndian) { body.append(contentsOf: $0) }
        withUnsafeBytes(of: normal.scaled.bigEndian) { body.append(contentsOf: $0) }
        key.append(contentsOf: normal.negative ? body.map { ~$0 } : body)
    }
}
