import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Han and kana as overlapping pairs of characters (a run of one as itself), other text as
/// StandardTokenizer reads it: what a search in Chinese or Japanese uses, where nothing separates words.
struct BigramTokenizer: TextTokenizer {
    let name = "test.bigram.v1"

    static func isIdeographic(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy {
            (0x3040...0x30FF).contains($0.value) || (0x4E00...0x9FFF).contains($0.value)
        }
    }

    func tokens(of text: String) -> [TextToken] {
        var tokens: [TextToken] = []
        var run: [Character] = []
        var other = ""
        func flush() {
            for token in StandardTokenizer().tokens(of: other) {
                tokens.append(TextToken(term: token.term, position: tokens.count))
            }
            other = ""
            for start in run.indices.dropLast() {
                tokens.append(TextToken(term: String(run[start...start + 1]), position: tokens.count))
            }
            if run.count == 1 { tokens.append(TextToken(term: String(run), position: tokens.count)) }
            run = []
        }
        for character in text {
            if Self.isIdeographic(character) {
                if !other.isEmpty { flush() }
                run.append(character)
            } else {
                if !run.isEmpty { flush() }
                other.append(character)
            }
        }
        flush()
        return tokens
    }
}

/// Gives what the index must repair: words split at spaces, given last first (positions out of
/// order); `car` with the synonym `auto` at its position; `dup` twice; `neg` at a negative
/// position; a word with `@` with a NUL in its place; `x…` with an empty term and a lone NUL beside it.
struct QuirkyTokenizer: TextTokenizer {
    let name = "test.quirky.v1"

    func tokens(of text: String) -> [TextToken] {
        var tokens: [TextToken] = []
        for (position, word) in text.split(separator: " ").enumerated() {
            let word = word.lowercased()
            tokens.append(TextToken(term: word.replacingOccurrences(of: "@", with: "\0"), position: position))
            switch word {
            case "car": tokens.append(TextToken(term: "auto", position: position))
            case "dup": tokens.append(TextToken(term: "dup", position: position))
            case "neg": tokens[tokens.count - 1].position = -5
            case _ where word.hasPrefix("x"):
                tokens.append(TextToken(term: "", position: position))
                tokens.append(TextToken(term: "\0", position: position))
            default: break
            }
        }
        return tokens.reversed()
    }
}

/// Every word as one letter-folded term, under another name than BigramTokenizer's: a file written
/// with one and opened with the other rebuilds its index.
struct UnigramTokenizer: TextTokenizer {
    let name = "test.unigram.v1"

    func tokens(of text: String) -> [TextToken] {
        text.map(String.init).filter { $0 != " " }.enumerated().map { TextToken(term: $1.lowercased(), position: $0) }
    }
}

final class Haiku: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: .fullText(tokenizer: BigramTokenizer())) var text: String
}

final class Quirk: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted(indexed: .fullText(tokenizer: QuirkyTokenizer())) var text: String?
}

enum UnigramModel {
    final class Haiku: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(indexed: .fullText(tokenizer: UnigramTokenizer())) var text: String
    }
}

/// A tokenizer of the app's (`@Persisted(indexed: .fullText(tokenizer:))`): its tokens kept by the
/// rules `TextTokenizer` states, checked against a plain reference; its name recorded in the file.
@Suite(.fixtureChecks, .offThePool) struct CustomTokenizerTests {
    /// The reference: the rules of `TextTokenizer` applied plainly (not `IndexTokenizer.kept`).
    static func kept(_ tokens: [TextToken]) -> [TextToken] {
        var result: [TextToken] = []
        let cleaned = tokens.map {
            TextToken(term: $0.term.replacingOccurrences(of: "\0", with: ""), position: max($0.position, 0))
        }
        let ordered = cleaned.enumerated().filter { !$0.element.term.isEmpty }.sorted {
            ($0.element.position, $0.offset) < ($1.element.position, $1.offset)
        }
        for (_, token) in ordered where !result.contains(token) { result.append(token) }
        return result
    }

    @Test func tokensAreKeptByTheStatedRules() {
        let tokens = QuirkyTokenizer().tokens(of: "neg car dup x1 a@b plain")
        let kept = IndexTokenizer(custom: QuirkyTokenizer()).tokens(of: "neg car dup x1 a@b plain")
        #expect(kept == Self.kept(tokens))
        #expect(
            kept.map { "\($0.term)@\($0.position)" } == [
                "neg@0", "auto@1", "car@1", "dup@2", "x1@3", "ab@4", "plain@5",
            ])
        // Standard: what the standard tokenizer gives, through its byte path too.
        var scratch = TokenizerScratch()
        var terms: [String] = []
        let standard = IndexTokenizer(custom: StandardTokenizer(stopWords: ["plain"]))
        Array("Databases and plain cafés".utf8).withUnsafeBytes { text in
            standard.forEachTerm(inUTF8: text, scratch: &scratch) { term, position in
                terms.append("\(String(decoding: term, as: UTF8.self))@\(position)")
            }
        }
        #expect(terms == ["databas@0", "and@1", "cafe@3"])
        #expect(standard.name.hasPrefix("standard.stop-words-"))
        #expect(
            StandardTokenizer(stemming: false, stopWords: StandardTokenizer.englishStopWords).name
                == "standard.unstemmed.english-stop-words")
    }

    @Test func bigramsFindWordsThatNothingSeparates() throws {
        let fixture = Fixture([Haiku.self])
        let store = try Store(configuration: fixture.configuration)
        let texts = [1: "東京都に住む", 2: "京の都", 3: "古池や蛙飛び込む水の音", 4: "Kyoto 京都 databases", 5: "都"]
        try store.write {
            for (id, text) in texts {
                try store.create(Haiku.self, value: ["id": id, "text": text])
            }
        }
        let haiku = store.objects(Haiku.self)
        let found = try haiku.where("text TEXT '京都'")
        #expect(found.queryPlan.access == .fullTextIndex(property: "text"))
        #expect(found.map(\.id).sorted() == [1, 4])
        #expect(try haiku.where("text TEXT '東京 -住む'").map(\.id) == [])
        #expect(try haiku.where("text TEXT 'database 京都'").map(\.id) == [4])
        #expect(try haiku.where("text TEXT '都'").map(\.id) == [5])  // a run of one is its own term
        #expect(try haiku.where("text TEXT '飛*'").map(\.id) == [3])
        #expect(try haiku.search(\.text, "京都").map(\.id).sorted() == [1, 4])
        #expect(try haiku.where("NOT text TEXT '京都'").map(\.id).sorted() == [2, 3, 5])
        try store.verify()
        let index = try #require(try store.core.binding(for: Haiku.self).derived.fullText.first)
        #expect(index.settings.tokenizerName == "test.bigram.v1")
    }

    /// A file written with one tokenizer and opened with a model naming another: the index is
    /// rebuilt with the new one (an index change, no schema version), and back again.
    @Test func anotherTokenizerRebuildsTheIndex() throws {
        let fixture = Fixture([Haiku.self])
        do {
            let store = try Store(configuration: fixture.configuration)
            try store.write {
                try store.create(Haiku.self, value: [1, "京都"])
                try store.create(Haiku.self, value: [2, "都京"])
            }
            #expect(try store.objects(Haiku.self).where("text TEXT '京都'").map(\.id) == [1])
        }
        var unigrams = fixture.configuration
        unigrams.objectTypes = [UnigramModel.Haiku.self]
        do {
            let store = try Store(configuration: unigrams)
            try store.verify()
            // Each character a term: both hold 京 and 都; the phrase still tells them apart.
            #expect(try store.objects(UnigramModel.Haiku.self).where("text TEXT '京 都'").map(\.id).sorted() == [1, 2])
            #expect(try store.objects(UnigramModel.Haiku.self).where("text TEXT '\"京都\"'").map(\.id) == [1])
            try store.write { try store.create(UnigramModel.Haiku.self, value: [3, "京"]) }
        }
        let store = try Store(configuration: fixture.configuration)
        try store.verify()
        #expect(try store.objects(Haiku.self).where("text TEXT '京'").map(\.id) == [3])
    }

    /// A file whose index names a tokenizer this process has not declared (a tool opening it without
    /// the app's model): its queries and its check are refused, typed, and the file is left as it was.
    @Test func aTokenizerThisProcessLacksIsATypedError() throws {
        struct Unknown: TextTokenizer {
            let name = "test.unknown.\(UUID().uuidString)"
            func tokens(of text: String) -> [TextToken] { BigramTokenizer().tokens(of: text) }
        }
        let unknown = Unknown()
        let fixture = Fixture([Haiku.self])
        let path = fixture.configuration.fileURL!.path
        do {
            let store = try Store(configuration: fixture.configuration)
            try store.write { try store.create(Haiku.self, value: [1, "東京都"]) }
        }
        // The file names the bigram tokenizer; name one in the file this process has never registered.
        #expect(TokenizerRegistry.tokenizer(named: unknown.name) == nil)
        try rewriteTokenizerName(in: fixture, to: unknown.name)
        let dynamic = try DynamicStore(path: path, encryptionKey: fixture.configuration.encryptionKey)
        #expect(try dynamic.count(ofType: "Haiku") == 1)
        #expect {
            try dynamic.objects(ofType: "Haiku", where: "text TEXT '東京'")
        } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains(unknown.name) && message.contains("Haiku.text")
        }
        #expect {
            try dynamic.verify()
        } throws: { error in
            guard case .schemaMismatch(let message) = error as? StoreError else { return false }
            return message.contains(unknown.name)
        }
        let destination = fixture.directory.appendingPathComponent("salvaged.strata")
        #expect(throws: StoreError.self) {
            try Store.salvage(
                from: fixture.configuration.fileURL!, to: destination,
                encryptionKey: fixture.configuration.encryptionKey)
        }
        // Once the process declares it (a model naming it would): everything answers.
        _ = TokenizerRegistry.register(unknown)
        #expect(try dynamic.objects(ofType: "Haiku", where: "text TEXT '東京'").count == 1)
        _ = try dynamic.verify()
    }

    /// Two tokenizer types under one name would read one index two ways: the second traps, naming both.
    @Test func twoTokenizersOfOneNameTrap() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            struct Impostor: TextTokenizer {
                let name = "test.bigram.v1"
                func tokens(of text: String) -> [TextToken] { [] }
            }
            _ = PropertyIndex.fullText(tokenizer: BigramTokenizer())
            _ = PropertyIndex.fullText(tokenizer: Impostor())
        }
        let output = standardError(of: result)
        #expect(output.contains("BigramTokenizer") && output.contains("Impostor"), "\(output)")
        #expect(output.contains("both named \"test.bigram.v1\""), "\(output)")
    }

    /// Sets the tokenizer name the file's schema records for Haiku.text, in a write of its own.
    private func rewriteTokenizerName(in fixture: Fixture, to name: String) throws {
        let store = try Store(configuration: fixture.configuration)
        let meta = try #require(
            try store.core.environment.withTableRegistry { (registry) throws(StoreError) in registry[TableName.meta] })
        try store.write {
            let key = Array(MetaKey.schema.utf8)
            let bytes = try #require(
                try key.withBytes { (raw) throws(LMDBError) in try store.core.get(meta, key: raw).map { Array($0) } })
            var schema = try bytes.withBytes { (raw) throws(StoreError) in try StoredSchema(decoding: raw) }
            let type = try #require(schema.types.firstIndex { $0.name == "Haiku" })
            schema.types[type].properties[1].fullText?.tokenizerName = name
            try store.core.session!.put(in: meta, key: key, value: try schema.encoded())
        }
    }
}
