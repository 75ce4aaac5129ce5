import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The tokenizer a full-text index reads documents and queries with (issue 55): Porter's stemmer
/// against SQLite FTS5's `porter` tokenizer over 11,475 words of the machine's manual pages, word
/// boundaries against a plain reading of Unicode's rules (UAX #29) on seeded random text, folding
/// and positions by example.
@Suite struct TextTokenizerTests {
    /// `Fixtures/porter-fts5.txt`: each word of the manual pages of a Debian machine, and the stem
    /// FTS5's `porter ascii` tokenizer gives it (scripts/make-porter-fixture.py).
    @Test func porterStemsEveryWordAsFTS5Does() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/porter-fts5.txt")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count > 10_000)
        let stemmer = PorterStemmer()
        var wrong: [String] = []
        for line in lines {
            let parts = line.split(separator: " ")
            let stem = stemmer.stem(String(parts[0]))
            if stem != parts[1] { wrong.append("\(parts[0]): \(stem), FTS5 \(parts[1])") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) stems differ: \(wrong.prefix(20))")
    }

    /// The stem cache gives what the stemmer gives: the fixture's words (and words of no letter) met
    /// in a seeded random order, again and again, through caches small enough that words share slots
    /// and replace each other.
    @Test(arguments: [1, 4, 2_048]) func stemCacheGivesTheStemmersStems(slots: Int) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/porter-fts5.txt")
        let fixture = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            Array($0.split(separator: " ")[0].utf8)
        }
        let words = Array(fixture.prefix(400)) + [Array("12345".utf8), Array("3.14".utf8), Array("1's".utf8)]
        let stemmer = PorterStemmer()
        var cache = StemCache(slotCount: slots)
        var random = SplitMix64(state: UInt64(slots))
        for _ in 0..<20_000 {
            let word = words[Int(random.next() % UInt64(words.count))]
            var expected = word
            stemmer.stem(inPlace: &expected)
            var cached = word
            let count = cached.withUnsafeMutableBufferPointer {
                cache.stem($0.baseAddress!, count: $0.count, by: stemmer)
            }
            #expect(Array(cached[..<count]) == expected, "\(String(decoding: word, as: UTF8.self))")
        }
    }

    @Test func porterFollowsItsReferenceImplementation() {
        let stemmer = PorterStemmer()
        let expected = [
            "caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
            "feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
            "sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
            "tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
            "filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
            "rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
            "radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
            "vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
            "decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
            "sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
            "formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
            "goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
            "airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
            "irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
            "adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
            "angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
            "probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
            "is": "is", "as": "as", "assembly": "assembl", "technologies": "technolog", "": "", "s": "s",
        ]
        for (word, stem) in expected { #expect(stemmer.stem(word) == stem, "\(word)") }
        var empty: [UInt8] = []
        stemmer.stem(inPlace: &empty)
        #expect(empty.isEmpty)
    }

    @Test(arguments: [UInt64(1), 2, 3]) func wordsFollowUnicodesRulesOnRandomText(seed: UInt64) {
        let alphabet: [String] = [
            "a", "b", "Z", "é", "e\u{301}", "1", "2", "9", "'", "\u{2019}", ".", ",", ":", ";", "_", " ", " ", "-",
            "\u{301}", "\u{AD}", "\u{200D}", "東", "京", "タ", "ー", "ひ", "👍", "\n", "ß", "Ω", "и", "क", "\u{93F}",
            "٣", "½", "Ⅻ", "\u{FF0C}", "!",
        ]
        var random = SplitMix64(state: seed)
        for _ in 0..<400 {
            let length = Int(random.next() % 24)
            let text = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let scalars = Array(text.unicodeScalars)
            let words = WordBreaker().words(in: scalars)
            let expected = ReferenceWordBreaker.words(in: scalars)
            #expect(
                words == expected,
                "\(text.debugDescription): \(words.map { String(String.UnicodeScalarView(scalars[$0])) }) against \(expected.map { String(String.UnicodeScalarView(scalars[$0])) })"
            )
        }
    }

    /// The byte path (`forEachTerm`, what the index writes with) gives the terms and positions of
    /// `tokens(of:)`, on ASCII texts (read byte by byte) and others, with every tokenizer choice.
    @Test(arguments: [UInt64(6), 7]) func bytePathGivesTheTermsOfTheStringPath(seed: UInt64) {
        let ascii: [String] = [
            "a", "B", "z", "Q", "1", "9", "'", "'s", ".", ",", ":", ";", "_", " ", " ", "-", "\n", "!", "the",
            "running",
            "Databases", "caresses", "ponies", "THE", "sky's", "e-mail", "x", "3.14", "U.S.A",
            // Longer than the stack buffer a word is folded in (the long-word path).
            String(repeating: "Ab", count: 130), String(repeating: "x", count: 255) + "ING",
        ]
        let other = ascii + ["é", "東", "\u{2019}", "ß", "Ω"]
        var random = SplitMix64(state: seed)
        let tokenizers = [
            StandardTokenizer(), StandardTokenizer(stemming: false),
            StandardTokenizer(stopWords: StandardTokenizer.englishStopWords),
        ]
        // A cache of few slots: stems met, replaced and met again.
        var scratch = TokenizerScratch(stems: StemCache(slotCount: 4))
        for round in 0..<1_500 {
            let alphabet = round % 3 == 0 ? other : ascii
            let text = (0..<Int(random.next() % 30)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
                .joined()
            for tokenizer in tokenizers {
                var viaBytes: [TextToken] = []
                Array(text.utf8).withUnsafeBytes { bytes in
                    tokenizer.forEachTerm(inUTF8: bytes, scratch: &scratch) { term, position in
                        viaBytes.append(TextToken(term: String(decoding: term, as: UTF8.self), position: position))
                    }
                }
                #expect(viaBytes == tokenizer.tokens(of: text), "\(text.debugDescription)")
            }
        }
    }

    @Test func termsAreFoldedStemmedAndPlaced() {
        func terms(_ text: String, _ tokenizer: StandardTokenizer = StandardTokenizer()) -> [String] {
            tokenizer.tokens(of: text).map { "\($0.term)@\($0.position)" }
        }
        #expect(
            terms("Héllo Wörld, don't stop: 3.14 e-mail foo_bar U.S.A. naïve café's")
                == [
                    "hello@0", "world@1", "don't@2", "stop@3", "3.14@4", "e@5", "mail@6", "foo_bar@7", "u.s.a@8",
                    "naiv@9", "cafe@10",
                ])
        #expect(
            terms("Swift’s databases are RUNNING; 1,000 items") == [
                "swift@0", "databas@1", "ar@2", "run@3", "1,000@4", "item@5",
            ])
        #expect(terms("東京タワー ひらがな") == ["東@0", "京@1", "タワー@2", "ひ@3", "ら@4", "が@5", "な@6"])
        #expect(
            terms("Ça ŒUVRE Ελληνικά Русский हिन्दी co\u{AD}op 👍🏽 _lead trail_", StandardTokenizer(stemming: false))
                == ["ca@0", "œuvre@1", "ελληνικα@2", "русский@3", "हिन्दी@4", "coop@5", "lead@6", "trail@7"])
        let withoutStopWords = StandardTokenizer(stopWords: StandardTokenizer.englishStopWords)
        #expect(
            terms("The quick brown fox jumps over the lazy dog", withoutStopWords) == [
                "quick@1", "brown@2", "fox@3", "jump@4", "lazi@7", "dog@8",
            ])
    }

    @Test(arguments: [UInt64(4), 5]) func foldedWordsAreLowercaseWithoutLatinOrGreekDiacritics(seed: UInt64) {
        let letters = Array("aeiouyAEIOUYçÇñÑåÅøØßάέΆΈωΩиЙйक\u{301}\u{308}\u{327}\u{93F}")
        var random = SplitMix64(state: seed)
        for _ in 0..<500 {
            let word = String(
                (0..<(1 + random.next() % 10)).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
            let folded = StandardTokenizer.folded(ArraySlice(word.unicodeScalars))
            #expect(folded == folded.lowercased(), "\(word)")
            var base: Unicode.Scalar = " "
            for scalar in folded.decomposedStringWithCanonicalMapping.unicodeScalars {
                let isMark = (0x300...0x36F).contains(scalar.value)
                #expect(!(isMark && (base.value < 0x400)), "\(word) → \(folded) keeps a diacritic")
                if !isMark { base = scalar }
            }
            let ascii = String(word.unicodeScalars.filter(\.isASCII))
            if !ascii.isEmpty {
                #expect(StandardTokenizer.folded(ArraySlice(ascii.unicodeScalars)) == ascii.lowercased())
            }
        }
    }
}

/// Unicode's word boundary rules read plainly (UAX #29, WB4–WB13b and WB999), one boundary at a time:
/// the reference `WordBreaker` is checked against. A segment is a word when it holds a letter, a
/// number, Katakana or an ideograph; connectors at a word's ends are left out, as `WordBreaker` does.
private enum ReferenceWordBreaker {
    typealias Kind = WordBreaker.Kind

    static func words(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        // WB4: marks and format characters belong to the scalar before them (not at the start).
        var items: [(kind: Kind, range: Range<Int>)] = []
        for (index, scalar) in scalars.enumerated() {
            let kind = WordBreaker.kind(scalar)
            if kind == .extend, let last = items.last, !isLineBreak(scalars[last.range.upperBound - 1]) {
                items[items.count - 1].range = last.range.lowerBound..<(index + 1)
            } else {
                items.append((kind, index..<(index + 1)))
            }
        }
        func kind(_ index: Int) -> Kind? { items.indices.contains(index) ? items[index].kind : nil }
        func isLetter(_ index: Int) -> Bool { kind(index) == .letter }
        func isNumber(_ index: Int) -> Bool { kind(index) == .numeric }
        func isMidLetterQ(_ index: Int) -> Bool { [.midLetter, .midNumLet, .singleQuote].contains(kind(index)) }
        func isMidNumQ(_ index: Int) -> Bool { [.midNum, .midNumLet, .singleQuote].contains(kind(index)) }
        // Whether the text breaks between items `i` and `i + 1`.
        func breaks(_ i: Int) -> Bool {
            let (a, b) = (kind(i)!, kind(i + 1)!)
            if a == .letter && b == .letter { return false }  // WB5
            if isLetter(i) && isMidLetterQ(i + 1) && isLetter(i + 2) { return false }  // WB6
            if isLetter(i - 1) && isMidLetterQ(i) && isLetter(i + 1) { return false }  // WB7
            if a == .numeric && b == .numeric { return false }  // WB8
            if a == .letter && b == .numeric { return false }  // WB9
            if a == .numeric && b == .letter { return false }  // WB10
            if isNumber(i - 1) && isMidNumQ(i) && isNumber(i + 1) { return false }  // WB11
            if isNumber(i) && isMidNumQ(i + 1) && isNumber(i + 2) { return false }  // WB12
            if a == .katakana && b == .katakana { return false }  // WB13
            // WB13a
            if [.letter, .numeric, .katakana, .extendNumLet].contains(a) && b == .extendNumLet { return false }
            if a == .extendNumLet && [.letter, .numeric, .katakana].contains(b) { return false }  // WB13b
            return true  // WB999 (ideographs and Hiragana are Other: a boundary on both sides)
        }
        var words: [Range<Int>] = []
        var start = 0
        for i in items.indices {
            guard i == items.count - 1 || breaks(i) else { continue }
            var segment = Array(items[start...i])
            start = i + 1
            while let first = segment.first, first.kind == .extendNumLet { segment.removeFirst() }
            while let last = segment.last, last.kind == .extendNumLet { segment.removeLast() }
            guard let first = segment.first, let last = segment.last,
                segment.contains(where: { [.letter, .numeric, .katakana, .ideographic].contains($0.kind) })
            else { continue }
            words.append(first.range.lowerBound..<last.range.upperBound)
        }
        return words
    }

    /// WB3a/b: marks after a line break do not join it (they stand alone).
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r"
    }
}
