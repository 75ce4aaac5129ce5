import Foundation
import GRDB
import Strata

/// F1, F2: full-text search against SQLite's FTS5 (through GRDB) over the same documents: the
/// sections of the machine's English manual pages (`/usr/share/man/man*`, roff stripped), one
/// document per section, about 125,000 at full scale. FTS5's table uses `porter unicode61
/// remove_diacritics 2`, the tokenizer Strata's matches (Docs/Search.md).
///
/// F3: W1 (bulk insert, one write) of objects whose String property has a full-text index, against
/// the same objects without it.
public enum FullTextBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "F2", title: "build a full-text index: insert the corpus' documents, one write",
            peer: "GRDB FTS5 insert", goal: .ratio(1)),
        PeerWorkload(
            id: "F1", title: "1,000 two-word queries, the best 20 by BM25",
            peer: "GRDB FTS5 `MATCH … ORDER BY bm25 LIMIT 20`", goal: .ratio(1.5)),
    ]

    public static let writeWorkloads: [PeerWorkload] = [
        PeerWorkload(
            id: "F3", title: "W1 with a full-text property: bulk insert, one write",
            peer: "the same objects, no index", goal: .ratio(0.4))
    ]

    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        let corpus = try Corpus.load(documents: max(2_000, count / 8))
        report(
            "F corpus: \(corpus.documents.count) documents, \(corpus.bytes / 1_000_000) MB, "
                + "\(corpus.queries.count) queries")
        return try PeerComparison.run(
            workloads, name: "f", directory: directory, count: count, rounds: rounds,
            strata: { try StrataSearch(directory: $0, corpus: corpus) },
            peer: { try FTS5Search(directory: $0, corpus: corpus) }, report: report)
    }

    public static func runWrites(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        let names = TextBench.names(count: count)
        return try PeerComparison.run(
            writeWorkloads, name: "f3", directory: directory, count: count, rounds: rounds,
            strata: { try TextWrites(directory: $0, names: names, indexed: true) },
            peer: { try TextWrites(directory: $0, names: names, indexed: false) }, report: report)
    }
}

/// The documents and the queries both sides get.
struct Corpus {
    let documents: [String]
    let bytes: Int
    /// Two words each, both in many documents, so that every query has at least 20 matches.
    let queries: [String]

    static func load(documents limit: Int) throws -> Corpus {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "find /usr/share/man/man1 /usr/share/man/man2 /usr/share/man/man3 /usr/share/man/man5 "
                + "/usr/share/man/man7 /usr/share/man/man8 -name '*.gz' -print0 2>/dev/null | sort -z | "
                + "xargs -0 gzip -dc 2>/dev/null",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        var documents: [String] = []
        var current: [Substring] = []
        func flush() {
            let document = current.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            if document.utf8.count >= 40 { documents.append(document) }
            current.removeAll(keepingCapacity: true)
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if documents.count >= limit { break }
            if line.hasPrefix(".SH") || line.hasPrefix(".SS") || line.hasPrefix(".Sh") || line.hasPrefix(".Ss") {
                flush()
            }
            current.append(stripped(line))
        }
        if documents.count < limit { flush() }
        guard documents.count >= min(limit, 2_000) else {
            throw WorkloadError("F: the manual pages give \(documents.count) documents (is man-db's data installed?)")
        }
        return Corpus(
            documents: documents, bytes: documents.reduce(0) { $0 + $1.utf8.count },
            queries: queries(over: documents))
    }

    /// A roff line's text: a macro line's arguments (`.B word`), escapes removed.
    private static func stripped(_ line: Substring) -> Substring {
        var line = line
        if line.hasPrefix(".") || line.hasPrefix("'") {
            guard let space = line.firstIndex(of: " ") else { return "" }
            let macro = line[line.index(after: line.startIndex)..<space]
            guard
                ["B", "I", "BR", "IR", "RB", "RI", "BI", "IB", "SH", "SS", "TP", "IP", "Nm", "Nd", "It", "Fl", "Ar"]
                    .contains(String(macro))
            else { return "" }
            line = line[line.index(after: space)...]
        }
        guard line.contains("\\") else { return line }
        var result = ""
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "f": _ = iterator.next()  // a font change: \fB
            case "-": result.append("-")
            case "(":  // a two-letter glyph: \(em
                _ = iterator.next()
                _ = iterator.next()
                result.append(" ")
            default: result.append(" ")
            }
        }
        return Substring(result)
    }

    /// 1,000 pairs of lowercase ASCII words of five letters or more, each word in 2–20% of the
    /// documents and the pair together in at least 40 (counted on lowercase words, before stemming:
    /// stemming only adds matches), drawn with a fixed seed.
    private static func queries(over documents: [String]) -> [String] {
        var frequency: [Substring: Int] = [:]
        var words: [Set<Substring>] = []
        words.reserveCapacity(documents.count)
        for document in documents {
            var seen = Set<Substring>()
            for word in document.split(whereSeparator: { !$0.isLetter }) where word.count >= 5 {
                guard word.allSatisfy({ $0.isASCII && $0.isLowercase }) else { continue }
                seen.insert(word)
            }
            for word in seen { frequency[word, default: 0] += 1 }
            words.append(seen)
        }
        let common = frequency.filter {
            $0.value >= documents.count / 50 && $0.value <= documents.count / 5
        }.keys.sorted()
        var random = SplitMix64(seed: 71)
        var queries: [String] = []
        var attempts = 0
        while queries.count < 1_000, !common.isEmpty, attempts < 200_000 {
            attempts += 1
            let a = common[Int(random.next() % UInt64(common.count))]
            let b = common[Int(random.next() % UInt64(common.count))]
            guard a != b else { continue }
            var together = 0
            for set in words where set.contains(a) && set.contains(b) {
                together += 1
                if together >= 40 { break }
            }
            if together >= 40 { queries.append("\(a) \(b)") }
        }
        return queries
    }
}

/// A document of F1 and F2.
public final class SearchDocument: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: .fullText) public var body: String
}

private final class StrataSearch: PeerSide {
    let store: Store
    let corpus: Corpus

    init(directory: URL, corpus: Corpus) throws {
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("search.strata"), objectTypes: [SearchDocument.self])
        configuration.durability = .noSync
        store = try Store(configuration: configuration)
        self.corpus = corpus
    }

    func run(_ id: String, count: Int) throws -> Int {
        switch id {
        case "F2":
            try store.write {
                for (number, body) in corpus.documents.enumerated() {
                    let document = SearchDocument()
                    document.id = number + 1
                    document.body = body
                    try store.add(document)
                }
            }
            return store.objects(SearchDocument.self).count
        default:
            let documents = store.objects(SearchDocument.self)
            // The check: the queries answered. (The tokenizers differ at the edges, `max_files` is one
            // word here and two in FTS5's unicode61, so a count of matches may differ by a few.)
            var answered = 0
            for query in corpus.queries where try documents.search(\.body, query).prefix(20).count > 0 {
                answered += 1
            }
            return answered
        }
    }
}

private final class FTS5Search: PeerSide {
    let queue: DatabaseQueue
    let corpus: Corpus

    init(directory: URL, corpus: Corpus) throws {
        queue = try GRDBBench.openQueue(path: directory.appendingPathComponent("search.sqlite").path)
        self.corpus = corpus
        try queue.write { db in
            try db.execute(
                sql: "CREATE VIRTUAL TABLE document USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')"
            )
        }
    }

    func run(_ id: String, count: Int) throws -> Int {
        switch id {
        case "F2":
            return try queue.write { db in
                let statement = try db.makeStatement(sql: "INSERT INTO document (rowid, body) VALUES (?, ?)")
                for (number, body) in corpus.documents.enumerated() {
                    try statement.execute(arguments: [number + 1, body])
                }
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0
            }
        default:
            return try queue.read { db in
                let statement = try db.makeStatement(
                    sql: "SELECT rowid FROM document WHERE document MATCH ? ORDER BY bm25(document) LIMIT 20")
                var answered = 0
                for query in corpus.queries where try !Int.fetchAll(statement, arguments: [query]).isEmpty {
                    answered += 1
                }
                return answered
            }
        }
    }
}

/// A W1 object with a full-text property.
public final class IndexedTextItem: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var score: Double
    @Persisted(indexed: .fullText) public var name: String
}

private final class TextWrites: PeerSide {
    let store: Store
    let names: [String]
    let indexed: Bool

    init(directory: URL, names: [String], indexed: Bool) throws {
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("writes.strata"),
            objectTypes: [indexed ? IndexedTextItem.self : Item.self])
        configuration.durability = .noSync
        store = try Store(configuration: configuration)
        self.names = names
        self.indexed = indexed
    }

    func run(_ id: String, count: Int) throws -> Int {
        try store.write {
            for (number, name) in names.enumerated() {
                if indexed {
                    let item = IndexedTextItem()
                    item.id = number
                    item.score = Double(number)
                    item.name = name
                    try store.add(item)
                } else {
                    try store.add(Item(id: number, score: Double(number), name: name))
                }
            }
        }
        return indexed ? store.objects(IndexedTextItem.self).count : store.objects(Item.self).count
    }
}
