import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Writes large enough that their new documents are indexed on a second thread
/// (`FullTextPipeline`), with every other change a write can make between them: updates and
/// deletes of documents still in a batch, queries inside the write, rows whose documents are
/// numbered, keys that come in descending order, a write that throws after its adds, pending
/// postings written between the turns (a small `flushBytes`). After each write (and
/// at the queries inside it) the index answers as the plain reference of `FullTextModelTests` does,
/// and `verify()` finds its postings and statistics equal to what the rows imply.
@Suite(.fixtureChecks, .offThePool) struct FullTextPipelineTests {
    struct Abandoned: Error {}

    @Test(arguments: [1, 2, 3] as [UInt64]) func largeWritesMatchTheReference(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let model = FullTextModelTests()
        let fixture = Fixture([Article.self, Memo.self])
        let store = try Store(configuration: fixture.configuration)
        var articles = FullTextModelTests.Reference<Int>()
        var memos = FullTextModelTests.Reference<String>()
        var nextID = 1
        var lowestID = 0
        var batches = 0
        for round in 0..<6 {
            let abandoning = round == 4
            let before = (articles, memos, nextID, lowestID)
            do {
                try store.write {
                    // Small batches, so that many pass between the interleaved changes.
                    let changes = try #require(store.core.session).fullTextChanges
                    let pipeline = changes.pipeline
                    pipeline.startAfter = Int.random(in: 0...300, using: &random)
                    pipeline.batchDocuments = Int.random(in: 8...96, using: &random)
                    // Writes 1, 3 and 5 also write the pending postings between the turns, often.
                    changes.flushBytes = round % 2 == 1 ? 256 << round : 64 << 20
                    let adds = Int.random(in: 500...1_000, using: &random)
                    for number in 0..<adds {
                        let text = FullTextModelTests.text(&random)
                        let id: Int
                        if round == 2 {  // below every key so far: documents come in descending order
                            lowestID -= 1
                            id = lowestID
                        } else if Int.random(in: 0..<150, using: &random) == 0, nextID > 1 {
                            id = Int.random(in: 1..<nextID, using: &random)  // an update (maybe of a pending one)
                        } else {
                            id = nextID
                            nextID += 1
                        }
                        let article = Article()
                        article.id = id
                        article.body = text ?? ""
                        try store.add(article, update: .modified)
                        articles.set(id, text ?? "")
                        switch Int.random(in: 0..<600, using: &random) {
                        case 0..<3:  // a delete, often of a document added moments ago
                            let victim = Int.random(in: max(1, nextID - 50)..<max(2, nextID), using: &random)
                            if let found = store.object(ofType: Article.self, forPrimaryKey: victim) {
                                try store.delete(found)
                                articles.set(victim, nil)
                            }
                        case 3..<5:  // a managed object's setter
                            if let found = store.object(ofType: Article.self, forPrimaryKey: nextID - 1) {
                                let edited = FullTextModelTests.text(&random)
                                found.body = edited ?? ""
                                articles.set(nextID - 1, edited ?? "")
                            }
                        case 5..<8:  // a row whose document the index numbers
                            let memo = Memo()
                            memo.name = "m\(Int.random(in: 0..<300, using: &random))"
                            memo.text = text
                            try store.add(memo, update: .all)
                            memos.set(memo.name, text)
                        case 8:  // a query inside the write sees every document added so far
                            try model.check(
                                store.objects(Article.self), property: "body", key: \.id, reference: articles,
                                queries: 1, scans: false, random: &random, where: "inside write \(round) at \(number)")
                        default: break
                        }
                    }
                    if pipeline.enabled {
                        #expect(pipeline.batchesStarted > batches, "write \(round) gave its worker batches")
                    }
                    batches = pipeline.batchesStarted
                    if abandoning { throw Abandoned() }
                }
            } catch is Abandoned {
                (articles, memos, nextID, lowestID) = before
            }
            try store.verify()
            #expect(store.objects(Article.self).count == articles.texts.count)
            try model.check(
                store.objects(Article.self), property: "body", key: \.id, reference: articles, queries: 10,
                scans: round == 5, random: &random, where: "after write \(round)")
            try model.check(
                store.objects(Memo.self), property: "text", key: \.name, reference: memos, queries: 4,
                scans: false, random: &random, where: "after write \(round)")
        }
    }
}
