/// An index kept beside a property's values, other than the ordered index of
/// `@Persisted(indexed: true)`: `@Persisted(indexed: .fullText)`.
///
/// ```swift
/// final class Note: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted(indexed: .fullText) var body: String
/// }
/// let found = try store.objects(Note.self).where("body TEXT $0", "swift database -sqlite")
/// ```
public struct PropertyIndex: Sendable, Hashable {
    @usableFromInline let attributes: PropertyAttributes

    @usableFromInline init(_ attributes: PropertyAttributes) {
        self.attributes = attributes
    }

    /// A full-text index on a `String` property: its words (Unicode word boundaries, lowercased,
    /// Latin and Greek diacritics removed, English words stemmed as Porter's algorithm does), each
    /// with its positions. Queries: the `TEXT` operator, `matches(_:)`, `search(_:_:)` ranked by BM25
    /// (Docs/Search.md).
    public static let fullText = PropertyIndex(.fullText)

    /// A full-text index with its tokenizer's choices: `stemming` (English, on by default: `databases`
    /// finds `database`), `englishStopWords` (off by default: common English words such as `the`
    /// left out of the index and of queries, their positions kept).
    public static func fullText(stemming: Bool = true, englishStopWords: Bool = false) -> PropertyIndex {
        var attributes = PropertyAttributes.fullText
        if !stemming { attributes.insert(.fullTextUnstemmed) }
        if englishStopWords { attributes.insert(.fullTextStopWords) }
        return PropertyIndex(attributes)
    }
}

/// Implementation detail: the types `@Persisted(indexed: .fullText)` accepts (`String`, `String?`).
public protocol _FullTextIndexable: _Persistable {}

extension String: _FullTextIndexable {}
extension Optional: _FullTextIndexable where Wrapped == String {}

extension Persisted where Value: _FullTextIndexable {
    /// A property with a full-text index: `@Persisted(indexed: .fullText) var body: String`. The index
    /// changes in the same write transaction as the row.
    @inlinable
    public init(indexed index: PropertyIndex) {
        self.init(initial: nil, attributes: index.attributes)
    }

    /// A property with a full-text index and an initial value: `@Persisted(indexed: .fullText) var body = ""`.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, indexed index: PropertyIndex) {
        self.init(initial: wrappedValue, attributes: index.attributes)
    }
}
