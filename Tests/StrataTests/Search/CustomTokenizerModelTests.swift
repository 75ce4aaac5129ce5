import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Seeded random documents, edits and queries over indexes read by tokenizers of the app's (bigrams
/// of Han and kana; tokens out of order, with synonyms, duplicates, NULs and empty terms), checked
/// after every write against a plain reference: each text's tokens kept by `TextTokenizer`'s rules
/// (`CustomTokenizerTests.kept`), a unit found by walking them by position, BM25 from its formula.
@Suite(.fixtureChecks, .offThePool) struct CustomTokenizerModelTests {
    typealias Unit = FullTextModelTests.GeneratedUnit

    struct Reference<Key: Hashable & Comparable> {
        let tokenizer: any TextTokenizer
        private(set) var tokens: [Key: [TextToken]] = [:]

        mutating func set(_ key: Key, _ text: String??) {
            tokens[key] = text.map { ($0 ?? nil).map { CustomTokenizerTests.kept(tokenizer.tokens(of: $0)) } ?? [] }
        }

        func parts(of unit: Unit) -> [TextToken] {
            CustomTokenizerTests.kept(tokenizer.tokens(of: unit.words.joined(separator: " ")))
        }

        /// A unit's occurrences: a term's tokens (a prefix: those of every term it begins), a phrase's
        /// distinct starting positions.
        func occurrences(of unit: Unit, in document: [TextToken]) -> Int {
            let parts = parts(of: unit)
            guard let first = parts.first else { return 0 }
            func holds(_ token: TextToken, _ index: Int) -> Bool {
                let term = DocumentTerms.key(parts[index].term)
                let stored = DocumentTerms.key(token.term)
                return unit.isPrefix && index == parts.count - 1 ? stored.starts(with: term) : stored == term
            }
            let starts = document.filter { holds($0, 0) }
            if parts.count == 1 { return starts.count }
            return Set(starts.map(\.position)).filter { start in
                parts.indices.dropFirst().allSatisfy { index in
                    document.contains {
                        $0.position == start + parts[index].position - first.position && holds($0, index)
                    }
                }
            }.count
        }

        func ranked(_ units: [Unit]) -> [(key: Key, score: Double)] {
            FullTextModelTests.ranked(
                Array(tokens), units: units, isRequired: { !$0.excluded && !parts(of: $0).isEmpty },
                length: \.count, occurrences: occurrences)
        }
    }

    static let characters = Array("東京都大学生の池古に")
    static let latin = ["data", "databases", "swift", "café", "Swift"]
    static let quirks = ["car", "auto", "dup", "neg", "x1", "xy", "a@b", "ab", "plain", "Car", "DUP", "@"]

    /// A haiku: runs of characters and Latin words, next to each other or apart.
    static func haiku(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 0...10, using: &random)).map { _ in
            let piece =
                Int.random(in: 0..<4, using: &random) == 0
                ? latin.randomElement(using: &random)!
                : String(
                    (0..<Int.random(in: 1...3, using: &random)).map { _ in characters.randomElement(using: &random)! })
            return piece + (Int.random(in: 0..<3, using: &random) == 0 ? " " : "")
        }.joined()
    }

    static func quirk(_ random: inout SplitMix64) -> String? {
        if Int.random(in: 0..<10, using: &random) == 0 { return nil }
        return (0..<Int.random(in: 0...8, using: &random)).map { _ in quirks.randomElement(using: &random)! }
            .joined(separator: " ")
    }

    static func query(_ random: inout SplitMix64, word: (inout SplitMix64) -> String) -> [Unit] {
        (0..<Int.random(in: 1...3, using: &random)).map { index in
            let count = Int.random(in: 0..<4, using: &random) == 0 ? 2 : 1
            return Unit(
                words: (0..<count).map { _ in word(&random) }, isPrefix: Int.random(in: 0..<4, using: &random) == 0,
                excluded: index > 0 && Int.random(in: 0..<3, using: &random) == 0)
        }
    }

    /// Every route against the reference: `TEXT` (the index), `NOT TEXT` (a scan), `search` with
    /// scores, and its top k.
    func check<T: Object, Key: Hashable & Comparable>(
        _ results: Results<T>, property: String, key: (T) -> Key, search: (String) throws -> Results<T>,
        reference: Reference<Key>, units: [Unit], random: inout SplitMix64, context: String
    ) throws {
        let text = units.map(\.text).joined(separator: " ")
        let expected = reference.ranked(units)
        guard units.contains(where: { !$0.excluded && !reference.parts(of: $0).isEmpty }) else {
            #expect(throws: StoreError.self, "\(text)") { try results.where("\(property) TEXT $0", text) }
            return
        }
        let keys = expected.map(\.key).sorted()
        let viaIndex = try results.where("\(property) TEXT $0", text)
        #expect(viaIndex.queryPlan.access == .fullTextIndex(property: property))
        #expect(viaIndex.map(key) == keys, "TEXT \(text) \(context)")
        let viaScan = try results.where("NOT (\(property) TEXT $0)", text)
        #expect(Set(viaScan.map(key)) == Set(reference.tokens.keys).subtracting(keys), "NOT TEXT \(text) \(context)")
        let scored = try search(text).scored()
        #expect(scored.map { key($0.object) } == expected.map(\.key), "search \(text) \(context)")
        for (got, want) in zip(scored, expected) where abs(got.score - want.score) > 1e-9 * max(1, abs(want.score)) {
            Issue.record("score \(got.score) != \(want.score) for \(text) \(context)")
            break
        }
        let k = Int.random(in: 1...5, using: &random)
        #expect(try search(text).prefix(k).map(key) == Array(expected.prefix(k).map(\.key)), "top \(k) of \(text)")
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func randomEditsMatchTheReference(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([Haiku.self, Quirk.self])
        let store = try Store(configuration: fixture.configuration)
        var haiku = Reference<Int>(tokenizer: BigramTokenizer())
        var quirks = Reference<String>(tokenizer: QuirkyTokenizer())
        var batches = 0
        for round in 0..<30 {
            try store.write {
                // Small batches soon: the pipeline's worker reads haiku (integer keys) with the tokenizer.
                let pipeline = try #require(store.core.session).fullTextChanges.pipeline
                pipeline.startAfter = Int.random(in: 0...6, using: &random)
                pipeline.batchDocuments = Int.random(in: 2...6, using: &random)
                defer { batches = pipeline.batchesStarted }
                // A run of haiku alone (a Quirk, keyed by a String, is indexed on this thread and
                // settles the pipeline first).
                for _ in 0..<Int.random(in: 0...12, using: &random) {
                    let id = Int.random(in: 1...50, using: &random)
                    let text = Self.haiku(&random)
                    try store.create(Haiku.self, value: ["id": id, "text": text], update: .modified)
                    haiku.set(id, text)
                }
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    let id = Int.random(in: 1...50, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0, 1:
                        let text = Self.haiku(&random)
                        try store.create(Haiku.self, value: ["id": id, "text": text], update: .modified)
                        haiku.set(id, text)
                        let quirk = Self.quirk(&random)
                        try store.create(Quirk.self, value: ["name": "q\(id)", "text": quirk as Any], update: .all)
                        quirks.set("q\(id)", quirk)
                    case 2:
                        if let object = store.object(ofType: Haiku.self, forPrimaryKey: id) {
                            let text = Self.haiku(&random)
                            object.text = text
                            haiku.set(id, text)
                        }
                        if let object = store.object(ofType: Quirk.self, forPrimaryKey: "q\(id)") {
                            let text = Self.quirk(&random)
                            object.text = text
                            quirks.set("q\(id)", text)
                        }
                    default:
                        if let object = store.object(ofType: Haiku.self, forPrimaryKey: id) {
                            try store.delete(object)
                            haiku.set(id, nil)
                        }
                        if let object = store.object(ofType: Quirk.self, forPrimaryKey: "q\(id)") {
                            try store.delete(object)
                            quirks.set("q\(id)", nil)
                        }
                    }
                }
            }
            try store.verify()
            for _ in 0..<6 {
                let haikuUnits = Self.query(&random) { random in
                    Int.random(in: 0..<4, using: &random) == 0
                        ? Self.latin.randomElement(using: &random)!
                        : String(
                            (0..<Int.random(in: 1...3, using: &random)).map { _ in
                                Self.characters.randomElement(using: &random)!
                            })
                }
                try check(
                    store.objects(Haiku.self), property: "text", key: \.id,
                    search: { try store.objects(Haiku.self).search(\.text, $0) }, reference: haiku, units: haikuUnits,
                    random: &random, context: "round \(round)")
                let quirkUnits = Self.query(&random) { Self.quirks.randomElement(using: &$0)! }
                try check(
                    store.objects(Quirk.self), property: "text", key: \.name,
                    search: { try store.objects(Quirk.self).search(\.text, $0) }, reference: quirks, units: quirkUnits,
                    random: &random, context: "round \(round)")
            }
        }
        #expect(!FullTextPipeline().enabled || batches > 0, "the pipeline's worker tokenized haiku")
    }
}
