import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Search results are Results like any other: notified, frozen, handed to another thread.
@Suite(.fixtureChecks, .offThePool) struct FullTextLiveTests {
    private func add(_ store: Store, _ id: Int, _ body: String) throws {
        let article = Article()
        article.id = id
        article.body = body
        try store.add(article, update: .modified)
    }

    @Test func searchResultsAreNotifiedInRankOrder() throws {
        let fixture = Fixture([Article.self, Memo.self])
        let store = try fixture.open()
        try store.write {
            try add(store, 1, "swift database with many other words around it")
            try add(store, 2, "swift")
            try add(store, 3, "nothing")
        }
        var changes: [CollectionChange<Results<Article>>] = []
        let token = try store.objects(Article.self).search(\.body, "swift").observe { changes.append($0) }
        try store.refresh()
        guard case .initial(let initial)? = changes.first else {
            Issue.record("no initial")
            return
        }
        #expect(initial.map(\.id) == [2, 1])
        try store.write {
            try add(store, 4, "swift swift")  // ranks first
            store.object(ofType: Article.self, forPrimaryKey: 2)!.body = "no longer"  // leaves
            try add(store, 3, "nothing at all")  // neither before nor after
        }
        try store.refresh()
        guard case .update(let results, let deletions, let insertions, _)? = changes.last else {
            Issue.record("no update")
            return
        }
        #expect(results.map(\.id) == [4, 1])
        #expect(deletions == [0])
        #expect(insertions == [0])
        #expect(changes.count == 2)
        token.invalidate()
    }

    @Test func frozenAndHandedOverSearchResultsKeepTheirQuery() throws {
        let fixture = Fixture([Article.self, Memo.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...20 { try add(store, id, String(repeating: "word ", count: id) + "swift") }
        }
        let live = try store.objects(Article.self).search(\.body, "swift").prefix(5)
        let frozen = try live.freeze()
        let expected = live.map(\.id)
        #expect(expected == [1, 2, 3, 4, 5])  // the shortest texts rank first
        try store.write { try add(store, 30, "swift") }
        #expect(frozen.map(\.id) == expected)
        #expect(live.map(\.id) == [30, 1, 2, 3, 4])
        let reference = try ThreadSafeReference(to: live)
        let configuration = fixture.configuration
        let handed = Unchecked(reference)
        let other = try DispatchQueue(label: "other").sync { () throws -> [Int] in
            let store = try Store(configuration: configuration)
            return try #require(try store.resolve(handed.value)).map(\.id)
        }
        #expect(other == [30, 1, 2, 3, 4])
        let scores = try frozen.scored().map(\.score)
        #expect(scores.count == 5 && zip(scores, scores.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test func queriesInsideAWriteSeeItsChanges() throws {
        let fixture = Fixture([Article.self, Memo.self])
        let store = try fixture.open()
        try store.write {
            try add(store, 1, "alpha beta")
            #expect(try store.objects(Article.self).where("body TEXT 'alpha'").map(\.id) == [1])
            try add(store, 2, "alpha gamma")
            store.object(ofType: Article.self, forPrimaryKey: 1)!.body = "beta"
            #expect(try store.objects(Article.self).where("body TEXT 'alpha'").map(\.id) == [2])
            try store.delete(store.object(ofType: Article.self, forPrimaryKey: 2)!)
            #expect(try store.objects(Article.self).where("body TEXT 'alpha'").isEmpty)
            try add(store, 3, "alpha")
        }
        #expect(try store.objects(Article.self).where("body TEXT 'alpha'").map(\.id) == [3])
        // An abandoned write leaves nothing in the index.
        try store.beginWrite()
        try add(store, 4, "alpha delta")
        try store.cancelWrite()
        #expect(try store.objects(Article.self).where("body TEXT 'delta'").isEmpty)
        try store.verify()
    }
}
