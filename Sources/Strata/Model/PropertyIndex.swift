/// An index kept beside a property's values, other than the ordered index of
/// `@Persisted(indexed: true)`: `@Persisted(indexed: .fullText)` on a String,
/// `@Persisted(indexed: .vector(dimensions:metric:))` on a `[Float]`.
///
/// ```swift
/// final class Note: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted(indexed: .fullText) var body: String
///     @Persisted(indexed: .vector(dimensions: 3, metric: .cosine)) var embedding: [Float]
/// }
/// let found = try store.objects(Note.self).where("body TEXT $0", "swift database -sqlite")
/// let near = try store.objects(Note.self).nearest(to: [0.1, 0.9, 0.2], k: 10, by: \.embedding)
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

    /// A full-text index whose texts and queries `tokenizer` reads: words of a script Unicode's word
    /// boundaries do not separate (Chinese, Japanese, Thai), identifiers, tags. The file records the
    /// tokenizer's `name`; opening the Store with another name rebuilds the index.
    ///
    /// ```swift
    /// @Persisted(indexed: .fullText(tokenizer: ExactWords())) var labels: String
    /// ```
    ///
    /// - Warning: Traps when another type of tokenizer has the same name.
    public static func fullText(tokenizer: some TextTokenizer) -> PropertyIndex {
        if let standard = tokenizer as? StandardTokenizer,
            standard.stopWords.isEmpty || standard.stopWords == StandardTokenizer.englishStopWords
        {
            return fullText(stemming: standard.stemming, englishStopWords: !standard.stopWords.isEmpty)
        }
        let number = UInt64(TokenizerRegistry.register(tokenizer))
        return PropertyIndex(PropertyAttributes(rawValue: PropertyAttributes.fullText.rawValue | number << 8))
    }

    /// A vector index on a `[Float]` property: an HNSW graph kept in the file, changed in the row's
    /// write transaction; `nearest(to:k:by:)` reads it (Docs/Search.md).
    ///
    /// - Parameters:
    ///   - dimensions: every vector's length (1...16,384); a vector of another length is refused.
    ///   - metric: how distance is measured (`.cosine` by default).
    ///   - maxConnections: HNSW's M, links per node and level (2...128, 16 by default; twice that at
    ///     the lowest level). More: better recall, a bigger index, slower writes.
    ///   - buildCandidates: HNSW's efConstruction, candidates weighed when a vector is linked in
    ///     (maxConnections...4,096, 100 by default). More: a better graph, slower writes.
    ///
    /// Values out of range are reported when the Store opens (`.schemaMismatch`).
    public static func vector(
        dimensions: Int, metric: VectorMetric = .cosine, maxConnections: Int = 16, buildCandidates: Int = 100
    ) -> PropertyIndex {
        PropertyIndex(
            VectorSettings(
                dimensions: dimensions, metric: metric, maxConnections: maxConnections,
                buildCandidates: buildCandidates
            ).attributes)
    }
}

/// Implementation detail: the types `@Persisted(indexed: PropertyIndex)` accepts: those of a full-text
/// index (`String`, `String?`) and of a vector index (`[Float]`). Which index fits which type is
/// checked when the Store opens (`.schemaMismatch`).
public protocol _PropertyIndexable: _Persistable {}

/// Implementation detail: the types `@Persisted(indexed: .fullText)` accepts (`String`, `String?`).
public protocol _FullTextIndexable: _PropertyIndexable {}

extension String: _FullTextIndexable {}
extension Optional: _FullTextIndexable, _PropertyIndexable where Wrapped == String {}

extension Persisted where Value: _PropertyIndexable {
    /// A property with a full-text or vector index: `@Persisted(indexed: .fullText) var body: String`,
    /// `@Persisted(indexed: .vector(dimensions: 384)) var embedding: [Float]`. The index changes in
    /// the same write transaction as the row.
    @inlinable
    public init(indexed index: PropertyIndex) {
        self.init(initial: nil, attributes: index.attributes)
    }

    /// A property with a full-text or vector index and an initial value:
    /// `@Persisted(indexed: .fullText) var body = ""`.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, indexed index: PropertyIndex) {
        self.init(initial: wrappedValue, attributes: index.attributes)
    }
}

extension FullTextSettings {
    /// The settings `@Persisted(indexed: .fullText…)` recorded, or nil for a property without them.
    init?(_ attributes: PropertyAttributes) {
        guard attributes.contains(.fullText) else { return nil }
        // Bits 8..<24: the number of a tokenizer of `fullText(tokenizer:)` (0: the standard one).
        let number = Int(attributes.rawValue >> 8 & 0xFFFF)
        self.init(
            stemming: !attributes.contains(.fullTextUnstemmed),
            englishStopWords: attributes.contains(.fullTextStopWords),
            tokenizerName: number == 0 ? nil : TokenizerRegistry.name(ofNumber: number))
    }
}

extension VectorSettings {
    // Bits of `PropertyAttributes` (above its flags): dimensions 8..<24, metric 24..<26, maxConnections
    // 32..<40, buildCandidates 40..<56. A value that does not fit is stored as 0, which `problem` refuses.
    var attributes: PropertyAttributes {
        func field(_ value: Int, bits: Int) -> UInt64 { (0..<(1 << bits)).contains(value) ? UInt64(value) : 0 }
        let metricBits: UInt64 =
            switch metric {
            case .cosine: 0
            case .euclidean: 1
            case .dotProduct: 2
            }
        let raw =
            PropertyAttributes.vector.rawValue | field(dimensions, bits: 16) << 8 | metricBits << 24
            | field(maxConnections, bits: 8) << 32 | field(buildCandidates, bits: 16) << 40
        return PropertyAttributes(rawValue: raw)
    }

    /// The settings `@Persisted(indexed: .vector(…))` recorded, or nil for a property without one.
    init?(_ attributes: PropertyAttributes) {
        guard attributes.contains(.vector) else { return nil }
        let raw = attributes.rawValue
        let metrics: [VectorMetric] = [.cosine, .euclidean, .dotProduct, .cosine]
        self.init(
            dimensions: Int(raw >> 8 & 0xFFFF), metric: metrics[Int(raw >> 24 & 3)],
            maxConnections: Int(raw >> 32 & 0xFF), buildCandidates: Int(raw >> 40 & 0xFFFF))
    }
}

/// Implementation detail: the types `@Persisted(indexed: .vector(…))` accepts (`[Float]`).
public protocol _VectorIndexable: _PropertyIndexable {}

extension Array: _VectorIndexable, _PropertyIndexable where Element == Float {}
