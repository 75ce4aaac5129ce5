import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Substring and pattern matching on stored bytes (`TextMatch`) against a plain Swift reference: the
/// strings made, folded (`[d]`: Foundation's diacritic folding; `[c]`: `lowercased()`) and compared
/// by their UTF-8, `LIKE` by `Character`.
@Suite("String matching on stored bytes", .fixtureChecks)
struct TextMatchTests {
    /// Pieces of rows and needles: ASCII of both cases, the pattern characters, CR LF, and Unicode
    /// whose folding is not ASCII's (`ß`, the Kelvin sign that lowercases to ASCII `k`, `İ`, a
    /// combining accent, a ligature, an emoji).
    static let pieces: [String] = [
        "a", "b", "A", "B", "k", "K", "z", "Z", "0", " ", "*", "?", "\r", "\n", "\r\n", "e", "E", "é", "É",
        "e\u{301}", "ß", "\u{212A}", "İ", "ı", "ﬁ", "🍕", "Ø", "@", "[", "`", "{", "~",
    ]

    static func randomText(_ random: inout SplitMix64, asciiOnly: Bool, length: ClosedRange<Int>) -> String {
        let pieces = asciiOnly ? Self.pieces.filter { $0.utf8.allSatisfy { $0 < 0x80 } } : Self.pieces
        return (0..<Int.random(in: length, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            .joined()
    }

    /// A needle: usually a piece of `row` with its case changed at random, else random text.
    static func needle(of row: String, _ op: QueryOperator, _ random: inout SplitMix64) -> String {
        var needle: String
        let characters = Array(row)
        if !characters.isEmpty, Int.random(in: 0..<4, using: &random) != 0 {
            let start = Int.random(in: 0..<characters.count, using: &random)
            let end = Int.random(in: start...characters.count, using: &random)
            needle = String(characters[start..<end])
            if Bool.random(using: &random) { needle = needle.uppercased() }
        } else {
            needle = randomText(&random, asciiOnly: Bool.random(using: &random), length: 0...3)
        }
        if op == .like {  // some pattern characters
            var pattern = Array(needle)
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let at = Int.random(in: 0...pattern.count, using: &random)
                pattern.insert(Bool.random(using: &random) ? "*" : "?", at: at)
            }
            needle = String(pattern)
        }
        return needle
    }

    static func fold(_ string: String, _ options: StringOptions) -> String {
        var folded = string
        if options.contains(.diacriticInsensitive) {
            folded = folded.folding(options: .diacriticInsensitive, locale: nil)
        }
        if options.contains(.caseInsensitive) { folded = folded.lowercased() }
        return folded
    }

    static func glob(_ string: [Character], _ pattern: [Character]) -> Bool {
        guard let head = pattern.first else { return string.isEmpty }
        if head == "*" {
            return (0...string.count).contains { glob(Array(string[$0...]), Array(pattern.dropFirst())) }
        }
        guard let first = string.first else { return false }
        return (head == "?" || head == first) && glob(Array(string.dropFirst()), Array(pattern.dropFirst()))
    }

    /// The reference: what a Swift user would write for each operator.
    static func reference(_ row: String, _ op: QueryOperator, _ needle: String, _ options: StringOptions) -> Bool {
        let (row, needle) = (fold(row, options), fold(needle, options))
        switch op {
        case .beginsWith: return row.utf8.starts(with: needle.utf8)
        case .endsWith: return Array(row.utf8).reversed().starts(with: Array(needle.utf8).reversed())
        case .contains: return needle.isEmpty || row.utf8.firstRange(of: needle.utf8) != nil
        case .equal: return Array(row.utf8) == Array(needle.utf8)
        default: return glob(Array(row), Array(needle))
        }
    }

    /// A string's scalars in hex: what a failure shows (look-alikes such as `K` and the Kelvin sign differ).
    static func scalars(_ string: String) -> String {
        string.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
    }

    static let operators: [QueryOperator] = [.beginsWith, .endsWith, .contains, .equal, .like]
    static let optionSets: [StringOptions] = [
        [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive],
    ]

    @Test("20,000 random rows and needles, ASCII and not: the byte match equals the reference", arguments: [1, 2])
    func bytesAgainstReference(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var failures: [String] = []
        var asciiRows = 0
        for _ in 0..<10_000 {
            let row = Self.randomText(&random, asciiOnly: Int.random(in: 0..<3, using: &random) != 0, length: 0...30)
            let op = Self.operators.randomElement(using: &random)!
            let options = Self.optionSets.randomElement(using: &random)!
            let needle = Self.needle(of: row, op, &random)
            let match = StringMatch(op, needle, options: QueryStringOptions(rawValue: options.rawValue))
            let got = Array(row.utf8).withUnsafeBytes { match.test($0) }
            if row.utf8.allSatisfy({ $0 < 0x80 }) { asciiRows += 1 }
            let expected = Self.reference(row, op, needle, options)
            if got != expected, failures.count < 10 {
                failures.append(
                    "\(Self.scalars(row)) \(op)\(options.rawValue) \(Self.scalars(needle)): \(String(describing: got))")
            }
        }
        #expect(failures == [])
        #expect(asciiRows > 5_000)  // the byte route is the one mostly taken
    }

    @Test("every ASCII character folds as TextMatch assumes: [d] keeps it, [c] lowers A to Z alone")
    func asciiFolding() {
        for byte in UInt8(0)..<0x80 {
            let character = String(decoding: [byte], as: UTF8.self)
            let lowered = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
            #expect(Array(Self.fold(character, .diacriticInsensitive).utf8) == [byte], "\(byte)")
            #expect(Array(Self.fold(character, .caseInsensitive).utf8) == [lowered], "\(byte)")
        }
    }

    @Test("a row not UTF-8 is damage (nil), ASCII or not; a null String never matches")
    func damagedAndNull() {
        for op in Self.operators {
            let match = StringMatch(op, "a", options: [])
            let bad: [UInt8] = [0x61, 0xFF, 0x61]
            #expect(bad.withUnsafeBytes { match.test($0) } == nil, "\(op)")
            #expect(match.test(nil) == false, "\(op)")
        }
    }

    @Test("a table large enough for a split scan: counts and objects as the reference, 30 random queries")
    func splitScanAgainstReference() throws {
        let fixture = Fixture([QueryRow.self, QueryTarget.self])
        let store = try fixture.open()
        var random = SplitMix64(state: 7)
        var names: [String] = []
        try store.write {
            for id in 0..<(ScanSplit.minimumRows + 10_000) {
                let row = QueryRow()
                row.id = id
                row.name = Self.randomText(&random, asciiOnly: id % 10 != 0, length: 0...8)
                row.label = ""
                names.append(row.name)
                try store.add(row)
            }
        }
        let all = store.objects(QueryRow.self)
        for _ in 0..<30 {
            let op = Self.operators.randomElement(using: &random)!
            let options = Self.optionSets.randomElement(using: &random)!
            let needle = Self.needle(of: names.randomElement(using: &random)!, op, &random)
            let expected = names.indices.filter { Self.reference(names[$0], op, needle, options) }
            let letters =
                (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "")
            let word = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "==", "LIKE"][Self.operators.firstIndex(of: op)!]
            let query = try all.where("name \(word)\(letters.isEmpty ? "" : "[\(letters)]") $0", needle)
            #expect(query.count == expected.count, "\(word)[\(letters)] \(Self.scalars(needle))")
            #expect(query.map(\.id) == expected, "\(word)[\(letters)] \(Self.scalars(needle))")
        }
    }

    @Test("queries in both forms and the string language match the reference on 300 random rows", arguments: [5, 6])
    func queriesAgainstReference(seed: UInt64) throws {
        let fixture = Fixture([QueryRow.self, QueryTarget.self])
        let store = try fixture.open()
        var random = SplitMix64(state: seed)
        var rows: [Int: (name: String, optName: String?)] = [:]
        try store.write {
            for id in 0..<300 {
                let row = QueryRow()
                row.id = id
                row.name = Self.randomText(
                    &random, asciiOnly: Int.random(in: 0..<4, using: &random) != 0, length: 0...10)
                row.optName =
                    Bool.random(using: &random) ? nil : Self.randomText(&random, asciiOnly: true, length: 0...6)
                row.label = "\(id)"
                rows[id] = (row.name, row.optName)
                try store.add(row)
            }
        }
        let all = store.objects(QueryRow.self)
        var failures: [String] = []
        for _ in 0..<200 {
            let op = Self.operators.randomElement(using: &random)!
            let options = Self.optionSets.randomElement(using: &random)!
            let onOptional = Int.random(in: 0..<3, using: &random) == 0
            let source = rows.values.randomElement(using: &random)!
            let needle = Self.needle(of: (onOptional ? source.optName : source.name) ?? "", op, &random)
            let expected = Set(
                rows.filter { _, row in
                    guard let value = onOptional ? row.optName : row.name else { return false }
                    return Self.reference(value, op, needle, options)
                }.keys)
            let built: Results<QueryRow>
            switch (op, onOptional) {
            case (.beginsWith, false): built = all.where { $0.name.starts(with: needle, options: options) }
            case (.beginsWith, true): built = all.where { $0.optName.starts(with: needle, options: options) }
            case (.endsWith, false): built = all.where { $0.name.ends(with: needle, options: options) }
            case (.endsWith, true): built = all.where { $0.optName.ends(with: needle, options: options) }
            case (.contains, false): built = all.where { $0.name.contains(needle, options: options) }
            case (.contains, true): built = all.where { $0.optName.contains(needle, options: options) }
            case (.like, false): built = all.where { $0.name.like(needle, options: options) }
            case (.like, true): built = all.where { $0.optName.like(needle, options: options) }
            default: built = all
            }
            let letters =
                (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "")
            let word = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "==", "LIKE"][Self.operators.firstIndex(of: op)!]
            let text = "\(onOptional ? "optName" : "name") \(word)\(letters.isEmpty ? "" : "[\(letters)]") $0"
            let language = try all.where(text, needle)
            let got = Set(language.map(\.id))
            if got != expected, failures.count < 10 { failures.append("\(text) \(needle.debugDescription): language") }
            if op != .equal {
                let got = Set(built.map(\.id))
                if got != expected, failures.count < 10 { failures.append("\(text) \(needle.debugDescription): built") }
            }
        }
        #expect(failures == [])
    }
}
