import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A map that fills while a write changes a search index: the write fails with `.mapFull`, none of
/// it is stored, each index still equals its rows, and the next write is stored.
@Suite(.fixtureChecks, .offThePool) struct SearchMapFullTests {
    private static let words = (0..<300).map { "word\($0)" }

    private func add(_ ids: Range<Int>, to store: Store) throws {
        var source = VectorSource(seed: 11, dimensions: 16)
        for id in 0..<ids.upperBound {
            let vector = source.vector()
            guard ids.contains(id) else { continue }
            let passage = Passage()
            passage.id = id
            passage.embedding = vector
            passage.group = id % 3
            try store.add(passage)
            let article = Article()
            article.id = id
            article.body = (0..<6).map { Self.words[(id * 7 + $0 * 31) % Self.words.count] }.joined(separator: " ")
            try store.add(article)
        }
    }

    /// With `pipelined`, the write's new texts go to the full-text pipeline's worker in small batches
    /// from the first, and pending postings are written between its turns (`FullTextPipeline`).
    @discardableResult
    private func pipeline(_ store: Store, _ pipelined: Bool) throws -> FullTextPipeline {
        let changes = try #require(store.core.session).fullTextChanges
        if pipelined {
            changes.pipeline.startAfter = 0
            changes.pipeline.batchDocuments = 16
            changes.flushBytes = 2_048
        }
        return changes.pipeline
    }

    /// Both indexes answer as a plain reading of the rows does.
    private func expectIndexesEqualTheirRows(_ store: Store) throws {
        try store.verify()
        let articles = Array(store.objects(Article.self))
        for word in Self.words.prefix(20) {
            let expected = Set(articles.filter { $0.body.split(separator: " ").contains(Substring(word)) }.map(\.id))
            #expect(try Set(store.objects(Article.self).where("body TEXT $0", word).map(\.id)) == expected, "\(word)")
        }
        let passages = store.objects(Passage.self).map { ($0.id, Array($0.embedding)) }
        var queries = VectorSource(seed: 12, dimensions: 16)
        var hits = 0
        for _ in 0..<20 {
            let query = queries.vector()
            let truth = VectorReference.nearest(query, k: 5, among: passages, metric: .cosine).map(\.key)
            // A broad search: every node reachable, every answer the exact one.
            let found = try store.objects(Passage.self).nearest(to: query, k: 5, by: \.embedding, ef: 400).map(\.id)
            hits += Set(found).intersection(truth).count
        }
        #expect(hits == 100, "recall \(hits) of 100")
    }

    @Test(arguments: [0, 5, 60, 700], [false, true])
    func aMapFilledWhileVectorsAndTextsAreAddedLosesNothing(afterPuts puts: Int, pipelined: Bool) throws {
        let fixture = Fixture([Passage.self, Article.self])
        let store = try Store(configuration: fixture.configuration)
        try store.write { try add(0..<300, to: store) }
        defer { LMDBFaults.clear() }
        LMDBFaults.inject(.mapFull, into: .put, after: puts)
        LMDBFaults.inject(.mapFull, into: .cursorPut, after: puts)
        var used: FullTextPipeline?
        #expect(throws: StoreError.mapFull) {
            try store.write {
                used = try pipeline(store, pipelined)
                try add(300..<1_300, to: store)
            }
        }
        // After 700 puts the write has added enough texts to have handed batches over.
        if pipelined, puts >= 700, let used, used.enabled {
            #expect(used.batchesStarted > 0, "the worker indexed batches")
        }
        LMDBFaults.clear()
        #expect(store.objects(Passage.self).count == 300)
        #expect(store.objects(Article.self).count == 300)
        try expectIndexesEqualTheirRows(store)
        try store.write { try add(300..<1_300, to: store) }
        #expect(store.objects(Passage.self).count == 1_300)
        try expectIndexesEqualTheirRows(store)
    }

    /// The full-text postings a write holds are written when it commits: the map fills then.
    @Test(arguments: [0, 10, 200], [false, true])
    func aMapFilledWhilePendingPostingsAreWrittenLosesNothing(afterPuts puts: Int, pipelined: Bool) throws {
        let fixture = Fixture([Passage.self, Article.self])
        let store = try Store(configuration: fixture.configuration)
        try store.write { try add(0..<300, to: store) }
        defer { LMDBFaults.clear() }
        var used: FullTextPipeline?
        #expect(throws: StoreError.mapFull) {
            try store.write {
                used = try pipeline(store, pipelined)
                try add(300..<1_300, to: store)
                LMDBFaults.inject(.mapFull, into: .put, after: puts)
                LMDBFaults.inject(.mapFull, into: .cursorPut, after: puts)
            }
        }
        if pipelined, let used, used.enabled { #expect(used.batchesStarted > 0, "the worker indexed batches") }
        LMDBFaults.clear()
        #expect(store.objects(Article.self).count == 300)
        try expectIndexesEqualTheirRows(store)
        try store.write { try add(300..<1_300, to: store) }
        #expect(store.objects(Article.self).count == 1_300)
        try expectIndexesEqualTheirRows(store)
    }
}
