import Foundation

/// A term of a text, and its position: its index among the text's words (a stop word left out keeps
/// its place, so a phrase matches only words that stand next to each other).
public struct TextToken: Hashable, Sendable {
    /// The term as the index keeps it and a query looks for it (already folded, stemmed, …).
    public var term: String
    /// Where the term stands: terms at consecutive positions form a phrase; two terms may share one
    /// (a synonym).
    public var position: Int

    /// A term at a position.
    public init(term: String, position: Int) {
        self.term = term
        self.position = position
    }
}

/// What turns a text into the terms a full-text index keeps and a query looks for: the same
/// tokenizer reads the documents and the queries (each word of a query, so a word it splits is a
/// phrase). `StandardTokenizer` is the one `@Persisted(indexed: .fullText)` uses; declare another
/// with `@Persisted(indexed: .fullText(tokenizer:))`.
///
/// ```swift
/// /// Words as they are written: split at spaces, nothing folded.
/// struct ExactWords: TextTokenizer {
///     let name = "exact-words.v1"
///     func tokens(of text: String) -> [TextToken] {
///         text.split(separator: " ").enumerated().map { TextToken(term: String($1), position: $0) }
///     }
/// }
///
/// final class Tag: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted(indexed: .fullText(tokenizer: ExactWords())) var labels: String
/// }
/// ```
///
/// What the index keeps of the tokens: a term's NUL characters are removed, and a term left empty
/// is dropped; a negative position counts as 0; the tokens are read in the order of their positions,
/// and a token given twice (same term, same position) counts once; a term is cut to 200 UTF-8 bytes.
///
/// - Warning: `tokens(of:)` is called on any thread (a write's worker thread included) and must
///   give the same tokens for the same text every time: an index read with other tokens than it was
///   written with finds wrong objects (`verify()` reports it as damage; `salvage` rebuilds it).
public protocol TextTokenizer: Sendable {
    /// The name the file records for an index this tokenizer reads: opening the Store with a
    /// tokenizer of another name rebuilds the index. Give a new name whenever `tokens(of:)` gives
    /// other tokens than before (`bigram.v2`). One name, one tokenizer in a process.
    var name: String { get }

    /// The terms of `text`, in order.
    func tokens(of text: String) -> [TextToken]
}

extension TextTokenizer {
    /// Calls `body` with the bytes of each term `tokens(of:)` gives for a UTF-8 text (decoded as
    /// `String(decoding:)` repairs it) and its position.
    func forEachDecodedTerm(
        inUTF8 text: UnsafeRawBufferPointer, scratch: inout TokenizerScratch,
        _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void
    ) {
        for token in tokens(of: String(decoding: text, as: UTF8.self)) {
            scratch.longWord.removeAll(keepingCapacity: true)
            scratch.longWord.append(contentsOf: token.term.utf8)
            scratch.longWord.withUnsafeBufferPointer { body($0, token.position) }
        }
    }
}

/// Words by Unicode's word boundaries (`WordBreaker`), folded (lowercase, the diacritics of Latin and
/// Greek letters removed, `’` read as `'`), optionally stemmed as English (Porter's algorithm, as
/// FTS5's `porter` tokenizer: an English possessive `'s` dropped first) and without stop words: what
/// `@Persisted(indexed: .fullText)` reads texts with. A tokenizer of one's own may call it for the
/// words it does not read otherwise.
///
/// ```swift
/// StandardTokenizer().tokens(of: "Databases, cafés")  // database @0, cafe @1
/// ```
public struct StandardTokenizer: TextTokenizer {
    /// Whether terms are stemmed as English words (`databases` and `database` are one term).
    public var stemming: Bool
    /// Folded words left out (their positions stay taken): `StandardTokenizer.englishStopWords`, or
    /// your own list (lowercase, without diacritics).
    public var stopWords: Set<String>

    /// A tokenizer stemming English words or not, leaving out `stopWords`.
    public init(stemming: Bool = true, stopWords: Set<String> = []) {
        self.stemming = stemming
        self.stopWords = stopWords
    }

    /// `standard`, then `.unstemmed` without stemming, then `.english-stop-words` or
    /// `.stop-words-` and a hash of another list.
    public var name: String {
        var name = stemming ? "standard" : "standard.unstemmed"
        if stopWords == Self.englishStopWords {
            name += ".english-stop-words"
        } else if !stopWords.isEmpty {
            // FNV-1a over the sorted words: the same in every process (Hasher is seeded per process).
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in stopWords.sorted().joined(separator: "\n").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            name += ".stop-words-" + String(hash, radix: 16)
        }
        return name
    }

    /// The terms of `text`, in order, each at the index of its word (stop words too) among the text's.
    public func tokens(of text: String) -> [TextToken] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [TextToken] = []
        for (position, range) in WordBreaker().words(in: scalars).enumerated() {
            var term = Self.folded(scalars[range])
            if stopWords.contains(term) { continue }
            if stemming { term = Self.stemmer.stem(Self.withoutPossessive(term)) }
            tokens.append(TextToken(term: term, position: position))
        }
        return tokens
    }

    /// Calls `body` with the bytes of each term of a UTF-8 text and its position: the terms
    /// `tokens(of:)` gives, in order. An ASCII text is read byte by byte, each word folded and stemmed
    /// in a buffer on the stack (in `scratch` when longer than 256 bytes), its stem taken from
    /// `scratch`'s cache when met lately: no String, no allocation; another text goes through
    /// `tokens(of:)`. Invalid UTF-8 is read as `String(decoding:)` repairs it.
    func forEachTerm(
        inUTF8 text: UnsafeRawBufferPointer, scratch: inout TokenizerScratch,
        _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void
    ) {
        guard UTF8Text.isASCII(text) else {
            forEachDecodedTerm(inUTF8: text, scratch: &scratch, body)
            return
        }
        let bytes = text.bindMemory(to: UInt8.self)
        var position = 0
        // Each word folded and stemmed in a buffer of the stack; a longer one in `scratch`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.wordCapacity) { buffer in
            WordBreaker.forEachASCIIWord(in: bytes) { range in
                defer { position += 1 }
                guard range.count <= buffer.count else {
                    scratch.longWord.removeAll(keepingCapacity: true)
                    scratch.longWord.append(contentsOf: bytes[range])
                    var long: [UInt8] = []
                    swap(&long, &scratch.longWord)
                    defer { swap(&long, &scratch.longWord) }
                    long.withUnsafeMutableBufferPointer { long in
                        let count = foldAndStem(long.baseAddress!, count: long.count, stems: &scratch.stems)
                        if let count { body(UnsafeBufferPointer(rebasing: long[..<count]), position) }
                    }
                    return
                }
                var count = 0
                for byte in bytes[range] {
                    buffer[count] = byte
                    count += 1
                }
                guard let stemmed = foldAndStem(buffer.baseAddress!, count: count, stems: &scratch.stems) else {
                    return
                }
                body(UnsafeBufferPointer(rebasing: buffer[..<stemmed]), position)
            }
        }
    }

    /// The longest ASCII word folded on the stack (longer ones are never stemmed, but are kept).
    private static let wordCapacity = 256

    /// Folds the ASCII word in `word[0..<count]` to lowercase and stems it, in place: its new length,
    /// or nil for a stop word.
    private func foldAndStem(_ word: UnsafeMutablePointer<UInt8>, count: Int, stems: inout StemCache) -> Int? {
        var letters = false
        for index in 0..<count {
            if word[index] &- 0x41 < 26 { word[index] |= 0x20 }
            letters = letters || word[index] &- 0x61 < 26
        }
        if !stopWords.isEmpty,
            stopWords.contains(String(decoding: UnsafeBufferPointer(start: word, count: count), as: UTF8.self))
        {
            return nil
        }
        // Every rule of Porter's removes or replaces letters: a word of none (`12345`, `3.14`) stays.
        guard stemming, letters else { return count }
        var count = count
        if count >= 2, word[count - 2] == UInt8(ascii: "'"), word[count - 1] == UInt8(ascii: "s") { count -= 2 }
        return stems.stem(word, count: count, by: Self.stemmer)
    }

    private static let stemmer = PorterStemmer()

    /// `scalars` lowercased, the diacritics of Latin and Greek letters removed (`é` is `e`, `ά` is
    /// `α`; Cyrillic `й` and a Devanagari vowel sign stay), format characters (a soft hyphen, a
    /// joiner) removed, `’` as `'`.
    static func folded(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        if scalars.allSatisfy(\.isASCII) {  // most words: lowercased without Foundation
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scalars.count) { bytes in
                for (index, scalar) in zip(bytes.indices, scalars) {
                    let byte = UInt8(truncatingIfNeeded: scalar.value)
                    bytes[index] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                }
                return String(decoding: bytes, as: UTF8.self)
            }
        }
        var word = String.UnicodeScalarView()
        word.append(contentsOf: scalars)
        let decomposed = String(word).lowercased().decomposedStringWithCanonicalMapping
        var folded = String.UnicodeScalarView()
        var base: Unicode.Scalar = " "  // the letter the marks that follow belong to
        for scalar in decomposed.unicodeScalars {
            if scalar.properties.generalCategory == .format { continue }  // a soft hyphen, a joiner
            if isDiacritic(scalar), isLatinOrGreek(base) { continue }
            if !isDiacritic(scalar) { base = scalar }
            folded.append(scalar == "\u{2019}" ? "'" : scalar)
        }
        return String(folded).precomposedStringWithCanonicalMapping
    }

    private static func isLatinOrGreek(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF, 0x370...0x3FF, 0x1F00...0x1FFF: true
        default: false
        }
    }

    /// A mark of the Combining Diacritical Marks blocks.
    private static func isDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: true
        default: false
        }
    }

    /// `term` without a final `'s` (`swift's` is `swift`).
    private static func withoutPossessive(_ term: String) -> String {
        term.hasSuffix("'s") ? String(term.dropLast(2)) : term
    }

    /// Common English words a search would rather skip (the stop words of the Snowball English stemmer's list).
    public static let englishStopWords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
        "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has",
        "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in",
        "into", "is", "it", "its", "itself", "me", "more", "most", "my", "myself", "no", "nor", "not", "of",
        "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own",
        "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
        "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
        "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
        "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
    ]
}
