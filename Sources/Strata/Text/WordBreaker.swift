/// The words of a text, found with the word boundary rules of Unicode's text segmentation (UAX #29:
/// WB4–WB13b) over the Unicode scalars' general categories and properties: letters with the marks
/// that follow them, numbers, an apostrophe or a full stop inside a word (`don't`, `U.S.A`), a
/// comma or a full stop inside a number (`3.14`, `1,000`), a connector (`snake_case`), Katakana
/// runs; an ideograph or a Hiragana letter is a word of its own. Punctuation, spaces and symbols
/// (emoji included) separate words and are no words.
///
/// Each word is a range of the text's Unicode scalars, and its position is its index among the
/// text's words.
struct WordBreaker: Sendable {
    /// How a scalar takes part in a word (UAX #29's Word_Break values, the ones the rules use).
    enum Kind: Equatable {
        case letter, numeric, katakana, ideographic, extend, extendNumLet
        case midLetter, midNum, midNumLet, singleQuote
        case other
    }

    /// The words of `text`, in order: each as the range of `scalars` it covers.
    func words(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var words: [Range<Int>] = []
        let kinds = scalars.map(Self.kind)
        var index = 0
        while index < kinds.count {
            let kind = kinds[index]
            guard kind.startsWord else {
                index += 1
                continue
            }
            let start = index
            var last = kind  // the kind of the word's last scalar, marks skipped (WB4)
            index += 1
            while index < kinds.count, kinds[index] == .extend { index += 1 }
            var end = index  // after the last letter or number and its marks: connectors at the end are left out
            if kind == .ideographic {  // a word of its own
                words.append(start..<end)
                continue
            }
            while index < kinds.count {
                let next = kinds[index]
                var after = index + 1
                while after < kinds.count, kinds[after] == .extend { after += 1 }
                if last.joins(next) {
                    last = next
                    index = after
                    if next != .extendNumLet { end = index }
                    continue
                }
                // WB6/7, WB11/12: a middle scalar joins when the same kind follows it (marks skipped).
                if next.isMiddle(after: last), after < kinds.count, next.joinsMiddle(between: last, and: kinds[after]) {
                    last = kinds[after]
                    index = after + 1
                    while index < kinds.count, kinds[index] == .extend { index += 1 }
                    end = index
                    continue
                }
                break
            }
            words.append(start..<end)
        }
        return words
    }

    /// The words of an ASCII text (every byte below 0x80), as `words(in:)` finds them in its scalars:
    /// each as a range of the bytes. No mark, Katakana or ideograph is ASCII, so the rules reduce to
    /// letters, digits, connectors and the middle characters.
    static func forEachASCIIWord(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Void) {
        var index = 0
        let count = bytes.count
        while index < count {
            let kind = asciiKinds[Int(bytes[index])]
            guard kind.startsWord else {
                index += 1
                continue
            }
            let start = index
            var last = kind
            index += 1
            var end = index
            while index < count {
                let next = asciiKinds[Int(bytes[index])]
                if last.joins(next) {
                    last = next
                    index += 1
                    if next != .extendNumLet { end = index }
                    continue
                }
                if next.isMiddle(after: last), index + 1 < count,
                    next.joinsMiddle(between: last, and: asciiKinds[Int(bytes[index + 1])])
                {
                    last = asciiKinds[Int(bytes[index + 1])]
                    index += 2
                    end = index
                    continue
                }
                break
            }
            body(start..<end)
        }
    }

    static func kind(_ scalar: Unicode.Scalar) -> Kind {
        let value = scalar.value
        if value < 0x80 { return asciiKinds[Int(value)] }
        switch value {  // ASCII is `asciiKinds`'
        case 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E: return .midNumLet
        case 0xB7, 0x387, 0x55F, 0x5F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A: return .midLetter
        case 0x37E, 0x589, 0x60C, 0x60D, 0x66C, 0x7F8, 0x2044, 0xFE10, 0xFE14, 0xFE50, 0xFE54, 0xFF0C,
            0xFF1B:
            return .midNum
        case 0x200D: return .extend  // a zero-width joiner
        default: break
        }
        let properties = scalar.properties
        if properties.isIdeographic { return .ideographic }
        switch value {
        case 0x3040...0x309F: return properties.isAlphabetic ? .ideographic : .other  // Hiragana: a letter each
        case 0x30A0...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: return .katakana
        default: break
        }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber:
            return .letter
        case .decimalNumber: return .numeric
        case .otherNumber: return .letter
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: return .extend
        case .connectorPunctuation: return .extendNumLet
        default: return properties.isAlphabetic ? .letter : .other
        }
    }
}

extension WordBreaker {
    /// The kinds of the ASCII scalars, looked up at once (most text).
    private static let asciiKinds: [Kind] = (0..<128).map { value in
        switch value {
        case 0x27: .singleQuote
        case 0x2E: .midNumLet
        case 0x3A: .midLetter
        case 0x2C, 0x3B: .midNum
        case 0x30...0x39: .numeric
        case 0x41...0x5A, 0x61...0x7A: .letter
        case 0x5F: .extendNumLet
        default: .other
        }
    }
}

extension WordBreaker.Kind {
    /// Whether a word may start here (a connector or a mark alone is no word).
    var startsWord: Bool {
        switch self {
        case .letter, .numeric, .katakana, .ideographic: true
        default: false
        }
    }

    /// WB5, WB8–WB10, WB13, WB13a/b: whether `next` continues a word whose last scalar is `self`.
    func joins(_ next: Self) -> Bool {
        switch (self, next) {
        case (.letter, .letter), (.letter, .numeric), (.numeric, .numeric), (.numeric, .letter): true
        case (.katakana, .katakana): true
        case (.letter, .extendNumLet), (.numeric, .extendNumLet), (.katakana, .extendNumLet),
            (.extendNumLet, .extendNumLet):
            true
        case (.extendNumLet, .letter), (.extendNumLet, .numeric), (.extendNumLet, .katakana): true
        default: false
        }
    }

    /// Whether `self` is a scalar that may join two parts of a word after `last`.
    func isMiddle(after last: Self) -> Bool {
        switch (last, self) {
        case (.letter, .midLetter), (.letter, .midNumLet), (.letter, .singleQuote): true
        case (.numeric, .midNum), (.numeric, .midNumLet), (.numeric, .singleQuote): true
        default: false
        }
    }

    /// WB6/7 (letters around a MidLetter, MidNumLet or quote) and WB11/12 (digits around a MidNum,
    /// MidNumLet or quote): `isMiddle(after: before)` has checked the middle's kind.
    func joinsMiddle(between before: Self, and after: Self) -> Bool {
        (before == .letter || before == .numeric) && after == before
    }
}
