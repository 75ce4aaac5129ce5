import Foundation

/// What `create(_:value:update:)` and `Object(value:)` read an object's properties from, as Realm
/// reads them: a dictionary by property name, an array in the order the properties are declared
/// (fewer values leave the rest unset), or another object's properties of the same names (a copy,
/// whether it is unmanaged, managed here, or managed by another Store).
enum ObjectValue {
    case dictionary([String: Any])
    case array([Any])
    /// An object, with its type's schema (the source's properties are found by name).
    case object(Object, ObjectSchema)

    /// - Throws: `.invalidArgument` for a value of another kind, or an array with more values than
    ///   the type has properties.
    init(_ value: Any, of schema: ObjectSchema) throws(StoreError) {
        switch PropertyValue.normalized(value) {
        case let dictionary as [String: Any]:
            self = .dictionary(dictionary)
        case let array as [Any]:
            guard array.count <= schema.properties.count else {
                throw .invalidArgument(
                    "\(schema.name) has \(schema.properties.count) properties; the array has \(array.count) values")
            }
            self = .array(array)
        case let object as Object:
            self = .object(object, try ObjectSchema.of(type(of: object)))
        case let other:
            throw .invalidArgument(
                "\(schema.name) is made from a [String: Any], an [Any] in property order or an object, not "
                    + "\(other.map { "\(type(of: $0))" } ?? "nil")")
        }
    }

    /// The value given for property `index` of `schema`: `.none` when none is given (the property
    /// keeps its declared value, or an existing object its stored one), `.some(nil)` for nil.
    ///
    /// - Throws: `.wrongThread`, `.invalidated` or `.deletedInAnotherThread` reading a managed object.
    func given(_ index: Int, of schema: ObjectSchema) throws(StoreError) -> Any?? {
        let name = schema.properties[index].name
        switch self {
        case .dictionary(let dictionary):
            guard let position = dictionary.index(forKey: name) else { return .none }
            return .some(PropertyValue.normalized(dictionary[position].value))
        case .array(let array):
            guard index < array.count else { return .none }
            return .some(PropertyValue.normalized(array[index]))
        case .object(let object, let source):
            guard let sourceIndex = source.properties.firstIndex(where: { $0.name == name }) else { return .none }
            return .some(PropertyValue.normalized(try Self.value(of: object, property: sourceIndex, schema: source)))
        }
    }

    /// A property of an object: its unmanaged value, or its managed one read from its row.
    private static func value(of object: Object, property index: Int, schema: ObjectSchema) throws(StoreError)
        -> Any
    {
        let accessor = schema.accessors[index]
        guard let context = object._store, let binding = object._binding else {
            return accessor.unmanagedValue(of: object)
        }
        guard context.isConfined else { throw .wrongThread }
        let column = binding.columnOfProperty[index]
        let row = try context.currentRow(of: object)
        let bytes: UnsafeRawBufferPointer?
        do {
            bytes = try row.column(column)
        } catch {
            throw .damaged(at: binding.location(of: object._key, column: column), error)
        }
        return try accessor.kind.decodeForDescription(bytes, in: _DecodeContext(owner: object, column: column))
    }
}

/// One property's given value made into the property's own type.
enum PropertyValue {
    /// `value` with Optional, `NSNull` and Strata's collections unwrapped: nil, a plain value, an
    /// array (a List's or MutableSet's elements), a `[String: Any]` (a Map's entries), or an object;
    /// the elements of arrays and dictionaries likewise.
    static func normalized(_ value: Any?) -> Any? {
        guard let value = DynamicValue.unwrap(value), !(value is NSNull) else { return nil }
        if let collection = value as? any GivenCollection { return normalized(collection.givenValue) }
        // Elements too: an NSNull in an array is a nil element.
        if let array = value as? [Any], !(value is [Float]) { return array.map { normalized($0) as Any } }
        if let dictionary = value as? [String: Any] { return dictionary.mapValues { normalized($0) as Any } }
        return value
    }

    /// `value` (normalized) as a value of the property at `index`, which holds no links.
    ///
    /// - Throws: `.invalidArgument` naming the property, for a value that is not one of its type
    ///   (integers convert between widths when they fit, numbers between Float and Double).
    static func converted(_ value: Any?, property index: Int, of schema: ObjectSchema) throws(StoreError) -> Any {
        let accessor = schema.accessors[index]
        let property = schema.properties[index]
        // A List, MutableSet or Map is a reference: it is copied, never shared with the source.
        if let value, !(value is [Any] || value is [String: Any]), let typed = accessor.kind.cast(value) {
            return typed
        }
        var row = _RowEncoder()
        row.beginRow(columns: 1)
        do {
            try DynamicValue.encodeColumn(value ?? property.type.emptyCollection, type: property.type, into: &row) {
                (target, _) throws(StoreError) in
                throw .invalidArgument("a link to \(target) here")
            }
            return try row.withRow { (bytes) throws(StoreError) -> Any in
                let column: UnsafeRawBufferPointer?
                do {
                    column = try RowView(encoded: bytes, columns: 1).column(0)
                } catch {
                    throw .invalidArgument("\(error)")
                }
                return try accessor.kind.decodeForDescription(column, in: _DecodeContext(owner: nil, column: 0))
            }
        } catch .invalidArgument(let reason) {
            throw .invalidArgument("\(schema.name).\(property.name): \(reason)")
        } catch .corrupted(let reason) {
            // A raw value no case of a PersistableEnum has, for one.
            throw .invalidArgument(
                "\(schema.name).\(property.name): \(describe(value)) is not a value of it: \(reason)")
        }
    }

    static func describe(_ value: Any?) -> String {
        value.map { "\($0) (\(type(of: $0)))" } ?? "nil"
    }
}

extension PropertyType {
    /// What nil stands for when given for a collection (as Realm takes `NSNull` for an empty List):
    /// an empty array or dictionary; nil for any other type.
    fileprivate var emptyCollection: Any? {
        switch self {
        case .list, .set: [Any]()
        case .map: [String: Any]()
        default: nil
        }
    }
}

/// A List, MutableSet or Map given as a value: its elements as an array, its entries as a dictionary.
protocol GivenCollection {
    var givenValue: Any { get }
}

extension List: GivenCollection {
    var givenValue: Any { elements.map { $0 as Any } }
}

extension MutableSet: GivenCollection {
    var givenValue: Any { elements.map { $0 as Any } }
}

extension Map: GivenCollection {
    var givenValue: Any {
        var dictionary: [String: Any] = [:]
        for (key, value) in entries { dictionary[key] = value }
        return dictionary
    }
}
