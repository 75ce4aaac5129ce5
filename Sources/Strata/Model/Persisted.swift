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
    @usableFromInline
    enum Storage {
        case unmanaged(Value)
        /// The property's column in the rows of the managing Store's file.
        case managed(column: Int)
    }

    @usableFromInline var storage: Storage
    @usableFromInline let attributes: PropertyAttributes

    /// A property whose initial value is the type's zero: 0, "", false, nil, an empty list…
    public init() {
        self.init(storage: .unmanaged(Value._strataZero()), attributes: [])
    }

    /// A property with a declared initial value.
    public init(wrappedValue: Value) {
        self.init(storage: .unmanaged(wrappedValue), attributes: [])
    }

    @usableFromInline
    init(storage: Storage, attributes: PropertyAttributes) {
        self.storage = storage
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
            switch object[keyPath: storageKeyPath].storage {
            case .managed(let column): return object._read(column, as: Value.self)
            case .unmanaged(let value): return value
            }
        }
        set {
            switch object[keyPath: storageKeyPath].storage {
            case .managed(let column): object._write(newValue, column: column)
            case .unmanaged: object[keyPath: storageKeyPath].storage = .unmanaged(newValue)
            }
        }
    }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property (integers, String or UUID): unique, and the order of unsorted Results.
    public init(primaryKey: Bool) {
        self.init(storage: .unmanaged(Value._strataZero()), attributes: primaryKey ? .primaryKey : [])
    }

    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(storage: .unmanaged(wrappedValue), attributes: primaryKey ? .primaryKey : [])
    }
}

extension Persisted where Value: _IndexableValue {
    /// An indexed property (integers, String, UUID, Bool, Date, and their optionals): equality and
    /// range queries on it use the index instead of scanning.
    public init(indexed: Bool) {
        self.init(storage: .unmanaged(Value._strataZero()), attributes: indexed ? .indexed : [])
    }

    public init(wrappedValue: Value, indexed: Bool) {
        self.init(storage: .unmanaged(wrappedValue), attributes: indexed ? .indexed : [])
    }
}

/// Operations on one `@Persisted` property of an object, found by its byte offset in the instance
/// (reflection gives the offsets once per type; `Mirror` would cost microseconds per object).
protocol PersistedPropertyKind {
    static var schemaType: _SchemaType { get }
    static func attributes(at address: UnsafeRawPointer) -> PropertyAttributes
    /// Appends the unmanaged value as the row's next column.
    static func encodeUnmanagedValue(at address: UnsafeRawPointer, into row: inout _RowEncoder) throws(StoreError)
    /// Switches the property to reading and writing `column` of its Store.
    static func bind(at address: UnsafeMutableRawPointer, column: Int)
    /// The value, for descriptions (unmanaged only; managed values are decoded by the caller).
    static func unmanagedValue(at address: UnsafeRawPointer) -> Any?
    static func decodeForDescription(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError) -> Any
}

extension Persisted: PersistedPropertyKind {
    static var schemaType: _SchemaType { Value._strataSchemaType }

    static func attributes(at address: UnsafeRawPointer) -> PropertyAttributes {
        address.assumingMemoryBound(to: Persisted<Value>.self).pointee.attributes
    }

    static func encodeUnmanagedValue(at address: UnsafeRawPointer, into row: inout _RowEncoder) throws(StoreError) {
        switch address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage {
        case .unmanaged(let value): try value._strataEncodeColumn(into: &row)
        case .managed: preconditionFailure("Strata: encoding a managed property as unmanaged")
        }
    }

    static func bind(at address: UnsafeMutableRawPointer, column: Int) {
        address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .managed(column: column)
    }

    static func unmanagedValue(at address: UnsafeRawPointer) -> Any? {
        switch address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage {
        case .unmanaged(let value): value
        case .managed: nil
        }
    }

    static func decodeForDescription(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Any {
        try Value._strataDecodeColumn(bytes, in: context)
    }
}
