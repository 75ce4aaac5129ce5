/// A map from String keys to values or optional links, stored in its owner's row (Realm's `Map`).
///
/// ```swift
/// final class Contact: Object {
///     @Persisted var phones: Map<String, String>
///     @Persisted var pets: Map<String, Dog?>
/// }
/// try store.write {
///     contact.phones["home"] = "555-0100"
///     contact.phones["work"] = nil                  // removes the key
///     contact.pets["first"] = rex                   // an unmanaged Dog is added to the Store
/// }
/// for (key, value) in contact.phones { print(key, value) }   // in key order (UTF-8 bytes)
/// ```
/// Keys follow Realm's rule: no `.`, no leading `$` (and at most 511 bytes). An unmanaged map is a
/// plain dictionary; a managed one is live: it reads its owner's row on every access, and every
/// change rewrites that row (so changes need a write transaction). A link whose target is deleted
/// keeps its key, with nil.
///
/// - Warning: A managed map is confined to its Store's thread; changing it outside a write
///   transaction traps, as does setting an invalid key through the subscript (`setValue(_:forKey:)`
///   throws instead).
public final class Map<Key: _MapKey, Value: _MapValue>: Sequence {
    var backing: CollectionBacking<[String: Value]>

    /// An empty, unmanaged map.
    public init() {
        backing = .unmanaged([:])
    }

    /// An unmanaged map of these entries (the last value of a repeated key wins).
    public init(_ entries: [Key: Value]) {
        backing = .unmanaged(Dictionary(entries.map { ($0.key._strataMapKey, $0.value) }) { $1 })
    }

    init(owner: Object, column: Int) {
        backing = .managed(owner: owner, column: column)
    }

    /// Whether the map belongs to a managed object.
    public var isManaged: Bool { backing.isManaged }

    /// Whether the map's owner was deleted (or its Store invalidated): a managed map can no longer
    /// be read.
    public var isInvalidated: Bool { backing.isInvalidated }

    /// The entries in key order (for a managed map, read from the owner's row).
    var entries: [(key: String, value: Value)] {
        backing.read(
            unmanaged: { dictionary in
                MapFormat.sortedKeys(Array(dictionary.keys)).map { key in (key, dictionary[key]!) }
            },
            managed: { (bytes, context) throws(StoreError) in try Self.decode(bytes, in: context) })
    }

    // MARK: Reading

    /// The number of entries.
    public var count: Int { entries.count }

    /// Whether the map has no entries.
    public var isEmpty: Bool { count == 0 }

    /// The keys, in order (UTF-8 bytes).
    public var keys: [Key] { entries.map { Key(_strataMapKey: $0.key) } }

    /// The values, in the order of their keys.
    public var values: [Value] { entries.map(\.value) }

    /// The value under `key`, or nil when the key is absent. Setting a value stores it (a new key
    /// is added); setting nil removes the key. For optional values, `.some(nil)` stores nil.
    public subscript(key: Key) -> Value? {
        get { value(forKey: key._strataMapKey) }
        set {
            if let problem = MapFormat.problem(withKey: key._strataMapKey) {
                preconditionFailure("Strata: \(problem) (setValue(_:forKey:) throws instead)")
            }
            modify { $0[key._strataMapKey] = newValue }
        }
    }

    /// Realm's spelling of the subscript's getter.
    public func object(forKey key: Key) -> Value? {
        self[key]
    }

    /// Whether the map has an entry for `key`.
    public func contains(key: Key) -> Bool {
        value(forKey: key._strataMapKey) != nil
    }

    private func value(forKey key: String) -> Value? {
        backing.read(
            unmanaged: { $0[key] },
            managed: { (bytes, context) throws(StoreError) in
                guard let bytes else { throw .corrupted("a Map column is null") }
                let found: UnsafeRawBufferPointer??
                do {
                    var key = key
                    found = try key.withUTF8 { (utf8) throws(RowDamage) in
                        try MapFormat.value(forKey: UnsafeRawBufferPointer(utf8), in: bytes)
                    }
                } catch {
                    throw .corrupted("Map<String, \(Value.self)>: \(error)")
                }
                guard let found else { return nil }
                return try Value._strataDecodeMapValue(found, in: context)
            })
    }

    /// The entries in key order, as `(key, value)` pairs (Realm's `asKeyValueSequence()`).
    public func asKeyValueSequence() -> [(key: Key, value: Value)] {
        entries.map { (Key(_strataMapKey: $0.key), $0.value) }
    }

    /// Iterates over the entries the map held when the iteration began, in key order.
    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> {
        asKeyValueSequence().makeIterator()
    }

    // MARK: Changing

    /// Stores `value` under `key`.
    ///
    /// - Throws: `.invalidArgument` for a key Realm's rule refuses (a `.`, a leading `$`, more than
    ///   511 bytes); nothing is changed.
    /// - Warning: Traps outside a write transaction when the map is managed.
    public func setValue(_ value: Value, forKey key: Key) throws(StoreError) {
        if let problem = MapFormat.problem(withKey: key._strataMapKey) { throw .invalidArgument(problem) }
        modify { $0[key._strataMapKey] = value }
    }

    /// Stores `value` under `key` and returns the value it replaced (nil when the key was new).
    @discardableResult
    public func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let old = self[key]
        self[key] = value
        return old
    }

    /// Removes the entry for `key`, if any.
    public func removeObject(for key: Key) {
        modify { $0[key._strataMapKey] = nil }
    }

    /// Removes every entry (linked objects stay in the Store).
    public func removeAll() {
        modify { $0.removeAll() }
    }

    /// Adds the entries of `other` (one rewrite of a managed map's row); for a key in both,
    /// `combine` chooses the value.
    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        try modify { dictionary in
            for (key, value) in other {
                let name = key._strataMapKey
                if let problem = MapFormat.problem(withKey: name) { preconditionFailure("Strata: \(problem)") }
                dictionary[name] = try dictionary[name].map { try combine($0, value) } ?? value
            }
        }
    }

    // MARK: Encoding

    static func encode(_ entries: [(key: String, value: Value)], into row: inout _RowEncoder) throws(StoreError) {
        row.writeListHeader(count: entries.count * 2)
        for entry in entries {
            try encode(key: entry.key, value: entry.value, into: &row)
        }
        row.endColumn()
    }

    /// Encodes an unmanaged map's entries in stored order without building generic pairs: only the
    /// keys are sorted (as a `[String]`, which the compiler specialises).
    static func encode(_ dictionary: [String: Value], into row: inout _RowEncoder) throws(StoreError) {
        let keys = MapFormat.sortedKeys(Array(dictionary.keys))
        row.writeListHeader(count: keys.count * 2)
        for key in keys {
            try encode(key: key, value: dictionary[key]!, into: &row)
        }
        row.endColumn()
    }

    private static func encode(key: String, value: Value, into row: inout _RowEncoder) throws(StoreError) {
        let start = row.beginElement()
        row.write(key)
        row.endElement(start)
        try value._strataEncodeMapValue(into: &row)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError)
        -> [(key: String, value: Value)]
    {
        guard let bytes else { throw .corrupted("a Map column is null") }
        let stored: [MapFormat.Entry]
        do {
            stored = try MapFormat.entries(bytes)
        } catch {
            throw .corrupted("Map<String, \(Value.self)>: \(error)")
        }
        var entries: [(key: String, value: Value)] = []
        entries.reserveCapacity(stored.count)
        for entry in stored {
            entries.append(
                (String(decoding: entry.key, as: UTF8.self), try Value._strataDecodeMapValue(entry.value, in: context)))
        }
        return entries
    }
}

extension Map: _Persistable {
    public static var _strataSchemaType: _SchemaType {
        let value = Value._strataMapValueType
        return _SchemaType(.map(value.type), linkedType: value.linkedType)
    }

    public static func _strataZero() -> Map { Map() }

    /// A new, empty map, which the key path must return unchanged.
    public static func _strataProbe(_ round: Int) -> Map { KeyPathRecordings.issue(Map()) }

    public static func _strataIsProbe(_ value: Map, _ round: Int) -> Bool { KeyPathRecordings.wasIssued(value) }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        switch backing {
        case .unmanaged(let dictionary): try Self.encode(dictionary, into: &row)
        case .managed: try Self.encode(entries, into: &row)
        }
    }

    /// A managed map bound to its owner's column, or (validating bytes alone) an unmanaged copy.
    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> Map {
        if let owner = context.owner { return Map(owner: owner, column: context.column) }
        return Map(Dictionary(try decode(bytes, in: context).map { (Key(_strataMapKey: $0.key), $0.value) }) { $1 })
    }
}

extension Map: AnyList, AnyMapOfLinks, BackedCollection {
    var linkedObjects: [Object] {
        entries.flatMap { Object._linkedObjects(in: $0.value) }
    }

    static var emptyContents: [String: Value] { [:] }

    static func decodeContents(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError)
        -> [String: Value]
    {
        Dictionary(try decode(bytes, in: context).map { ($0.key, $0.value) }) { $1 }
    }

    static func encodeContents(_ contents: [String: Value], into row: inout _RowEncoder) throws(StoreError) {
        try encode(contents, into: &row)
    }

    static func linkedObjects(in contents: [String: Value]) -> [Object] {
        contents.values.flatMap { Object._linkedObjects(in: $0) }
    }

    var linkedObjectsByKey: [(key: String, object: Object)] {
        entries.compactMap { entry in (entry.value as? Object).map { (entry.key, $0) } }
    }
}

@available(*, unavailable, message: "a Map is confined to its Store's thread")
extension Map: Sendable {}

extension Map {
    /// Realm's newer spelling of `removeObject(for:)`.
    public func removeValue(for key: Key) {
        removeObject(for: key)
    }
}

extension Map where Value: _QueryComparable {
    /// The smallest value (nil for an empty map).
    public func min() -> Value? {
        values.min { Value._queryCompare($0, $1) < 0 }
    }

    /// The largest value (nil for an empty map).
    public func max() -> Value? {
        values.max { Value._queryCompare($0, $1) < 0 }
    }
}

extension Map where Value: _QueryNumeric {
    /// The sum of the values (0 for an empty map).
    public func sum() -> Value {
        values.reduce(.zero, +)
    }

    /// The mean of the values, or nil for an empty map.
    public func average() -> Double? {
        let values = values
        guard !values.isEmpty else { return nil }
        return values.reduce(0.0) { $0 + $1._queryDouble } / Double(values.count)
    }
}
