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
    /// The value while the object is unmanaged (afterwards, the row holds it); nil until it is first
    /// needed, so that making an accessor for a row evaluates no initial value and allocates nothing.
    @usableFromInline var unmanagedValue: Value?
    /// The declared initial value, evaluated when the unmanaged value is first needed (nil: the type's
    /// zero). A closure without captures, so storing it allocates nothing.
    @usableFromInline var initialValue: (() -> Value)?
    @usableFromInline let attributes: PropertyAttributes

    /// A property whose initial value is the type's zero: 0, "", false, nil, an empty list…
    @inlinable
    public init() {
        self.init(initialValue: nil, attributes: [])
    }

    /// A property with a declared initial value, evaluated once per unmanaged object when first read
    /// (or when the object is added), never for objects read from a Store.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value) {
        self.init(initialValue: wrappedValue, attributes: [])
    }

    @inlinable
    init(initialValue: (() -> Value)?, attributes: PropertyAttributes) {
        column = -1
        unmanagedValue = nil
        self.initialValue = initialValue
        self.attributes = attributes
    }

    /// A property holding `value` from the start (what `LinkingObjects` declarations use).
    @inlinable
    init(value: Value, attributes: PropertyAttributes) {
        column = -1
        unmanagedValue = value
        initialValue = nil
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
            if let value = storage.unmanagedValue { return value }
            return object[keyPath: storageKeyPath].settledUnmanagedValue()
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
            initialValue = nil
        }
    }

    /// The unmanaged value, evaluating the declared initial value (or the type's zero) the first time:
    /// later reads, and `add`, see that same value.
    @usableFromInline
    mutating func settledUnmanagedValue() -> Value {
        if let value = unmanagedValue { return value }
        let value = initialValue?() ?? Value._strataZero()
        unmanagedValue = value
        initialValue = nil
        return value
    }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property (integers, String or UUID): unique, and the order of unsorted Results.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(initialValue: nil, attributes: primaryKey ? .primaryKey : [])
    }

    /// A primary-key property with an initial value: `@Persisted(primaryKey: true) var id = UUID()`.
    /// The value is evaluated once per unmanaged object, when first read or added.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, primaryKey: Bool) {
        self.init(initialValue: wrappedValue, attributes: primaryKey ? .primaryKey : [])
    }
}

extension Persisted where Value: _IndexableValue {
    /// An indexed property (integers, String, UUID, Bool, Date, and their optionals): equality and
    /// range queries on it use the index instead of scanning.
    @inlinable
    public init(indexed: Bool) {
        self.init(initialValue: nil, attributes: indexed ? .indexed : [])
    }

    /// An indexed property with an initial value: `@Persisted(indexed: true) var score = 0`.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, indexed: Bool) {
        self.init(initialValue: wrappedValue, attributes: indexed ? .indexed : [])
    }
}

/// What schema discovery learns about one `@Persisted` property type. Reading and binding properties
/// then needs no generic code: the column is an `Int` at `columnOffset` within the wrapper, and the
/// wrapper's own type encodes its unmanaged value.
protocol PersistedPropertyKind {
    static var schemaType: _SchemaType { get }
    static var valueType: any _Persistable.Type { get }
    /// Offsets of the column and of the unmanaged value (a `Value?`) within the wrapper.
    static var columnOffset: Int { get }
    static var valueOffset: Int { get }
    static func attributes(at address: UnsafeRawPointer) -> PropertyAttributes
    /// Evaluates the declared initial value (or the type's zero) if the unmanaged value is not set.
    static func settleUnmanagedValue(at address: UnsafeMutableRawPointer)
    /// The unmanaged value (settling its initial value first), for descriptions and walking links.
    static func unmanagedValue(at address: UnsafeMutableRawPointer) -> Any
    static func decodeForDescription(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError) -> Any
    /// Drops the unmanaged value (once managed, the row holds the value).
    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer)
    /// Whether a key path's result (the property's value, maybe made optional by a chain of links)
    /// is the probe the key-path recorder handed out for this property in `round`.
    static func isProbe(_ result: Any, round: Int) -> Bool
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

    static func settleUnmanagedValue(at address: UnsafeMutableRawPointer) {
        _ = address.assumingMemoryBound(to: Self.self).pointee.settledUnmanagedValue()
    }

    static func unmanagedValue(at address: UnsafeMutableRawPointer) -> Any {
        address.assumingMemoryBound(to: Self.self).pointee.settledUnmanagedValue()
    }

    static func decodeForDescription(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Any {
        try Value._strataDecodeColumn(bytes, in: context)
    }

    static func isProbe(_ result: Any, round: Int) -> Bool {
        guard let value = result as? Value else { return false }
        return Value._strataIsProbe(value, round)
    }

    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer) {
        let wrapper = address.assumingMemoryBound(to: Self.self)
        wrapper.pointee.unmanagedValue = nil
        wrapper.pointee.initialValue = nil
    }
}
