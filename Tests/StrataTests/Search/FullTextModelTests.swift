import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Seeded random documents and edits, checked after every write against a plain reference: the
/// texts kept in a dictionary, each read into its list of terms by the tokenizer (tested on its own
/// in TextTokenizerTests), a query's matches found by walking those lists, and BM25 computed from
/// its formula over them. The index must give the same objects, in the same order, with the same
/// scores: through `TEXT` (its index route), `NOT TEXT` (a scan), `search` and `search(…).prefix`.
@Suite(.fixtureChecks, .offThePool) struct FullTextModelTests {
    /// Words with shared stems, prefixes, diacritics and splits, so that queries often overlap.
    static let vocabulary = [
        "run", "runs", "running", "runner", "data", "database", "databases", "dated", "café", "Cafe", "object",
        "objects", "objection", "swift", "Swiftly", "x-ray", "e-mail", "3.14", "the", "linux", "Linus", "index",
        "indexes", "indexing", "zebra",
    ]

    /// One unit of a generated query: words that form a phrase when several, maybe a prefix, maybe
    /// excluded.
    struct GeneratedUnit {
        var words: [String]
        var isPrefix: Bool
        var excluded: Bool

        var text: String {
            let body = words.joined(separator: " ")
            let quoted = words.count > 1 ? "\"\(body)\"" : body
            return (excluded ? "-" : "") + quoted + (isPrefix ? "*" : "")
        }
    }

    /// The reference: texts by key, read into terms.
    struct Reference<Key: Hashable & Comparable> {
        private(set) var texts: [Key: String?] = [:]
        /// Each text's terms, read once when it is set.
        private var termsByKey: [Key: [String]] = [:]
        let tokenizer = StandardTokenizer()

        /// Sets (nil: removes) the object under `key`, holding `text`.
        mutating func set(_ key: Key, _ text: String??) {
            texts[key] = text
            termsByKey[key] = text.map { ($0 ?? nil).map { tokenizer.tokens(of: $0).map(\.term) } ?? [] }
        }

        func terms(_ key: Key) -> [String] { termsByKey[key] ?? [] }

        /// A unit's words as tokens, read once per distinct unit.
        private final class UnitTokens {
            var byText: [String: [TextToken]] = [:]
        }
        private let unitTokens = UnitTokens()

        func occurrences(of unit: GeneratedUnit, in terms: [String]) -> Int {
            let words = unit.words.joined(separator: " ")
            let tokens = unitTokens.byText[words] ?? tokenizer.tokens(of: words)
            unitTokens.byText[words] = tokens
            guard let first = tokens.first else { return 0 }
            var count = 0
            for start in terms.indices {
                var holds = true
                for (index, token) in tokens.enumerated() {
                    let position = start + token.position - first.position
                    guard position < terms.count else {
                        holds = false
                        break
                    }
                    let isPrefix = unit.isPrefix && index == tokens.count - 1
                    let term = DocumentTerms.key(token.term)
                    let stored = DocumentTerms.key(terms[position])
                    if isPrefix ? !stored.starts(with: term) : stored != term {
                        holds = false
                        break
                    }
                }
                if holds { count += 1 }
            }
            return count
        }

        /// The keys whose text matches, with BM25 scores (FTS5's formula), best first, ties by key.
        func ranked(_ units: [GeneratedUnit]) -> [(key: Key, score: Double)] {
            FullTextModelTests.ranked(
                texts.keys.map { ($0, terms($0)) }, units: units,
                isRequired: { !$0.excluded && !tokenizer.tokens(of: $0.words.joined(separator: " ")).isEmpty },
                length: \.count, occurrences: occurrences)
        }
    }

    /// The documents that hold every required unit and no excluded one, with their BM25 scores
    /// (FTS5's formula: k1 1.2, b 0.75), best first, ties by key.
    static func ranked<Key: Comparable, Document>(
        _ documents: [(Key, Document)], units: [GeneratedUnit], isRequired: (GeneratedUnit) -> Bool,
        length: (Document) -> Int, occurrences: (GeneratedUnit, Document) -> Int
    ) -> [(key: Key, score: Double)] {
        let required = units.filter(isRequired)
        let excluded = units.filter(\.excluded)
        let total = Double(documents.count)
        let average = documents.isEmpty ? 1 : max(Double(documents.map { length($0.1) }.reduce(0, +)) / total, 1e-9)
        let holding = required.map { unit in documents.filter { occurrences(unit, $0.1) > 0 }.count }
        var found: [(key: Key, score: Double)] = []
        for (key, document) in documents {
            guard !required.isEmpty, required.allSatisfy({ occurrences($0, document) > 0 }),
                excluded.allSatisfy({ occurrences($0, document) == 0 })
            else { continue }
            var score = 0.0
            for (unit, n) in zip(required, holding) {
                var idf = log((total - Double(n) + 0.5) / (Double(n) + 0.5))
                if idf <= 0 { idf = 1e-6 }
                let tf = Double(occurrences(unit, document))
                score += idf * (tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * Double(length(document)) / average))
            }
            found.append((key, score))
        }
        return found.sorted { $0.score != $1.score ? $0.score > $1.score : $0.key < $1.key }
    }

    static func text(_ random: inout SplitMix64) -> String? {
        if Int.random(in: 0..<12, using: &random) == 0 { return Int.random(in: 0..<2, using: &random) == 0 ? nil : "" }
        let count = Int.random(in: 1...14, using: &random)
        return (0..<count).map { _ in
            let word = vocabulary.randomElement(using: &random)!
            return Int.random(in: 0..<6, using: &random) == 0 ? word.uppercased() + "," : word
        }.joined(separator: " ")
    }

    static func query(_ random: inout SplitMix64) -> [GeneratedUnit] {
        var units: [GeneratedUnit] = []
        for index in 0..<Int.random(in: 1...3, using: &random) {
            let length = Int.random(in: 0..<4, using: &random) == 0 ? 2 : 1
            var words = (0..<length).map { _ in vocabulary.randomElement(using: &random)! }
            var isPrefix = false
            if Int.random(in: 0..<4, using: &random) == 0 {
                isPrefix = true
                let last = words[words.count - 1]
                words[words.count - 1] = String(last.prefix(Int.random(in: 1...max(1, last.count), using: &random)))
            }
            units.append(
                GeneratedUnit(
                    words: words, isPrefix: isPrefix, excluded: index > 0 && Int.random(in: 0..<3, using: &random) == 0)
            )
        }
        return units
    }

    /// Compares every route with the reference for `queries` random queries (`NOT TEXT`, which reads
    /// every row's text, unless `scans` is false).
    func check<T: Object, Key: Hashable & Comparable>(
        _ results: Results<T>, property: String, key: (T) -> Key, reference: Reference<Key>, queries: Int,
        scans: Bool = true, random: inout SplitMix64, where context: String
    ) throws {
        for _ in 0..<queries {
            let units = Self.query(&random)
            let text = units.map(\.text).joined(separator: " ")
            let expected = reference.ranked(units)
            let keysInOrder = expected.map(\.key).sorted()
            guard
                !expected.isEmpty
                    || units.contains(where: {
                        !$0.excluded && !reference.tokenizer.tokens(of: $0.words.joined(separator: " ")).isEmpty
                    })
            else {
                #expect(throws: StoreError.self) { try results.where("\(property) TEXT $0", text) }
                continue
            }
            let viaIndex = try results.where("\(property) TEXT $0", text)
            #expect(viaIndex.queryPlan.access == .fullTextIndex(property: property))
            #expect(viaIndex.map(key) == keysInOrder, "TEXT \(text) \(context)")
            if scans {
                let viaScan = try results.where("NOT (\(property) TEXT $0)", text)
                #expect(Set(viaScan.map(key)) == Set(reference.texts.keys).subtracting(keysInOrder), "NOT TEXT \(text)")
            }
            let ranked = try searched(results, property: property, text)
            let scored = try ranked.scored()
            #expect(scored.map { key($0.object) } == expected.map(\.key), "search \(text) \(context)")
            for (got, want) in zip(scored, expected) where abs(got.score - want.score) > 1e-9 * max(1, abs(want.score))
            {
                Issue.record("score \(got.score) != \(want.score) for \(text) \(context)")
                break
            }
            let k = Int.random(in: 1...5, using: &random)
            #expect(
                try searched(results, property: property, text).prefix(k).map(key)
                    == Array(expected.prefix(k).map(\.key)), "top \(k) of \(text)")
            if viaIndex.map(key) != keysInOrder { return }
        }
    }

    private func searched<T: Object>(_ results: Results<T>, property: String, _ text: String) throws -> Results<T> {
        if let articles = results as? Results<Article> { return try articles.search(\.body, text) as! Results<T> }
        return try (results as! Results<Memo>).search(\.text, text) as! Results<T>
    }

    /// Many documents over few words: each term's postings span many blocks, so bulk writes cut
    /// streams into blocks, later writes join a term's last block and start new ones, and edits in
    /// the middle merge and split blocks. After each write the index answers as the reference does.
    @Test func termsSpanningManyBlocksMatchTheReference() throws {
        PostingBlock.targetBytes = 120  // any size is valid (other tests running meanwhile included)
        defer { PostingBlock.targetBytes = 1_600 }
        var random = SplitMix64(state: 9)
        let fixture = Fixture([Article.self, Memo.self])
        let store = try Store(configuration: fixture.configuration)
        var articles = Reference<Int>()
        var memos = Reference<String>()
        for round in 0..<10 {
            try store.write {
                let bulk = round < 3 ? 150 : 40
                for _ in 0..<bulk {
                    // Round 0-2: new documents at the end (appends, joins); later: anywhere (merges).
                    let id = round < 3 ? articles.texts.count + 1 : Int.random(in: 1...500, using: &random)
                    let text = Self.text(&random)
                    if round >= 3, Int.random(in: 0..<4, using: &random) == 0 {
                        if let article = store.object(ofType: Article.self, forPrimaryKey: id) {
                            try store.delete(article)
                            articles.set(id, nil)
                        }
                        if let memo = store.object(ofType: Memo.self, forPrimaryKey: "m\(id)") {
                            try store.delete(memo)
                            memos.set("m\(id)", nil)
                        }
                        continue
                    }
                    let article = Article()
                    article.id = id
                    article.body = text ?? ""
                    try store.add(article, update: .modified)
                    articles.set(id, text ?? "")
                    let memo = Memo()
                    memo.name = "m\(id)"
                    memo.text = text
                    try store.add(memo, update: .all)
                    memos.set("m\(id)", text)
                }
            }
            try store.verify()
            try check(
                store.objects(Article.self), property: "body", key: \.id, reference: articles, queries: 4,
                random: &random, where: "after write \(round)")
            try check(
                store.objects(Memo.self), property: "text", key: \.name, reference: memos, queries: 4,
                random: &random, where: "after write \(round)")
        }
        let index = try #require(try store.core.binding(for: Article.self).derived.fullText.first)
        let blocks = try store.core.count(index.terms)
        #expect(blocks > 4 * Self.vocabulary.count, "terms span several blocks (\(blocks) entries)")
    }

    /// Random adds, edits and deletes in random writes; after each write (and inside some), the
    /// index answers as the reference does.
    @Test(arguments: [1, 2, 3] as [UInt64]) func randomEditsMatchTheReference(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([Article.self, Memo.self])
        let store = try Store(configuration: fixture.configuration)
        var articles = Reference<Int>()
        var memos = Reference<String>()
        for round in 0..<40 {
            try store.write {
                for _ in 0..<Int.random(in: 1...25, using: &random) {
                    let id = Int.random(in: 1...60, using: &random)
                    let text = Self.text(&random)
                    let memoName = "m\(id)"
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0, 1:  // add or update
                        let article = Article()
                        article.id = id
                        article.body = text ?? ""
                        try store.add(article, update: .modified)
                        articles.set(id, text ?? "")
                        let memo = Memo()
                        memo.name = memoName
                        memo.text = text
                        try store.add(memo, update: .all)
                        memos.set(memoName, text)
                    case 2:  // a managed object's setter
                        if let article = store.object(ofType: Article.self, forPrimaryKey: id) {
                            article.body = text ?? ""
                            articles.set(id, text ?? "")
                        }
                        if let memo = store.object(ofType: Memo.self, forPrimaryKey: memoName) {
                            memo.text = text
                            memos.set(memoName, text)
                        }
                    case 3:  // delete
                        if let article = store.object(ofType: Article.self, forPrimaryKey: id) {
                            try store.delete(article)
                            articles.set(id, nil)
                        }
                        if let memo = store.object(ofType: Memo.self, forPrimaryKey: memoName) {
                            try store.delete(memo)
                            memos.set(memoName, nil)
                        }
                    default:  // a query inside the write sees its changes
                        try check(
                            store.objects(Article.self), property: "body", key: \.id, reference: articles, queries: 1,
                            random: &random, where: "inside write \(round)")
                    }
                }
            }
            try store.verify()  // the index's postings and statistics equal what the rows imply
            try check(
                store.objects(Article.self), property: "body", key: \.id, reference: articles, queries: 8,
                random: &random, where: "after write \(round)")
            try check(
                store.objects(Memo.self), property: "text", key: \.name, reference: memos, queries: 8,
                random: &random, where: "after write \(round)")
        }
    }
}
