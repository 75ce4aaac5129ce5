import Foundation

/// One property of a stored type, as the file's schema describes it.
public struct DynamicProperty: Sendable, Equatable {
    /// The property's name.
    public let name: String
    /// Its type as Swift would spell it: `"Int"`, `"String?"`, `"List<Dog>"`, `"Dog?"` for a link.
    public let typeName: String
    /// Whether it is the type's primary key.
    public let isPrimaryKey: Bool
    /// Whether it has a secondary index.
    public let isIndexed: Bool
    /// The type a link or List of links points to.
    public let linkedTypeName: String?

    init(_ property: PropertySchema) {
        name = property.name
        typeName = property.type.description
        isPrimaryKey = property.isPrimaryKey
        isIndexed = property.isIndexed
        linkedTypeName = property.type.linkedTypeName
    }
}

/// A stored type, as the file's schema describes it.
public struct DynamicObjectType: Sendable, Equatable {
    /// The type's name (the model class's unqualified name).
    public let name: String
    /// Its properties, in stored column order.
    public let properties: [DynamicProperty]

    /// The primary key property, if the type has one.
    public var primaryKey: DynamicProperty? { properties.first(where: \.isPrimaryKey) }
}

/// A link read without the model classes: the target's type and primary key.
public struct DynamicLink: Sendable, Hashable, CustomStringConvertible {
    /// The linked type's name.
    public let typeName: String
    /// The linked object's primary key as text (a row id for types without one).
    public let primaryKey: String

    /// A link to the object of `typeName` whose primary key reads `primaryKey`.
    public init(typeName: String, primaryKey: String) {
        self.typeName = typeName
        self.primaryKey = primaryKey
    }

    /// `Dog(rex)`.
    public var description: String { "\(typeName)(\(primaryKey))" }
}

/// A stored object read without its model class (Realm's `DynamicObject`): values by property name.
///
/// Values are `Bool`, the integer types, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`,
/// `Decimal`, `DynamicLink`, arrays of those for Lists, or nil.
///
/// ```swift
/// for dog in try DynamicStore(path: path).objects(ofType: "Dog") {
///     print(dog.primaryKey, dog["name"] ?? "nil")
/// }
/// ```
public struct DynamicObject: CustomStringConvertible {
    /// The object's type name.
    public let typeName: String
    /// The primary key as text (a row id for types without one).
    public let primaryKey: String
    /// Every property with its value, in stored column order.
    public let values: [(name: String, value: Any?)]

    /// The value of the property named `name`; nil for nil values and unknown names.
    public subscript(name: String) -> Any? {
        values.first { $0.name == name }?.value ?? nil
    }

    /// `Dog(rex) { name: "Rex", age: 3 }`.
    public var description: String {
        let fields = values.map { "\($0.name): \(Self.describe($0.value))" }
        return "\(typeName)(\(primaryKey)) { \(fields.joined(separator: ", ")) }"
    }

    /// A value as `description` shows it: strings quoted, Lists bracketed, nil as `nil`.
    public static func describe(_ value: Any?) -> String {
        switch value {
        case nil: "nil"
        case let string as String: "\"\(string)\""
        case let array as [Any]: "[\(array.map { describe($0) }.joined(separator: ", "))]"
        case let value?: "\(value)"
        }
    }
}
