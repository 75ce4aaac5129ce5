import Foundation

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
