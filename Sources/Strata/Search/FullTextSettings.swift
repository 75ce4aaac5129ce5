/// A full-text index's tokenizer, as the file's schema records it: the standard one's choices
/// (`@Persisted(indexed: .fullText(stemming:englishStopWords:))`), or the name of one of the app's
/// (`.fullText(tokenizer:)`). A change rebuilds the index.
struct FullTextSettings: Codable, Hashable, Sendable {
    var stemming = true
    var englishStopWords = false
    /// A tokenizer of the app's (absent in files written before there were any, and for the standard one).
    var tokenizerName: String?

    /// The tokenizer documents and queries are read with; nil when the file names one this process
    /// has not registered.
    var tokenizer: IndexTokenizer? {
        guard let tokenizerName else {
            return IndexTokenizer(
                standard: StandardTokenizer(
                    stemming: stemming, stopWords: englishStopWords ? StandardTokenizer.englishStopWords : []))
        }
        return TokenizerRegistry.tokenizer(named: tokenizerName).map(IndexTokenizer.init(custom:))
    }

    /// Why `tokenizer` is nil, naming the index.
    func missingTokenizer(of index: String) -> String {
        "the full-text index of \(index) reads texts with the tokenizer \"\(tokenizerName ?? "")\", which this "
            + "process has not declared: open the Store with the model whose @Persisted(indexed: "
            + ".fullText(tokenizer:)) names it"
    }
}

/// The tokenizer an index reads texts with: the standard one, whose byte path reads an ASCII text
/// without making Strings, or an app's, whose tokens are kept as `TextTokenizer` documents (no NUL
/// in a term, which ends a term in the index's keys; no empty term; in the order of their positions,
/// which a posting's position deltas need).
struct IndexTokenizer: TextTokenizer {
    private let standard: StandardTokenizer?
    private let custom: (any TextTokenizer)?

    init(standard: StandardTokenizer) {
        self.standard = standard
        custom = nil
    }

    init(custom: any TextTokenizer) {
        // A standard tokenizer with stop words of its own, declared as an app's: its byte path still serves.
        standard = custom as? StandardTokenizer
        self.custom = standard == nil ? custom : nil
    }

    var name: String { standard?.name ?? custom!.name }

    func tokens(of text: String) -> [TextToken] {
        guard let custom else { return standard!.tokens(of: text) }
        return Self.kept(custom.tokens(of: text))
    }

    /// Calls `body` with the bytes of each term of a UTF-8 text and its position: `tokens(of:)`'s.
    func forEachTerm(
        inUTF8 text: UnsafeRawBufferPointer, scratch: inout TokenizerScratch,
        _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void
    ) {
        if let standard {
            standard.forEachTerm(inUTF8: text, scratch: &scratch, body)
        } else {
            forEachDecodedTerm(inUTF8: text, scratch: &scratch, body)
        }
    }

    /// `tokens` as the index keeps them (`TextTokenizer`'s rules).
    static func kept(_ tokens: [TextToken]) -> [TextToken] {
        var kept: [TextToken] = []
        kept.reserveCapacity(tokens.count)
        var sorted = true
        for var token in tokens {
            if token.term.utf8.contains(0) {
                token.term = String(String.UnicodeScalarView(token.term.unicodeScalars.filter { $0 != "\0" }))
            }
            guard !token.term.isEmpty else { continue }
            token.position = min(max(token.position, 0), Int(UInt32.max))
            if let last = kept.last, last.position > token.position { sorted = false }
            kept.append(token)
        }
        if !sorted {
            kept = kept.enumerated().sorted {
                $0.element.position != $1.element.position
                    ? $0.element.position < $1.element.position : $0.offset < $1.offset
            }.map(\.element)
        }
        // A token given twice counts once.
        var unique: [TextToken] = []
        unique.reserveCapacity(kept.count)
        var termsHere: Set<String> = []
        var here = -1
        for token in kept {
            if token.position != here {
                here = token.position
                termsHere.removeAll(keepingCapacity: true)
            }
            if termsHere.insert(token.term).inserted { unique.append(token) }
        }
        return unique
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
