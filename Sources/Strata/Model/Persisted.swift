/// Declares a stored property of an `Object` subclass.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted(indexed: true) var name: String
///     @Persisted var age: Int = 18
///     @Persisted var email: String?
///     @Persisted var dogs: List<Dog>
/// }
/// ```
/// While the object is unmanaged, the value lives in the wrapper like any Swift property. Once a Store
/// manages the object, every read decodes the column straight from the Store's current snapshot and
/// every write changes the row (inside a write transaction).
///
/// - Warning: Reading a managed object's property from another thread than its Store's, or after the
///   object was deleted, traps (as in Realm); the throwing Store APIs report the same as `StoreError`.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// The property's column in the managing Store's rows; -1 while the object is unmanaged. Plain
    /// fields (not an enum) so that a Store can bind an object's properties by storing an integer at
    /// a known offset, without generic code.
    @usableFromInline var column: Int
    /// The value while the object is unmanaged (afterwards, the row holds it).
    @usableFromInline var unmanagedValue: Value
    @usableFromInline let attributes: PropertyAttributes

    /// A property whose initial value is the type's zero: 0, "", false, nil, an empty list…
    @inlinable
    public init() {
        self.init(value: Value._strataZero(), attributes: [])
    }

    /// A property with a declared initial value.
    @inlinable
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, attributes: [])
    }

    @inlinable
    init(value: Value, attributes: PropertyAttributes) {
        column = -1
        unmanagedValue = value
        self.attributes = attributes
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: Value {
        get { fatalError("Strata: @Persisted outside of an Object subclass") }
        // swift-format-ignore
        set { fatalError("Strata: @Persisted outside of an Object subclass") }
    }

    @inlinable
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            let storage = object[keyPath: storageKeyPath]
            if storage.column >= 0 { return object._read(storage.column, as: Value.self) }
            return storage.unmanagedValue
        }
        set {
            object[keyPath: storageKeyPath].set(newValue, on: object)  // one key-path projection
        }
    }

    @inlinable
    mutating func set(_ value: Value, on object: Object) {
        if column >= 0 {
            object._write(value, column: column)  // touches the row, never this wrapper
        } else {
            unmanagedValue = value
        }
    }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property (integers, String or UUID): unique, and the order of unsorted Results.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(value: Value._strataZero(), attributes: primaryKey ? .primaryKey : [])
    }

    /// A primary-key property with an initial value: `@Persisted(primaryKey: true) var id = UUID()`.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(value: wrappedValue, attributes: primaryKey ? .primaryKey : [])
    }
}

extension Persisted where Value: _IndexableValue {
    /// An indexed property (integers, String, UUID, Bool, Date, and their optionals): equality and
    /// range queries on it use the index instead of scanning.
    @inlinable
    public init(indexed: Bool) {
        self.init(value: Value._strataZero(), attributes: indexed ? .indexed : [])
    }

    /// An indexed property with an initial value: `@Persisted(indexed: true) var score = 0`.
    @inlinable
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(value: wrappedValue, attributes: indexed ? .indexed : [])
    }
}

/// What schema discovery learns about one `@Persisted` property type. Reading and binding properties
/// then needs no generic code: the column is an `Int` at `columnOffset`, and the value is encoded by
/// its own type's `_strataEncodeColumn(at:into:)`.
protocol PersistedPropertyKind {
    static var schemaType: _SchemaType { get }
    static var valueType: any _Persistable.Type { get }
    /// Offsets of the fields within the wrapper.
    static var columnOffset: Int { get }
    static var valueOffset: Int { get }
    static func attributes(at address: UnsafeRawPointer) -> PropertyAttributes
    /// The unmanaged value, for descriptions and walking links (not a hot path).
    static func unmanagedValue(at address: UnsafeRawPointer) -> Any
    static func decodeForDescription(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError) -> Any
    /// Replaces the unmanaged value with the type's zero (once managed, the row holds the value).
    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer)
}

extension Persisted: PersistedPropertyKind {
    static var schemaType: _SchemaType { Value._strataSchemaType }
    static var valueType: any _Persistable.Type { Value.self }
    // Stored properties of a struct always have an offset.
    static var columnOffset: Int { MemoryLayout<Self>.offset(of: \Self.column) ?? 0 }
    static var valueOffset: Int { MemoryLayout<Self>.offset(of: \Self.unmanagedValue) ?? 0 }

    static func attributes(at address: UnsafeRawPointer) -> PropertyAttributes {
        address.assumingMemoryBound(to: Self.self).pointee.attributes
    }

    static func unmanagedValue(at address: UnsafeRawPointer) -> Any {
        address.assumingMemoryBound(to: Self.self).pointee.unmanagedValue
    }

    static func decodeForDescription(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Any {
        try Value._strataDecodeColumn(bytes, in: context)
    }

    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Self.self).pointee.unmanagedValue = Value._strataZero()
    }
}
