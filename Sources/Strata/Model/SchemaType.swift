/// Implementation detail of `_Persistable`: how a Swift type is stored.
public struct _SchemaType: Sendable {
    let type: PropertyType
    /// The model type a link or a list of links points to (so linked types join the schema).
    let linkedType: Object.Type?
    /// For `LinkingObjects`: the origin type. Such a property has no column.
    let linkingOrigin: Object.Type?

    init(_ type: PropertyType, linkedType: Object.Type? = nil, linkingOrigin: Object.Type? = nil) {
        self.type = type
        self.linkedType = linkedType
        self.linkingOrigin = linkingOrigin
    }
}

/// What `@Persisted(primaryKey:)` and `@Persisted(indexed:)` declared.
@usableFromInline
struct PropertyAttributes: OptionSet, Hashable, Sendable {
    /// Flags in the low byte; above them a vector index's settings (`VectorSettings.attributes`) or a
    /// full-text index's tokenizer number (`PropertyIndex.fullText(tokenizer:)`): one word, so the
    /// wrapper of every property stays the size it was.
    @usableFromInline let rawValue: UInt64
    @inlinable init(rawValue: UInt64) { self.rawValue = rawValue }

    @usableFromInline static let primaryKey = PropertyAttributes(rawValue: 1)
    @usableFromInline static let indexed = PropertyAttributes(rawValue: 2)
    @usableFromInline static let unique = PropertyAttributes(rawValue: 4)
    @usableFromInline static let owning = PropertyAttributes(rawValue: 8)
    /// `@Persisted(indexed: .fullText)`, with its tokenizer's choices.
    @usableFromInline static let fullText = PropertyAttributes(rawValue: 16)
    @usableFromInline static let fullTextUnstemmed = PropertyAttributes(rawValue: 32)
    @usableFromInline static let fullTextStopWords = PropertyAttributes(rawValue: 64)
    /// `@Persisted(indexed: .vector(…))`; its settings are in the bits above the flags.
    @usableFromInline static let vector = PropertyAttributes(rawValue: 128)
}
