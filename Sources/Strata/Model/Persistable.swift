import Foundation

/// Implementation detail: a type `@Persisted` can store. Strata's value types, their optionals, links
/// (`Object?`), `List` and `PersistableEnum` conform. Do not conform your own types; make enums
/// `PersistableEnum` instead.
public protocol _Persistable {
    /// How the schema records this type.
    static var _strataSchemaType: _SchemaType { get }
    /// The value of a property declared without an initial value ("", 0, nil, an empty list…).
    static func _strataZero() -> Self
    /// Appends the value as the row's next column.
    func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError)
    /// Appends the unmanaged `@Persisted` value at `address` as the row's next column; returns false,
    /// appending nothing, when it is not settled yet (unset, or an initial value to evaluate).
    static func _strataEncodeUnmanaged(at address: UnsafeRawPointer, into row: inout _RowEncoder) throws(StoreError)
        -> Bool
    /// Decodes a column (`nil`: the column is null).
    ///
    /// - Throws: `.corrupted` when the bytes cannot be a value of this type.
    static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Self
    /// The value a key-path recorder hands out in `round` (see `KeyPathResolver`): distinct rounds
    /// give distinct values, so a key path that transforms the value is caught.
    static func _strataProbe(_ round: Int) -> Self
    /// Whether `value` is the probe of `round`.
    static func _strataIsProbe(_ value: Self, _ round: Int) -> Bool
}

/// Implementation detail: a type that may be wrapped in `Optional` for `@Persisted`, or be the element
/// of a `List`: Strata's value types, enums, and objects (links).
public protocol _OptionalPersistable {
    /// How the schema records a non-nil value of this type.
    static var _strataValueType: _SchemaType { get }
    /// Appends the value's bytes to the current column or list element.
    func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError)
    /// Decodes non-null bytes. Returns nil when the bytes name something that is gone (a link to a
    /// deleted object).
    ///
    /// - Throws: `.corrupted` when the bytes cannot be a value of this type.
    static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Self?
    /// Decodes non-null bytes where nil is a value too (an optional property, List element, Map value):
    /// as `_strataDecodeValue`, except that a value the type refuses reads as nil.
    static func _strataDecodeOptional(_ bytes: UnsafeRawBufferPointer, in context: _DecodeContext)
        throws(StoreError) -> Self?
    /// The probe of an optional property of this type in `round` (see `KeyPathResolver`).
    static func _strataOptionalProbe(_ round: Int) -> Self?
    /// Whether `value` (a `Self?`) is the probe of an optional property of this type in `round`.
    static func _strataIsOptionalProbe(_ value: Any?, _ round: Int) -> Bool
}

/// Implementation detail: a non-optional stored value (Bool, integers, floating point, String, Data,
/// Date, UUID, Decimal, `PersistableEnum`).
public protocol _PersistableValue: _Persistable, _OptionalPersistable, _ListElement, _MapValue, _SetElement {
    /// The key-path recorder's probe of this type in `round` (see `KeyPathResolver`).
    static func _strataValueProbe(_ round: Int) -> Self
    /// Whether `value` is that probe.
    static func _strataIsValueProbe(_ value: Self, _ round: Int) -> Bool
}

/// Implementation detail: a type a `List` can hold: values, optional values, objects.
public protocol _ListElement {
    static var _strataElementType: _SchemaType { get }
    /// Appends the element to the list being encoded.
    func _strataEncodeElement(into row: inout _RowEncoder) throws(StoreError)
    /// Decodes one element (`nil` bytes: a null element). Returns nil for an element to skip (a link
    /// to a deleted object).
    static func _strataDecodeElement(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Self?
}

/// Implementation detail: the types a primary key may have (integers, String, UUID, ObjectId).
public protocol _PrimaryKeyValue: _PersistableValue {
    /// The value as a key, to look a row up without encoding a column first.
    var _strataPrimaryKey: _PrimaryKey { get }
}

/// Implementation detail: a primary-key value, whatever its Swift type.
public struct _PrimaryKey {
    enum Value {
        case signed(Int64)
        case unsigned(UInt64)
        case string(String)
        case uuid(UUID)
        case objectId(ObjectId)
    }

    let value: Value
}

/// Implementation detail: the types `@Persisted(indexed: true)` accepts (integers, String, UUID, Bool,
/// Date, and their optionals).
public protocol _IndexableValue: _Persistable {}

extension _Persistable {
    public static func _strataEncodeUnmanaged(
        at address: UnsafeRawPointer, into row: inout _RowEncoder
    ) throws(StoreError) -> Bool {
        guard case .value(let value) = address.assumingMemoryBound(to: UnmanagedValue<Self>.self).pointee else {
            return false
        }
        try value._strataEncodeColumn(into: &row)
        return true
    }
}

extension _PersistableValue {
    public static var _strataSchemaType: _SchemaType { _strataValueType }

    public static func _strataProbe(_ round: Int) -> Self { _strataValueProbe(round) }
    public static func _strataIsProbe(_ value: Self, _ round: Int) -> Bool { _strataIsValueProbe(value, round) }

    /// An optional property's probes: nil in round 1, so that `?? default` is caught too.
    public static func _strataOptionalProbe(_ round: Int) -> Self? { round == 1 ? nil : _strataValueProbe(round) }

    public static func _strataIsOptionalProbe(_ value: Any?, _ round: Int) -> Bool {
        guard let value else { return round == 1 }
        guard let typed = value as? Self else { return false }
        return round != 1 && _strataIsValueProbe(typed, round)
    }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        try _strataEncodeValue(into: &row)
        row.endColumn()
    }

    @inlinable
    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Self {
        guard let bytes else { throw _strataColumnDamage(isNull: true) }
        guard let value = try _strataDecodeValue(bytes, in: context) else { throw _strataColumnDamage(isNull: false) }
        return value
    }

    /// Why a column of this type could not be decoded (out of line: the inlined path stays small).
    @usableFromInline
    static func _strataColumnDamage(isNull: Bool) -> StoreError {
        isNull
            ? .corrupted("null in a non-optional \(_strataValueType.type) column")
            : .corrupted("undecodable \(_strataValueType.type) value")
    }
}

/// Implementation detail: where a column being decoded belongs (links and lists need their store).
public struct _DecodeContext {
    /// The managed object whose row is decoded; nil when validating bytes alone.
    let owner: Object?
    /// The stored column index of the property within the row.
    let column: Int

    @usableFromInline
    init(owner: Object?, column: Int) {
        self.owner = owner
        self.column = column
    }
}

extension _OptionalPersistable {
    public static var _strataElementType: _SchemaType { _strataValueType }

    public static func _strataDecodeOptional(_ bytes: UnsafeRawBufferPointer, in context: _DecodeContext)
        throws(StoreError) -> Self?
    {
        try _strataDecodeValue(bytes, in: context)
    }

    public func _strataEncodeElement(into row: inout _RowEncoder) throws(StoreError) {
        let start = row.beginElement()
        try _strataEncodeValue(into: &row)
        row.endElement(start)
    }

    public static func _strataDecodeElement(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Self? {
        guard let bytes else { throw .corrupted("null element in a List<\(Self.self)>") }
        return try _strataDecodeValue(bytes, in: context)
    }
}

extension Object: _ListElement {}

extension Optional: _ListElement where Wrapped: _PersistableValue {
    public static var _strataElementType: _SchemaType { _SchemaType(.optional(Wrapped._strataValueType.type)) }

    public func _strataEncodeElement(into row: inout _RowEncoder) throws(StoreError) {
        guard let value = self else { return row.writeNullElement() }
        try value._strataEncodeElement(into: &row)
    }

    public static func _strataDecodeElement(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Wrapped?? {
        guard let bytes else { return .some(nil) }
        return .some(try Wrapped._strataDecodeOptional(bytes, in: context))
    }
}

extension Optional: _Persistable where Wrapped: _OptionalPersistable {
    public static var _strataSchemaType: _SchemaType { _SchemaType._optional(of: Wrapped._strataValueType) }

    @inlinable public static func _strataZero() -> Self { nil }
    public static func _strataProbe(_ round: Int) -> Self { Wrapped._strataOptionalProbe(round) }
    public static func _strataIsProbe(_ value: Self, _ round: Int) -> Bool {
        Wrapped._strataIsOptionalProbe(value.map { $0 as Any }, round)
    }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        guard let value = self else { return row.appendNullColumn() }
        try value._strataEncodeValue(into: &row)
        row.endColumn()
    }

    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Self {
        guard let bytes else { return nil }
        return try Wrapped._strataDecodeOptional(bytes, in: context)
    }
}

extension Optional: _IndexableValue where Wrapped: _IndexableValue & _OptionalPersistable {}
