import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A type with integer keys: its documents are numbered by its keys.
final class Article: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: .fullText) var body: String
    @Persisted var pinned: Bool
}

/// A type with String keys: its documents are numbered by the index.
final class Memo: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted(indexed: .fullText) var text: String?
}

@Suite(.fixtureChecks, .offThePool) struct FullTextIndexTests {
    private func articles(_ bodies: [String]) throws -> (Fixture, Store) {
        let fixture = Fixture([Article.self, Memo.self])
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for (id, body) in bodies.enumerated() {
                let article = Article()
                article.id = id + 1
                article.body = body
                article.pinned = id % 2 == 0
                try store.add(article)
            }
        }
        return (fixture, store)
    }

    @Test func textOperatorFindsWordsPrefixesPhrasesAndExclusions() throws {
        let (_, store) = try articles([
            "Swift is a fast database language",  // 1
            "An object database for Swift on Linux",  // 2
            "SQLite is a database; Swift talks to SQLite",  // 3
            "Databases of objects",  // 4
            "Nothing to see here",  // 5
        ])
        let all = store.objects(Article.self)
        #expect(try all.where("body TEXT $0", "swift database").map(\.id) == [1, 2, 3])
        #expect(try all.where("body TEXT $0", "swift database -sqlite").map(\.id) == [1, 2])
        #expect(try all.where("body TEXT 'data*'").map(\.id) == [1, 2, 3, 4])
        #expect(try all.where("body TEXT $0", "\"object database\"").map(\.id) == [2])
        #expect(try all.where("body TEXT $0", "\"database object\"").map(\.id) == [])
        #expect(try all.where("body TEXT $0", "DATABASES").map(\.id) == [1, 2, 3, 4])  // folded, stemmed
        #expect(all.where { $0.body.matches("object* -linux") }.map(\.id) == [4])
        #expect(try all.where("body TEXT 'database' AND pinned == true").map(\.id) == [1, 3])
        #expect(try all.where("NOT body TEXT 'database'").map(\.id) == [5])
        #expect(try all.where("body TEXT $0", "swift").queryPlan.access == .fullTextIndex(property: "body"))
    }

    @Test func searchRanksByBM25() throws {
        let (_, store) = try articles([
            "database",
            "database database database other words here",
            "a long text that mentions the database once among very many other words indeed",
            "unrelated",
        ])
        let found = try store.objects(Article.self).search(\.body, "database")
        #expect(found.map(\.id) == [2, 1, 3])
        let scored = try found.scored()
        #expect(scored.map(\.object.id) == [2, 1, 3])
        #expect(zip(scored, scored.dropFirst()).allSatisfy { $0.score >= $1.score })
        #expect(try store.objects(Article.self).search(\.body, "database").prefix(1).map(\.id) == [2])
        #expect(try store.objects(Article.self).where { $0.pinned }.search(\.body, "database").map(\.id) == [1, 3])
    }

    @Test func propertyWithoutIndexIsInvalidArgument() throws {
        let fixture = Fixture([Person.self, Article.self, Memo.self])
        let store = try Store(configuration: fixture.configuration)
        #expect(throws: StoreError.self) { try store.objects(Person.self).where("name TEXT 'x'") }
        do {
            _ = try store.objects(Person.self).where("name TEXT 'x'")
        } catch {
            guard case .invalidArgument(let message) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(message.contains("Person.name has no full-text index"))
        }
        #expect(throws: StoreError.self) { try store.objects(Article.self).where("body TEXT $0", "\"open") }
        #expect(throws: StoreError.self) { try store.objects(Article.self).where("body TEXT $0", "-only") }
        #expect(throws: StoreError.self) { try store.objects(Article.self).search(\.body, "") }
    }
}
