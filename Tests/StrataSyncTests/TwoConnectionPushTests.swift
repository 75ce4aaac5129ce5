#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestModels
    import StrataTestSupport
    import Testing

    /// Batches of inserts go on two connections in turn, each inserting while the one before is
    /// under way and taking its numbers after it (`PreparedPush.claimingLast`, `PushFlight`).
    @Suite("a push on two connections", .serialized, .offThePool, .fixtureChecks)
    struct TwoConnectionPushTests {
        /// Alice's writes, `count` batches of 10 inserts, ids from `first`.
        static func insertBatches(_ client: SyncClient, count: Int, from first: Int = 1) async throws {
            for batch in 0..<count {
                try await client.write { store in
                    for id in (first + batch * 10)..<(first + batch * 10 + 10) {
                        try store.add(SyncItem(id: id, title: "alice's \(id)", count: id))
                    }
                }
            }
        }

        /// The client sequences of `client`'s changes' rows in the order of the server's numbers.
        static func clientSequences(_ scene: SyncScene, of client: SyncClient) async throws -> [Int] {
            let clientID = await client.sync.clientID
            return try scene.cluster.psql(
                "SELECT client_seq FROM strata.changes WHERE client_id = '\(clientID)' ORDER BY first_seq",
                database: scene.database
            ).split(separator: "\n").compactMap { Int($0) }
        }

        /// One row per batch, numbered in outbox order.
        static func expectInOrder(_ sequences: [Int], batches: Int) {
            #expect(sequences.count == batches)
            #expect(sequences == sequences.sorted())
            #expect(Set(sequences).count == sequences.count)
        }

        @Test("batches of inserts go on two connections in turn and land in outbox order")
        func inTurn() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            _ = try scene.cluster.psql("ALTER DATABASE \(scene.database) SET log_statement = 'all'")
            var server = scene.server
            server.batchSize = 10  // one write, one batch
            let alice = try await SyncClient(server: server)
            try await Self.insertBatches(alice, count: 8)
            try await alice.sync.push()
            #expect(alice.sync.state.pending == 0)

            let expected = (1...80).map {
                ItemState(id: $0, title: "alice's \($0)", count: $0, note: nil, owner: nil)
            }
            #expect(try scene.serverItems() == expected)
            Self.expectInOrder(try await Self.clientSequences(scene, of: alice), batches: 8)
            // After the first batch landed, the batches took their numbers last, from two backends.
            let claimsLast = scene.cluster.serverLog().split(separator: "\n").filter {
                $0.contains("WITH inserting_first AS")
            }
            let backends = Set(
                claimsLast.compactMap { $0.split(separator: "[").dropFirst().first?.prefix { $0 != "]" } })
            #expect(claimsLast.count >= 5)
            #expect(backends.count == 2)

            let bob = try await SyncClient(server: scene.server)
            try await bob.sync.synchronize()
            #expect(try await bob.items() == expected)
        }

        /// The third batch inserts objects bob stored first: its statement writes nothing (a unique
        /// violation undoes it), and the fourth, under way on the other connection, cannot take its
        /// numbers after it (its statement is undone too). The push goes on from the third, read as
        /// changes: its transaction replaces bob's objects, then the rest lands in order.
        @Test("a batch that writes nothing while the next is under way on the other connection: both land, in order")
        func failureWhileTheNextIsUnderWay() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let bob = try await SyncClient(server: scene.server)
            try await bob.write { store in
                for id in 25...27 { try store.add(SyncItem(id: id, title: "bob's \(id)", count: id)) }
            }
            try await bob.sync.push()
            var server = scene.server
            server.batchSize = 10
            let alice = try await SyncClient(server: server)
            try await Self.insertBatches(alice, count: 6)
            try await alice.sync.push()
            #expect(alice.sync.state.pending == 0)

            let expected = (1...60).map {
                ItemState(id: $0, title: "alice's \($0)", count: $0, note: nil, owner: nil)
            }
            #expect(try scene.serverItems() == expected)
            Self.expectInOrder(try await Self.clientSequences(scene, of: alice), batches: 6)
            try await bob.sync.synchronize()
            #expect(try await bob.items() == expected)
        }

        @Test("a second connection the server refuses: the push goes on one")
        func partnerRefused() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let admin = try await SyncClient(server: scene.server)
            try await admin.sync.synchronize()  // makes the tables
            _ = try scene.cluster.psql(
                "CREATE ROLE alice LOGIN PASSWORD 'alice-pw' CONNECTION LIMIT 1 IN ROLE strata_sync_client",
                database: scene.database)
            var server = scene.server
            server.username = "alice"
            server.password = "alice-pw"
            server.batchSize = 10
            let alice = try await SyncClient(server: server)
            try await Self.insertBatches(alice, count: 6)
            try await alice.sync.push()
            #expect(alice.sync.state.pending == 0)
            try await Self.insertBatches(alice, count: 3, from: 61)
            try await alice.sync.push()
            #expect(alice.sync.state.pending == 0)

            let expected = (1...90).map {
                ItemState(id: $0, title: "alice's \($0)", count: $0, note: nil, owner: nil)
            }
            #expect(try scene.serverItems() == expected)
            Self.expectInOrder(try await Self.clientSequences(scene, of: alice), batches: 9)
        }
    }
#endif
