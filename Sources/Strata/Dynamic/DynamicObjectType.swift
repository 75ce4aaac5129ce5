import Foundation

/// A stored type, as the file's schema describes it.
public struct DynamicObjectType: Sendable, Equatable {
    /// The type's name (the model class's unqualified name).
    public let name: String
    /// Its properties, in stored column order.
    public let properties: [DynamicProperty]
    /// Groups of properties whose values together are unique (`Object.uniqueKeys`).
    public var uniqueKeys: [[String]] = []
    /// Whether the type is an `EmbeddedObject`: its objects are read inside their owners (a link
    /// to one reads as the `DynamicObject` itself).
    public var isEmbedded = false

    /// The primary key property, if the type has one.
    public var primaryKey: DynamicProperty? { properties.first(where: \.isPrimaryKey) }
}
