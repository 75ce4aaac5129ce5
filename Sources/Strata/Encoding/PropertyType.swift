/// The stored type of a property, as written in the file's schema.
indirect enum PropertyType: Hashable, Codable, Sendable, CustomStringConvertible {
    case bool
    case int8, int16, int32, int64
    case uint8, uint16, uint32, uint64
    case float, double
    case string, data, date, uuid, decimal
    case objectId, decimal128
    /// A mixed value (`AnyValue`): a tag byte, then the value.
    case mixed
    case optional(PropertyType)
    /// A to-one link to the type of that name (always optional).
    case link(String)
    /// A list of elements of that type (values, optionals or links).
    case list(PropertyType)
    /// A map from String keys to values of that type (values, optionals or links, which are optional).
    case map(PropertyType)
    /// A set of elements of that type (values, optionals or links), stored sorted and unique.
    case set(PropertyType)

    var description: String {
        switch self {
        case .bool: "Bool"
        case .int8: "Int8"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int"
        case .uint8: "UInt8"
        case .uint16: "UInt16"
        case .uint32: "UInt32"
        case .uint64: "UInt64"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .uuid: "UUID"
        case .decimal: "Decimal"
        case .objectId: "ObjectId"
        case .decimal128: "Decimal128"
        case .mixed: "AnyValue"
        case .optional(let wrapped): "\(wrapped)?"
        case .link(let name): "\(name)?"
        case .list(.link(let name)): "List<\(name)>"
        case .list(let element): "List<\(element)>"
        case .map(let value): "Map<String, \(value)>"
        case .set(.link(let name)): "MutableSet<\(name)>"
        case .set(let element): "MutableSet<\(element)>"
        }
    }

    /// The key encoding a primary key of this type uses, or nil when it cannot be a primary key.
    var keyKind: KeyKind? {
        switch self {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64: .integer
        case .string: .string
        case .uuid: .uuid
        case .objectId: .objectId
        default: nil
        }
    }

    /// The type without its optional wrapper.
    var unwrapped: PropertyType {
        if case .optional(let wrapped) = self { return wrapped }
        return self
    }

    /// Whether nil is a value of this type (optionals, and links).
    var isOptional: Bool {
        switch self {
        case .optional, .link: true
        default: false
        }
    }

    /// Whether the type is one value (not a link, a collection or an optional).
    var isScalar: Bool {
        switch self {
        case .optional, .link, .list, .map, .set: false
        default: true
        }
    }

    /// The byte width of an integer type.
    var integerWidth: Int? {
        switch self {
        case .int8, .uint8: 1
        case .int16, .uint16: 2
        case .int32, .uint32: 4
        case .int64, .uint64: 8
        default: nil
        }
    }

    var isSignedInteger: Bool {
        switch self {
        case .int8, .int16, .int32, .int64: true
        default: false
        }
    }

    /// Whether a secondary index on this type is supported.
    var isIndexable: Bool {
        switch self {
        case .optional(let wrapped): wrapped.isIndexable
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64: true
        case .string, .uuid, .bool, .date, .objectId, .decimal128: true
        default: false
        }
    }

    /// Whether the column holds several values in the list format (a List, Map or MutableSet).
    var isCollection: Bool {
        switch self {
        case .list, .map, .set: true
        default: false
        }
    }

    var isMap: Bool {
        if case .map = self { return true }
        return false
    }

    /// Whether a value of this type may link to objects: a link, a collection of links, or a mixed
    /// value (one of them may hold `AnyValue.object`, of any type), alone or in a collection.
    var mayHoldLinks: Bool {
        switch self {
        case .link, .mixed: true
        case .optional(let wrapped): wrapped.mayHoldLinks
        case .list(let element), .map(let element), .set(let element): element.mayHoldLinks
        default: false
        }
    }

    /// The name of the linked type, for links and collections of links.
    var linkedTypeName: String? {
        switch self {
        case .link(let name): name
        case .list(let element), .map(let element), .set(let element): element.linkedTypeName
        default: nil
        }
    }
}
