/// A full-text index's tokenizer choices, as the file's schema records them
/// (`@Persisted(indexed: .fullText(stemming:englishStopWords:))`): a change rebuilds the index.
struct FullTextSettings: Codable, Hashable, Sendable {
    var stemming = true
    var englishStopWords = false

    /// The tokenizer documents and queries are read with.
    var tokenizer: StandardTokenizer {
        StandardTokenizer(stemming: stemming, stopWords: englishStopWords ? StandardTokenizer.englishStopWords : [])
    }
}

/// The terms of one document: per distinct term (its index key bytes), its positions in order; and
/// the document's length (the number of terms it holds, what BM25 weighs by).
struct DocumentTerms {
    /// Terms are cut to this many bytes (at a character boundary), so that an index key stays well
    /// under LMDB's key size limit whatever the text holds (a URL, a base64 blob).
    static let maximumTermBytes = 200

    private(set) var positions: [[UInt8]: [UInt32]] = [:]
    private(set) var length = 0

    init(_ text: String?, tokenizer: some TextTokenizer) {
        guard let text else { return }
        for token in tokenizer.tokens(of: text) {
            positions[Self.key(token.term), default: []].append(UInt32(truncatingIfNeeded: token.position))
            length += 1
        }
    }

    /// The bytes a term is kept under: its UTF-8, cut to `maximumTermBytes` at a scalar boundary.
    static func key(_ term: String) -> [UInt8] {
        Array(term.utf8).withUnsafeBufferPointer { Array(key($0)) }
    }

    /// A term's bytes cut to `maximumTermBytes` at a scalar boundary (the one rule, for Strings and
    /// for the byte path of writes).
    static func key(_ term: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard term.count > maximumTermBytes else { return term }
        var end = maximumTermBytes
        while end > 0, term[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a scalar
        return UnsafeBufferPointer(rebasing: term[..<end])
    }

    var isEmpty: Bool { positions.isEmpty }
}
