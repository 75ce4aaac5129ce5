/// English stemming with Martin Porter's algorithm (1980), as his reference C implementation gives it
/// (its three departures from the paper included: `bli` → `ble`, `logi` → `log`, and words of one or
/// two letters left as they are), which is also what SQLite's FTS5 `porter` tokenizer gives: a
/// search ranks as an FTS5 table with `porter unicode61` would.
///
/// Works on a term's UTF-8 bytes, lowercase: the suffixes are ASCII, and any other byte counts as a
/// consonant. Terms longer than 64 bytes are left as they are (as FTS5 does).
struct PorterStemmer: Sendable {
    static let longestTerm = 64

    /// The stem of `term` (lowercase).
    func stem(_ term: String) -> String {
        var bytes = Array(term.utf8)
        stem(inPlace: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Stems a lowercase term's UTF-8 bytes in place (what `stem(_:)` gives, with no String made;
    /// `bytes` keeps its storage, so a caller reusing it allocates nothing per word).
    func stem(inPlace bytes: inout [UInt8]) {
        guard bytes.count > 2 else { return }  // an empty array may have no storage to point to
        let count = bytes.withUnsafeMutableBufferPointer { stem($0.baseAddress!, count: $0.count) }
        bytes.removeSubrange(count...)
    }

    /// Stems the lowercase term in `word[0..<count]` in place; returns the stem's length. A stem is
    /// never longer than its word: every rule replaces a suffix by a shorter one, or puts back at most
    /// what a rule just removed (`hoped` → `hope`).
    func stem(_ word: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        guard count > 2, count <= Self.longestTerm else { return count }
        var stemming = Stemming(bytes: word, k: count - 1)
        stemming.stem()
        return stemming.k + 1
    }

    /// The word being stemmed: `bytes[0...k]`, and `j`, where the suffix a rule matched begins (less one).
    private struct Stemming {
        let bytes: UnsafeMutablePointer<UInt8>
        var k: Int
        var j = 0

        mutating func stem() {
            step1ab()
            guard k > 0 else { return }
            step1c()
            step2()
            step3()
            step4()
            step5()
        }

        private func isConsonant(_ i: Int) -> Bool {
            switch bytes[i] {
            case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"):
                return false
            case UInt8(ascii: "y"):
                return i == 0 ? true : !isConsonant(i - 1)
            default:
                return true
            }
        }

        /// The number of vowel-consonant sequences in `bytes[0...j]`.
        private func measure() -> Int {
            var n = 0
            var i = 0
            while true {
                if i > j { return n }
                if !isConsonant(i) { break }
                i += 1
            }
            i += 1
            while true {
                while true {
                    if i > j { return n }
                    if isConsonant(i) { break }
                    i += 1
                }
                i += 1
                n += 1
                while true {
                    if i > j { return n }
                    if !isConsonant(i) { break }
                    i += 1
                }
                i += 1
            }
        }

        private func vowelInStem() -> Bool {
            guard j >= 0 else { return false }
            return (0...j).contains { !isConsonant($0) }
        }

        private func isDoubleConsonant(_ i: Int) -> Bool {
            i >= 1 && bytes[i] == bytes[i - 1] && isConsonant(i)
        }

        /// Whether `i-2...i` is consonant, vowel, consonant, the last not w, x or y (`hop`, not `hoy`).
        private func isCVC(_ i: Int) -> Bool {
            guard i >= 2, isConsonant(i), !isConsonant(i - 1), isConsonant(i - 2) else { return false }
            let last = bytes[i]
            return last != UInt8(ascii: "w") && last != UInt8(ascii: "x") && last != UInt8(ascii: "y")
        }

        /// Whether `bytes[0...k]` ends with `suffix`; sets `j` before it when it does.
        private mutating func ends(_ suffix: StaticString) -> Bool {
            let length = suffix.utf8CodeUnitCount
            guard length <= k + 1 else { return false }
            // Compared from the last byte: most suffixes differ there (a plain loop, no closure).
            let start = suffix.utf8Start
            var index = length - 1
            let offset = k - length + 1
            while index >= 0 {
                if bytes[offset + index] != start[index] { return false }
                index -= 1
            }
            j = k - length
            return true
        }

        /// Replaces what follows `j` with `replacement`.
        private mutating func setTo(_ replacement: StaticString) {
            let length = replacement.utf8CodeUnitCount
            replacement.withUTF8Buffer { replacement in
                for index in 0..<length {
                    bytes[j + 1 + index] = replacement[index]
                }
            }
            k = j + length
        }

        private mutating func replace(_ replacement: StaticString) {
            if measure() > 0 { setTo(replacement) }
        }

        /// Plurals and -ed or -ing: caresses → caress, ponies → poni, agreed → agree, hopping → hop.
        private mutating func step1ab() {
            if bytes[k] == UInt8(ascii: "s") {
                if ends("sses") {
                    k -= 2
                } else if ends("ies") {
                    setTo("i")
                } else if bytes[k - 1] != UInt8(ascii: "s") {
                    k -= 1
                }
            }
            if ends("eed") {
                if measure() > 0 { k -= 1 }
            } else if ends("ed") || ends("ing"), vowelInStem() {
                k = j
                if ends("at") {
                    setTo("ate")
                } else if ends("bl") {
                    setTo("ble")
                } else if ends("iz") {
                    setTo("ize")
                } else if isDoubleConsonant(k) {
                    k -= 1
                    let last = bytes[k]
                    if last == UInt8(ascii: "l") || last == UInt8(ascii: "s") || last == UInt8(ascii: "z") { k += 1 }
                } else if measure() == 1, isCVC(k) {
                    setTo("e")
                }
            }
        }

        /// A final y after a vowel in the stem becomes i: happy → happi.
        private mutating func step1c() {
            if ends("y"), vowelInStem() { bytes[k] = UInt8(ascii: "i") }
        }

        /// Double suffixes to single ones: relational → relate, when the stem's measure is above 0.
        private mutating func step2() {
            let rules = Self.step2Rules[Int(bytes[k - 1])]
            if !rules.isEmpty { applyFirst(rules) }
        }

        /// By the byte they are keyed by: an array of 256 (a dictionary's hashing cost a tenth of a bulk
        /// index build).
        private static let step2Rules = byByte([
            UInt8(ascii: "a"): [("ational", "ate"), ("tional", "tion")],
            UInt8(ascii: "c"): [("enci", "ence"), ("anci", "ance")],
            UInt8(ascii: "e"): [("izer", "ize")],
            UInt8(ascii: "l"): [("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")],
            UInt8(ascii: "o"): [("ization", "ize"), ("ation", "ate"), ("ator", "ate")],
            UInt8(ascii: "s"): [("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")],
            UInt8(ascii: "t"): [("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")],
            UInt8(ascii: "g"): [("logi", "log")],
        ])

        /// -ic-, -full, -ness and the like: electrical → electric.
        private mutating func step3() {
            let rules = Self.step3Rules[Int(bytes[k])]
            if !rules.isEmpty { applyFirst(rules) }
        }

        private static let step3Rules = byByte([
            UInt8(ascii: "e"): [("icate", "ic"), ("ative", ""), ("alize", "al")],
            UInt8(ascii: "i"): [("iciti", "ic")],
            UInt8(ascii: "l"): [("ical", "ic"), ("ful", "")],
            UInt8(ascii: "s"): [("ness", "")],
        ])

        private static func byByte(_ rules: [UInt8: [(StaticString, StaticString)]]) -> [[(StaticString, StaticString)]]
        {
            (0..<256).map { rules[UInt8($0)] ?? [] }
        }

        /// The first rule whose suffix ends the word, applied when the stem's measure is above 0.
        private mutating func applyFirst(_ rules: [(StaticString, StaticString)]) {
            for (suffix, replacement) in rules where ends(suffix) {
                replace(replacement)
                return
            }
        }

        /// -ant, -ence and the like removed when the stem's measure is above 1: adjustable → adjust.
        private mutating func step4() {
            let found: Bool
            switch bytes[k - 1] {
            case UInt8(ascii: "a"): found = ends("al")
            case UInt8(ascii: "c"): found = ends("ance") || ends("ence")
            case UInt8(ascii: "e"): found = ends("er")
            case UInt8(ascii: "i"): found = ends("ic")
            case UInt8(ascii: "l"): found = ends("able") || ends("ible")
            case UInt8(ascii: "n"): found = ends("ant") || ends("ement") || ends("ment") || ends("ent")
            case UInt8(ascii: "o"):
                found =
                    ends("ion") && j >= 0 && (bytes[j] == UInt8(ascii: "s") || bytes[j] == UInt8(ascii: "t"))
                    || ends("ou")
            case UInt8(ascii: "s"): found = ends("ism")
            case UInt8(ascii: "t"): found = ends("ate") || ends("iti")
            case UInt8(ascii: "u"): found = ends("ous")
            case UInt8(ascii: "v"): found = ends("ive")
            case UInt8(ascii: "z"): found = ends("ize")
            default: found = false
            }
            if found, measure() > 1 { k = j }
        }

        /// A final e removed (probate → probat, not cease) and a final ll made l, on long stems.
        private mutating func step5() {
            j = k
            if bytes[k] == UInt8(ascii: "e") {
                let m = measure()
                if m > 1 || m == 1 && !isCVC(k - 1) { k -= 1 }
            }
            if bytes[k] == UInt8(ascii: "l"), isDoubleConsonant(k), measure() > 1 { k -= 1 }
        }
    }
}
