import Foundation
import StrataTestSupport
import Testing

@testable import Strata

enum FullTextV1 {
    final class Article: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var body: String
        @Persisted var pinned: Bool
    }
}

/// Damaged index blocks, `verify()`, `salvage`, and migrations that add and drop the index.
@Suite(.fixtureChecks, .offThePool) struct FullTextIntegrityTests {
    static let bodies = (1...300).map { "note \($0) about swift and databases, number \($0 % 7) of a series" }

    private func store(_ fixture: Fixture) throws -> Store {
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for (offset, body) in Self.bodies.enumerated() {
                let article = Article()
                article.id = offset + 1
                article.body = body
                try store.add(article)
            }
        }
        return store
    }

    private func index(of store: Store) throws -> FullTextIndex {
        try #require(store.core.binding(for: Article.self).derived.fullText.first)
    }

    /// Rewrites the first block of `term` with `transform` applied to its bytes, in a write of its own.
    private func rewriteBlock(of term: String, in store: Store, _ transform: (inout [UInt8]) -> Void) throws {
        let index = try index(of: store)
        try store.write {
            let session = store.core.session!
            let start = Array(term.utf8) + [0]
            let (key, value) = try session.withIndexCursor(index.terms) { (cursor) throws(LMDBError) in
                let entry = try start.withBytes { (raw) throws(LMDBError) in try cursor.seek(atLeast: raw) }!
                return (Array(entry.key), Array(entry.value))
            }
            #expect(key.starts(with: start))
            var bytes = value
            transform(&bytes)
            try session.put(in: index.terms, key: key, value: bytes)
        }
    }

    @Test func aDamagedBlockIsCorruptedAndVerifyNamesTheIndex() throws {
        let fixture = Fixture([Article.self, Memo.self])
        let store = try store(fixture)
        try store.verify()
        try rewriteBlock(of: "swift", in: store) { $0.removeLast(3) }
        #expect {
            try store.verify()
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("full-text index of Article.body")
        }
        #expect {
            try store.objects(Article.self).search(\.body, "swift").scored()
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("full-text index of Article.body is damaged")
        }
        // A write that must change the damaged block fails typed, and writes nothing.
        let first = try #require(store.object(ofType: Article.self, forPrimaryKey: 1))
        #expect(throws: StoreError.self) { try store.write { try store.delete(first) } }
        #expect(store.objects(Article.self).count == 300)
        // Another term still answers.
        #expect(try store.objects(Article.self).where("body TEXT 'series -swiftly'").count == 300)
    }

    @Test func verifyFindsAPostingThatDiffersFromItsRow() throws {
        let fixture = Fixture([Article.self, Memo.self])
        let store = try store(fixture)
        // A block whose bytes decode, one posting's document length changed: only the rows can tell.
        try rewriteBlock(of: "seri", in: store) { bytes in
            bytes[12] -= 1  // the first posting's document length (after its distance and count)
        }
        #expect {
            try store.verify()
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("Article.body") && message.contains("differ")
        }
    }

    @Test func salvageRebuildsTheIndex() throws {
        let fixture = Fixture([Article.self, Memo.self])
        let expected: [Int]
        do {
            let store = try store(fixture)
            expected = try store.objects(Article.self).search(\.body, "number 3").map(\.id)
            try rewriteBlock(of: "swift", in: store) { $0 = [1, 2, 3] }
        }
        let destination = fixture.directory.appendingPathComponent("salvaged.strata")
        _ = try Store.salvage(
            from: fixture.configuration.fileURL!, to: destination, encryptionKey: fixture.configuration.encryptionKey)
        var configuration = fixture.configuration
        configuration.fileURL = destination
        let salvaged = try Store(configuration: configuration)
        try salvaged.verify()
        #expect(try salvaged.objects(Article.self).search(\.body, "number 3").map(\.id) == expected)
        #expect(try salvaged.objects(Article.self).where("body TEXT 'swift'").count == 300)
    }

    @Test func migrationsAddAndDropTheIndex() throws {
        let fixture = Fixture([FullTextV1.Article.self])
        do {
            let store = try Store(configuration: fixture.configuration)
            try store.write {
                for (offset, body) in Self.bodies.enumerated() {
                    let article = FullTextV1.Article()
                    article.id = offset + 1
                    article.body = body
                    try store.add(article)
                }
            }
            #expect(throws: StoreError.self) { try store.objects(FullTextV1.Article.self).where("body TEXT 'x'") }
        }
        // Adding the index builds it from the rows (no schema version needed: indexes are derived).
        var indexed = fixture.configuration
        indexed.objectTypes = [Article.self]
        do {
            let store = try Store(configuration: indexed)
            try store.verify()
            #expect(
                try store.objects(Article.self).where("body TEXT 'number 3'").map(\.id)
                    == (1...300).filter { $0 % 7 == 3 })
            try store.write { store.object(ofType: Article.self, forPrimaryKey: 3)!.body = "nothing" }
        }
        // Dropping it leaves the rows, and a TEXT query is refused again.
        do {
            let store = try Store(configuration: fixture.configuration)
            try store.verify()
            #expect(store.objects(FullTextV1.Article.self).count == 300)
            #expect(throws: StoreError.self) { try store.objects(FullTextV1.Article.self).where("body TEXT 'x'") }
            try store.write { store.object(ofType: FullTextV1.Article.self, forPrimaryKey: 4)!.body = "changed" }
        }
        // Added again: rebuilt from the rows as they are now.
        let store = try Store(configuration: indexed)
        try store.verify()
        #expect(try store.objects(Article.self).where("body TEXT 'changed'").map(\.id) == [4])
        #expect(try store.objects(Article.self).where("body TEXT 'nothing'").map(\.id) == [3])
    }
}
