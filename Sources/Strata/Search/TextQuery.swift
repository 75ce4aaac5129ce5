/// A full-text query, parsed: what the `TEXT` operator, `matches(_:)` and `search(_:_:)` look for.
///
/// The syntax (Realm's `TEXT`, with FTS5's phrases): words separated by spaces, every one required;
/// `-word` excludes the objects holding it; `data*` matches every word that begins so; `"object
/// database"` matches the words next to each other, in order. Each word is read by the index's own
/// tokenizer, so `Databases` finds `database`, and a word the tokenizer splits (`e-mail`) is a phrase.
struct TextQuery: Hashable, Sendable {
    /// One thing a document must (or must not) hold: a term, a prefix, or a phrase of them.
    struct Unit: Hashable, Sendable {
        struct Part: Hashable, Sendable {
            /// The term's index key (`DocumentTerms.key`).
            var term: [UInt8]
            /// Whether any term beginning with `term` matches.
            var isPrefix: Bool
            /// The part's position after the unit's first part's (1 for the next word).
            var offset: UInt32
        }

        var parts: [Part]
        var excluded: Bool

        var isPhrase: Bool { parts.count > 1 }
    }

    /// Required units first, in the query's order; then the excluded ones.
    let units: [Unit]
    let text: String

    var required: ArraySlice<Unit> { units[..<firstExcluded] }
    var excluded: ArraySlice<Unit> { units[firstExcluded...] }
    private var firstExcluded: Int { units.firstIndex(where: \.excluded) ?? units.count }

    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    /// - Throws: `SyntaxError` when a quote is not closed or the query requires no word (nothing but
    ///   exclusions, punctuation or stop words: it could only match every object). Unless `lenient`:
    ///   then an open quote runs to the end, and a query requiring no word matches nothing.
    init(_ text: String, tokenizer: some TextTokenizer, lenient: Bool = false) throws(SyntaxError) {
        self.text = text
        var required: [Unit] = []
        var excluded: [Unit] = []
        var scalars = Substring(text).unicodeScalars[...]
        while let first = scalars.first {
            if first.properties.isWhitespace {
                scalars = scalars.dropFirst()
                continue
            }
            var excludes = false
            if first == "-" {
                excludes = true
                scalars = scalars.dropFirst()
            }
            let body: Substring.UnicodeScalarView.SubSequence
            var isPhrase = false
            if scalars.first == "\"" {
                scalars = scalars.dropFirst()
                let close = scalars.firstIndex(of: "\"")
                guard close != nil || lenient else {
                    throw SyntaxError(description: "a quote in \"\(text)\" is not closed")
                }
                body = scalars[..<(close ?? scalars.endIndex)]
                scalars = scalars[(close.map(scalars.index(after:)) ?? scalars.endIndex)...]
                isPhrase = true
            } else {
                let end = scalars.firstIndex(where: { $0.properties.isWhitespace }) ?? scalars.endIndex
                body = scalars[..<end]
                scalars = scalars[end...]
            }
            var words = String(String.UnicodeScalarView(body))
            var isPrefix = false
            // `data*`, and `"object data"*` as FTS5 writes a phrase ending in a prefix.
            if words.hasSuffix("*") {
                words.removeLast()
                isPrefix = true
            } else if isPhrase, scalars.first == "*" {
                scalars = scalars.dropFirst()
                isPrefix = true
            }
            let tokens = tokenizer.tokens(of: words)
            guard let start = tokens.first?.position else { continue }  // punctuation, stop words
            var parts = tokens.map {
                Unit.Part(
                    term: DocumentTerms.key($0.term), isPrefix: false,
                    offset: UInt32(truncatingIfNeeded: $0.position - start))
            }
            parts[parts.count - 1].isPrefix = isPrefix
            let unit = Unit(parts: parts, excluded: excludes)
            if excludes { excluded.append(unit) } else { required.append(unit) }
        }
        guard !required.isEmpty || lenient else {
            throw SyntaxError(description: "\"\(text)\" holds no word to look for")
        }
        units = required + excluded
    }

    static func == (lhs: TextQuery, rhs: TextQuery) -> Bool { lhs.units == rhs.units }
    func hash(into hasher: inout Hasher) { hasher.combine(units) }
}

// MARK: Matching one document (what a scan tests, and the reference the index is checked against)

extension TextQuery {
    /// Whether `document` holds every required unit and no excluded one (a query requiring nothing
    /// matches nothing).
    func matches(_ document: DocumentTerms) -> Bool {
        guard !required.isEmpty else { return false }
        for unit in units where (unit.occurrences(in: document) > 0) == unit.excluded { return false }
        return true
    }
}

extension TextQuery.Unit {
    /// How many times the unit occurs in `document`: a term's positions, a prefix's positions over all
    /// its terms, a phrase's starting positions.
    func occurrences(in document: DocumentTerms) -> Int {
        if parts.count == 1 { return parts[0].positions(in: document).count }
        var starts = Set(parts[0].positions(in: document))
        for part in parts.dropFirst() where !starts.isEmpty {
            let positions = Set(part.positions(in: document))
            starts = starts.filter { positions.contains($0 &+ part.offset) }
        }
        return starts.count
    }
}

extension TextQuery.Unit.Part {
    /// The positions of the part's term (a prefix: of every term it begins) in `document`.
    func positions(in document: DocumentTerms) -> [UInt32] {
        guard isPrefix else { return document.positions[term] ?? [] }
        var found: [UInt32] = []
        for (candidate, positions) in document.positions where candidate.starts(with: term) {
            found += positions
        }
        return found
    }
}
