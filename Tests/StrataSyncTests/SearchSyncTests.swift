#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    @Suite("StrataSync keeps full-text and vector indexes", .serialized, .offThePool, .fixtureChecks)
    struct SearchSyncTests {
        /// Rounds of seeded random inserts, updates and deletes on one client; after each pull, the
        /// other client's full-text answers equal a plain scan of its rows, its nearest vectors equal
        /// exact search, and `verify()` finds both indexes agreeing with the rows.
        @Test("a pull keeps the puller's full-text and vector indexes equal to its rows")
        func pullsKeepTheIndexes() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let types: [Object.Type] = [SyncArticle.self]
            let alice = try await SyncClient(server: scene.server, fixture: Fixture(types), types: types)
            let bob = try await SyncClient(server: scene.server, fixture: Fixture(types), types: types)
            let words = ["swift", "database", "linux", "vector", "search", "sync", "index", "object"]
            var random = SplitMix64(state: 55)
            for round in 0..<4 {
                var edits: [(id: Int, body: String?, embedding: [Float])] = []
                for _ in 0..<25 {
                    let id = Int.random(in: 0..<30, using: &random)
                    let body =
                        Int.random(in: 0..<6, using: &random) == 0
                        ? nil
                        : (0..<Int.random(in: 1...5, using: &random)).map { _ in
                            words[Int.random(in: 0..<words.count, using: &random)]
                        }.joined(separator: " ")
                    let embedding = (0..<4).map { _ in Float(Int.random(in: -8...8, using: &random)) / 4 }
                    edits.append((id, body, embedding))
                }
                try await alice.write { store in
                    for edit in edits {
                        if let body = edit.body {
                            try store.create(
                                SyncArticle.self, value: ["id": edit.id, "body": body, "embedding": edit.embedding],
                                update: .modified)
                        } else if let gone = store.object(ofType: SyncArticle.self, forPrimaryKey: edit.id) {
                            try store.delete(gone)
                        }
                    }
                }
                try await alice.sync.synchronize()
                try await bob.sync.synchronize()
                let problems = try await bob.read { store -> [String] in
                    var problems: [String] = []
                    let articles = Array(store.objects(SyncArticle.self))
                    if articles.count < 10 { problems.append("round \(round): only \(articles.count) articles pulled") }
                    for word in words {
                        let found = Set(try store.objects(SyncArticle.self).search(\.body, word).map(\.id))
                        let scanned = Set(
                            articles.filter { $0.body.split(separator: " ").contains { $0 == word } }.map(\.id))
                        if found != scanned {
                            problems.append("round \(round) \(word): \(found.sorted()) != \(scanned.sorted())")
                        }
                    }
                    let query: [Float] = [0.5, -0.5, 1, 0]
                    // Euclidean distance, as `distances()` gives it.
                    func distance(_ vector: [Float]) -> Float {
                        zip(vector, query).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
                    }
                    let nearest = try store.objects(SyncArticle.self).nearest(to: query, k: 3, by: \.embedding)
                        .distances().map(\.distance)
                    let exact = Array(articles.map { distance($0.embedding) }.sorted().prefix(3))
                    if nearest.count != exact.count || zip(nearest, exact).contains(where: { abs($0 - $1) > 1e-5 }) {
                        problems.append("round \(round) nearest: \(nearest) != \(exact)")
                    }
                    try store.verify()
                    return problems
                }
                #expect(problems.isEmpty, "\(problems)")
                let aliceIDs = try await alice.read { store in store.objects(SyncArticle.self).map(\.id) }
                let bobIDs = try await bob.read { store in store.objects(SyncArticle.self).map(\.id) }
                #expect(aliceIDs == bobIDs)
            }
        }
    }
#endif
