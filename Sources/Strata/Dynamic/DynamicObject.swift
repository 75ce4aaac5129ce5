import Foundation

/// A stored object read without its model class (Realm's `DynamicObject`): values by property name.
///
/// Values are `Bool`, the integer types, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`,
/// `Decimal`, `ObjectId`, `Decimal128`, `AnyValue`, `DynamicLink` for a link, a `DynamicObject` for
/// an embedded object (read inside its owner), arrays of those for Lists and MutableSets,
/// `[String: Any]` for Maps, or nil. A mixed value holding a link reads as the `DynamicLink` (nil
/// when its target is gone), its nested lists and maps as arrays and dictionaries.
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

    /// `value`, or nil when it is an `Any` holding nil (a null element of a List, a null value of a
    /// Map): what a printer tests for nil.
    @_spi(StrataTools)
    public static func unboxed(_ value: Any?) -> Any? {
        DynamicValue.unwrap(value)
    }

    /// A value as `description` shows it: strings quoted, Lists bracketed, nil as `nil`.
    public static func describe(_ value: Any?) -> String {
        switch DynamicValue.unwrap(value) {
        case nil: "nil"
        case let string as String: "\"\(string)\""
        case let embedded as DynamicObject:
            "\(embedded.typeName) { \(embedded.values.map { "\($0.name): \(describe($0.value))" }.joined(separator: ", ")) }"
        case let array as [Any]: "[\(array.map { describe($0) }.joined(separator: ", "))]"
        case let map as [String: Any]:
            "[\(map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { "\"\($0)\": \(describe(map[$0] ?? nil))" }.joined(separator: ", "))]"
        case let value?: "\(value)"
        }
    }
}
