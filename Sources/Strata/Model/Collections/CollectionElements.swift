import Foundation

/// Implementation detail: a type a `Map` can hold as its values: Strata's value types and enums,
/// their optionals, and optional links (`Map<String, Dog?>`: a deleted target leaves its key with nil).
public protocol _MapValue {
    /// How the schema records a value of this type.
    static var _strataMapValueType: _SchemaType { get }
    /// Appends the value as the map's next value element (null for nil).
    func _strataEncodeMapValue(into row: inout _RowEncoder) throws(StoreError)
    /// Decodes a value element (`nil` bytes: null).
    ///
    /// - Throws: `.corrupted` for a null where the type has none, or bytes that are not a value of it.
    static func _strataDecodeMapValue(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext)
        throws(StoreError) -> Self
}

/// Implementation detail: a type a `MutableSet` can hold: Strata's value types and enums, their
/// optionals, and objects (links).
public protocol _SetElement: _ListElement {
    /// Whether two elements are the same member (values: equal; objects: the same stored object).
    static func _strataSameElement(_ lhs: Self, _ rhs: Self) -> Bool
}

/// Implementation detail: the key type of a `Map` (String, as in Realm).
public protocol _MapKey: Hashable {
    var _strataMapKey: String { get }
    init(_strataMapKey: String)
}

extension String: _MapKey {
    public var _strataMapKey: String { self }
    public init(_strataMapKey: String) { self = _strataMapKey }
}

extension _PersistableValue {
    public static var _strataMapValueType: _SchemaType { _strataValueType }

    public func _strataEncodeMapValue(into row: inout _RowEncoder) throws(StoreError) {
        try _strataEncodeElement(into: &row)
    }

    public static func _strataDecodeMapValue(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext)
        throws(StoreError) -> Self
    {
        guard let bytes else { throw .corrupted("a null value in a Map of \(Self.self)") }
        guard let value = try _strataDecodeValue(bytes, in: context) else {
            throw .corrupted("an undecodable value in a Map of \(Self.self)")
        }
        return value
    }
}

extension _PersistableValue {
    /// The same member when a stored set would hold them once: their order keys are equal (so
    /// `1.5` and `1.50` are, and `-0.0` and `0.0`), for unmanaged and managed sets alike.
    public static func _strataSameElement(_ lhs: Self, _ rhs: Self) -> Bool {
        guard let left = SetOrder.key(of: lhs), let right = SetOrder.key(of: rhs) else { return false }
        return left == right
    }
}

extension SetOrder {
    /// The order key of a value, encoded as a set element (nil if it cannot be encoded).
    static func key<V: _PersistableValue>(of value: V) -> [UInt8]? {
        var encoder = _RowEncoder()
        encoder.beginRow(columns: 1)
        guard (try? value._strataEncodeColumn(into: &encoder)) != nil else { return nil }
        return encoder.withRow { bytes in
            guard let column = try? RowView(encoded: bytes, columns: 1).column(0) else { return nil }
            return try? SetOrder.key(column, type: V._strataValueType.type)
        }
    }
}

extension String {
    /// Strings are the same member when their UTF-8 bytes are (as queries and stored sets compare).
    public static func _strataSameElement(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }
}

extension Optional: _MapValue where Wrapped: _OptionalPersistable {
    public static var _strataMapValueType: _SchemaType { _SchemaType._optional(of: Wrapped._strataValueType) }

    public func _strataEncodeMapValue(into row: inout _RowEncoder) throws(StoreError) {
        guard let value = self else { return row.writeNullElement() }
        let start = row.beginElement()
        try value._strataEncodeValue(into: &row)
        row.endElement(start)
    }

    public static func _strataDecodeMapValue(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext)
        throws(StoreError) -> Wrapped?
    {
        guard let bytes else { return nil }
        return try Wrapped._strataDecodeOptional(bytes, in: context)
    }
}

extension Optional: _SetElement where Wrapped: _PersistableValue {
    public static func _strataSameElement(_ lhs: Wrapped?, _ rhs: Wrapped?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let a?, let b?): Wrapped._strataSameElement(a, b)
        default: false
        }
    }
}

extension Object: _SetElement {
    /// The same stored object, or the same unmanaged instance.
    public static func _strataSameElement(_ lhs: Object, _ rhs: Object) -> Bool { lhs == rhs }
}

extension _SchemaType {
    /// The schema type of `Optional<T>` for `T`'s: a link stays a link (links are optional by nature).
    static func _optional(of wrapped: _SchemaType) -> _SchemaType {
        if case .link = wrapped.type { return wrapped }
        return _SchemaType(.optional(wrapped.type), linkedType: wrapped.linkedType)
    }
}
