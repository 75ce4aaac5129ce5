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
    /// Whether no two objects may hold the same value (`@Persisted(unique: true)`).
    public let isUnique: Bool
    /// The type a link or List of links points to.
    public let linkedTypeName: String?
    /// Whether it has a full-text index (`@Persisted(indexed: .fullText)`): `TEXT` queries read it.
    public let hasFullTextIndex: Bool
    /// Its vector index's dimensions (`@Persisted(indexed: .vector(…))`), or nil without one.
    public let vectorDimensions: Int?
    /// Its vector index's metric, or nil without one.
    public let vectorMetric: VectorMetric?

    init(_ property: PropertySchema) {
        name = property.name
        typeName = property.type.description
        isPrimaryKey = property.isPrimaryKey
        isIndexed = property.isIndexed
        isUnique = property.isUnique
        linkedTypeName = property.type.linkedTypeName
        hasFullTextIndex = property.fullText != nil
        vectorDimensions = property.vector?.dimensions
        vectorMetric = property.vector?.metric
    }
}
