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
    /// The value while the object is unmanaged (afterwards, the row holds it): unset until it is first
    /// needed, so that making an accessor for a row evaluates no initial value, allocates nothing, and
    /// leaves nothing to release.
    @usableFromInline var unmanaged: UnmanagedValue<Value>
    @usableFromInline let attributes: PropertyAttributes

    /// A property whose initial value is the type's zero: 0, "", false, nil, an empty list…
    @inlinable
    public init() {
        column = -1
        unmanaged = .unset
        attributes = []
    }

    /// A property with a declared initial value, evaluated once per unmanaged object when first read
    /// (or when the object is added), never for objects read from a Store.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value) {
        self.init(initial: wrappedValue, attributes: [])
    }

    @inlinable
    init(initial: (() -> Value)?, attributes: PropertyAttributes) {
        column = -1
        unmanaged = initial.map(UnmanagedValue.initial) ?? .unset
        self.attributes = attributes
    }

    /// A property holding `value` from the start (what `LinkingObjects` declarations use).
    @inlinable
    init(value: Value, attributes: PropertyAttributes) {
        column = -1
        unmanaged = .value(value)
        self.attributes = attributes
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: Value {
        get { fatalError("Strata: @Persisted outside of an Object subclass") }
        // swift-format-ignore
        set { fatalError("Strata: @Persisted outside of an Object subclass") }
    }

    // Every access to the wrapper below is a load or a store with no call inside it, and the accessors
    // are always inlined into the property's own (where the storage key path is a literal the compiler
    // folds): the compiler then proves that no access to the property's storage overlaps another and
    // drops the dynamic exclusivity checks it would otherwise make on every read and write in the
    // app's module (a thread-local lookup each). A call inside an access (the row's read or write, an
    // initial value's closure), or an accessor left out of line, keeps them.
    @inlinable
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        @inline(__always) get {
            // Only the column is read on the managed path: copying the whole wrapper would retain its
            // unmanaged value and initial-value closure on every read.
            var column = object[keyPath: storageKeyPath].column
            if column >= 0 { return object._read(column, as: Value.self) }
            if column == -1, object._mayBeObservedUnmanaged {
                object._lookUpObservation()
                column = object[keyPath: storageKeyPath].column
            }
            if column < -1 { object._observedUnmanaged(property: -2 - column) }
            // The initial value is evaluated outside the access (its closure is opaque to the compiler).
            let current = object[keyPath: storageKeyPath].unmanaged
            let value = current.evaluated()
            if case .value = current { return value }
            object[keyPath: storageKeyPath].unmanaged = .value(value)
            return value
        }
        @inline(__always) set {
            let column = object[keyPath: storageKeyPath].column
            if column >= 0 {
                object._write(newValue, column: column)  // touches the row, never the wrapper
                return
            }
            // Unretained: `object` used after the store would be retained around it.
            let observed = Unmanaged<Object>.passUnretained(object)
            object[keyPath: storageKeyPath].unmanaged = .value(newValue)
            // An unmanaged wrapper marked with its property's index (its object's type is observable,
            // and a read looked it up: `TypeObservation`): Observation is told once the store has
            // ended (an observer reading the property then does not overlap it).
            if _slowPath(column < -1) { Object._observedChange(observed, property: -2 - column) }
        }
    }

    /// The unmanaged value, evaluating the declared initial value (or the type's zero) the first time:
    /// later reads, and `add`, see that same value.
    mutating func settledUnmanagedValue() -> Value {
        let value = unmanaged.evaluated()
        if case .value = unmanaged { return value }
        unmanaged = .value(value)
        return value
    }
}

/// The value of an unmanaged object's `@Persisted` property: not needed yet (`unset`: the type's zero;
/// `initial`: the declared initial value, still to evaluate), or set.
@usableFromInline
enum UnmanagedValue<Value> {
    case unset
    case initial(() -> Value)
    case value(Value)
}

extension UnmanagedValue where Value: _Persistable {
    /// The value set, else the declared initial value (or the type's zero) evaluated now.
    @inlinable
    func evaluated() -> Value {
        switch self {
        case .value(let value): value
        case .initial(let initial): initial()
        case .unset: Value._strataZero()
        }
    }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property (integers, String or UUID): unique, and the order of unsorted Results.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(initial: nil, attributes: primaryKey ? .primaryKey : [])
    }

    /// A primary-key property with an initial value: `@Persisted(primaryKey: true) var id = UUID()`.
    /// The value is evaluated once per unmanaged object, when first read or added.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, primaryKey: Bool) {
        self.init(initial: wrappedValue, attributes: primaryKey ? .primaryKey : [])
    }
}

extension Persisted where Value: _IndexableValue {
    /// An indexed property (integers, String, UUID, Bool, Date, and their optionals): equality and
    /// range queries on it use the index instead of scanning.
    @inlinable
    public init(indexed: Bool) {
        self.init(initial: nil, attributes: indexed ? .indexed : [])
    }

    /// An indexed property with an initial value: `@Persisted(indexed: true) var score = 0`.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, indexed: Bool) {
        self.init(initial: wrappedValue, attributes: indexed ? .indexed : [])
    }

    /// A unique property (what Realm never had): indexed, and no two objects of the type hold the
    /// same value; nil is not a value (any number of objects may hold nil).
    ///
    /// ```swift
    /// @Persisted(unique: true) var email: String
    /// ```
    /// Adding an object whose value another object holds throws `.alreadyExists` naming the property
    /// and the value; nothing of the add is written.
    ///
    /// - Warning: Setting a managed object's unique property to a value another object holds traps
    ///   (a setter cannot throw), writing nothing: check first, or add the object with the value.
    @inlinable
    public init(unique: Bool) {
        self.init(initial: nil, attributes: unique ? [.indexed, .unique] : [])
    }

    /// A unique property with an initial value.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, unique: Bool) {
        self.init(initial: wrappedValue, attributes: unique ? [.indexed, .unique] : [])
    }
}

/// Implementation detail: a link or a collection of links (`Dog?`, `List<Dog>`, `MutableSet<Dog>`,
/// `Map<String, Dog?>`), which `@Persisted(owning:)` accepts.
public protocol _OwnableLink: _Persistable {}

/// Implementation detail: an optional link (`Dog?`), a Map value `@Persisted(owning:)` accepts.
public protocol _OptionalLink {}

extension Optional: _OwnableLink, _OptionalLink where Wrapped: Object {}
extension List: _OwnableLink where Element: Object {}
extension MutableSet: _OwnableLink where Element: Object {}
extension Map: _OwnableLink where Value: _OptionalLink {}

extension Persisted where Value: _OwnableLink {
    /// A link (or List, MutableSet or Map of links) that owns its targets: deleting the object
    /// deletes each target that no other owning link holds, recursively (what Realm never had,
    /// realm-swift #1186). Removing a target from the link does not delete it: `verify()` reports
    /// objects of an owned type that no owning link holds.
    ///
    /// ```swift
    /// @Persisted(owning: true) var lines: List<InvoiceLine>
    /// ```
    @inlinable
    public init(owning: Bool) {
        self.init(initial: nil, attributes: owning ? .owning : [])
    }

    /// An owning link with an initial value.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, owning: Bool) {
        self.init(initial: wrappedValue, attributes: owning ? .owning : [])
    }
}

/// What schema discovery learns about one `@Persisted` property type. Reading and binding properties
/// then needs no generic code: the column is an `Int` at `columnOffset` within the wrapper, and the
/// wrapper's own type encodes its unmanaged value.
protocol PersistedPropertyKind {
    static var schemaType: _SchemaType { get }
    static var valueType: any _Persistable.Type { get }
    /// Offsets of the column and of the unmanaged value (an `UnmanagedValue<Value>`) within the wrapper.
    static var columnOffset: Int { get }
    static var valueOffset: Int { get }
    static func attributes(at address: UnsafeRawPointer) -> PropertyAttributes
    /// Evaluates the declared initial value (or the type's zero) if the unmanaged value is not set.
    static func settleUnmanagedValue(at address: UnsafeMutableRawPointer)
    /// The unmanaged value (settling its initial value first), for descriptions and walking links.
    static func unmanagedValue(at address: UnsafeMutableRawPointer) -> Any
    static func decodeForDescription(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError)
        -> Any
    /// Drops the unmanaged value (once managed, the row holds the value).
    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer)
    /// Whether nothing but the wrapper holds its unmanaged value when that is a bound `LinkingObjects`
    /// (then re-pointing the accessor may rebind it). True for any other value.
    static func isUnmanagedValueUniquelyReferenced(at address: UnsafeMutableRawPointer) -> Bool
    /// Whether a key path's result (the property's value, maybe made optional by a chain of links)
    /// is the probe the key-path recorder handed out for this property in `round`.
    static func isProbe(_ result: Any, round: Int) -> Bool
    /// `value` as the property's value type, or nil when it is not one (`create(_:value:)`).
    static func cast(_ value: Any) -> Any?
    /// Sets the unmanaged value to `value`, which `cast` gave.
    static func setUnmanagedValue(_ value: Any, at address: UnsafeMutableRawPointer)
    /// Appends `value`, which `cast` gave, as the row's next column.
    static func encodeColumn(_ value: Any, into row: inout _RowEncoder) throws(StoreError)
    /// The property's value holding `objects`, for a link or a List or MutableSet of links (nil for
    /// another type, or an object of another type).
    static func linking(_ objects: [Object?]) -> Any?
    /// The property's value holding `entries`, for a Map of links (nil as `linking(_:)`).
    static func linking(entries: [(key: String, object: Object?)]) -> Any?
}

extension Persisted: PersistedPropertyKind {
    static var schemaType: _SchemaType { Value._strataSchemaType }
    static var valueType: any _Persistable.Type { Value.self }
    // Stored properties of a struct always have an offset.
    static var columnOffset: Int { MemoryLayout<Self>.offset(of: \Self.column) ?? 0 }
    static var valueOffset: Int { MemoryLayout<Self>.offset(of: \Self.unmanaged) ?? 0 }

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

    static func isUnmanagedValueUniquelyReferenced(at address: UnsafeMutableRawPointer) -> Bool {
        guard let linking = Value.self as? any AnyLinkingObjects.Type else { return true }
        return linking.isUniquelyReferenced(unmanagedValueAt: address + valueOffset)
    }

    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Self.self).pointee.unmanaged = .unset
    }

    static func cast(_ value: Any) -> Any? { value as? Value }

    static func setUnmanagedValue(_ value: Any, at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Self.self).pointee.unmanaged = .value(value as! Value)
    }

    static func encodeColumn(_ value: Any, into row: inout _RowEncoder) throws(StoreError) {
        try (value as! Value)._strataEncodeColumn(into: &row)
    }

    static func linking(_ objects: [Object?]) -> Any? {
        (Value.self as? any LinkHolder.Type)?.holding(objects)
    }

    static func linking(entries: [(key: String, object: Object?)]) -> Any? {
        (Value.self as? any LinkHolder.Type)?.holding(entries: entries)
    }
}
