#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestModels
    import StrataTestSupport
    import Testing

    /// A batch without access rules goes as one statement (`PreparedPush.oneStatement`).
    @Suite("a push as one statement", .serialized, .offThePool, .fixtureChecks)
    struct PushRaceTests {
        /// A push is one statement whose snapshot is taken before it waits for the sequence: it must
        /// not write what it read before the other push committed (the object it updates was
        /// replaced meanwhile: an update of the old row would change nothing).
        @Test("an update that waited for another push applies to the object that push made again")
        func updateWaitsForReplacement() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let client = try await SyncClient(server: scene.server)
            try await client.write { try $0.add(SyncItem(id: 1, title: "first", count: 1)) }
            try await client.sync.synchronize()

            // Another writer takes the sequence (as a push does) and replaces item 1, and waits.
            let other = try PsqlSession(scene.cluster, database: scene.database)
            defer { other.close() }
            try other.send(
                """
                BEGIN;
                UPDATE strata.sequence SET last_seq = last_seq + 1 WHERE id = 1;
                DELETE FROM strata."SyncItem" WHERE id = 1;
                INSERT INTO strata."SyncItem" (id, title, count) VALUES (1, 'replaced', 5);
                """)
            // The other writer holds the sequence.
            try #require(
                try await waitUntil {
                    try scene.cluster.psql(
                        "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'",
                        database: scene.database) == "1"
                })

            try await client.write { $0.object(ofType: SyncItem.self, forPrimaryKey: 1)!.title = "mine" }
            async let pushed: Void = client.sync.push()
            // The push waits for the sequence.
            try #require(
                try await waitUntil {
                    try scene.cluster.psql(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
                        database: scene.database) == "1"
                })
            try other.send("COMMIT;")
            try await pushed

            // The update went to the row the other writer made: its title set, its count kept.
            let row = try scene.cluster.psql(
                "SELECT title, count FROM strata.\"SyncItem\" WHERE id = 1", database: scene.database)
            #expect(row == "mine|5")
        }

        /// A batch of inserts of one type goes by the bulk way (`BulkInsert`): column arrays made in
        /// one pass, the rows' images read from the changes' payloads.
        @Test("a batch of inserts of one type: every row and its image as the app wrote it; other batches after it")
        func bulkInsertThenOthers() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            try await alice.write { store in
                for id in 1...50 {
                    try store.add(SyncItem(id: id, title: "item \(id)", count: id, note: id == 3 ? "n" : nil))
                }
            }
            try await alice.sync.push()
            // Each row's image is the payload of the change that inserted it.
            let imaged = try scene.cluster.psql(
                """
                SELECT count(*) FROM strata."SyncItem" AS t
                WHERE EXISTS (SELECT FROM strata.change_log AS l WHERE l.kind = 'insert' AND l.payload = t._strata_image)
                """, database: scene.database)
            #expect(imaged == "50")
            // Then a batch that deletes, inserts again and updates (not only inserts), and a batch of
            // inserts that another client made first (the server's rows are replaced).
            try await alice.write { try $0.delete($0.object(ofType: SyncItem.self, forPrimaryKey: 7)!) }
            try await alice.write { store in
                try store.add(SyncItem(id: 7, title: "seven again", count: 70))
                store.object(ofType: SyncItem.self, forPrimaryKey: 8)!.title = "eight"
            }
            try await alice.sync.push()
            try await bob.write { store in
                for id in 49...52 { try store.add(SyncItem(id: id, title: "bob's \(id)", count: id)) }
            }
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()

            var expected = (1...48).map {
                ItemState(id: $0, title: "item \($0)", count: $0, note: $0 == 3 ? "n" : nil, owner: nil)
            }
            expected[6] = ItemState(id: 7, title: "seven again", count: 70, note: nil, owner: nil)
            expected[7] = ItemState(id: 8, title: "eight", count: 8, note: nil, owner: nil)
            expected += (49...52).map { ItemState(id: $0, title: "bob's \($0)", count: $0, note: nil, owner: nil) }
            #expect(try scene.serverItems() == expected)
            #expect(try await alice.items() == expected)
            #expect(try await bob.items() == expected)
        }

        /// A batch's statement goes right behind the one under way (`StoreSync.pushAll`). When that one
        /// writes nothing (here: objects another client stored first), the one behind must write
        /// nothing either: else the later batch lands first, and the server takes the earlier one as
        /// pushed already.
        @Test("batches sent one behind another land in outbox order when the first falls back to a transaction")
        func batchBehindOneThatFellBack() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let bob = try await SyncClient(server: scene.server)
            try await bob.write { store in
                for id in 1...5 { try store.add(SyncItem(id: id, title: "bob's \(id)", count: id)) }
            }
            try await bob.sync.push()
            var server = scene.server
            server.batchSize = 10  // one write, one batch
            let alice = try await SyncClient(server: server)
            try await alice.write { store in
                for id in 1...10 { try store.add(SyncItem(id: id, title: "alice's \(id)", count: id)) }
            }
            try await alice.write { store in
                for id in 1...10 { store.object(ofType: SyncItem.self, forPrimaryKey: id)!.title = "later \(id)" }
            }
            try await alice.write { store in
                for id in 11...20 { try store.add(SyncItem(id: id, title: "alice's \(id)", count: id)) }
            }
            try await alice.sync.push()
            #expect(alice.sync.state.pending == 0)

            let expected =
                (1...10).map { ItemState(id: $0, title: "later \($0)", count: $0, note: nil, owner: nil) }
                + (11...20).map { ItemState(id: $0, title: "alice's \($0)", count: $0, note: nil, owner: nil) }
            #expect(try scene.serverItems() == expected)
            try await bob.sync.synchronize()
            #expect(try await bob.items() == expected)
        }

        @Test("a user role pushes a type without rules as one statement; another role's client pulls it")
        func userRoleInOneStatement() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let admin = try await SyncClient(server: scene.server)
            try await admin.sync.synchronize()  // makes the tables
            for user in ["alice", "bob"] {
                _ = try scene.cluster.psql(
                    "CREATE ROLE \(user) LOGIN PASSWORD '\(user)-pw' IN ROLE strata_sync_client",
                    database: scene.database)
            }
            // Sessions from now on log their statements.
            _ = try scene.cluster.psql("ALTER DATABASE \(scene.database) SET log_statement = 'all'")
            func client(_ user: String) async throws -> SyncClient {
                var server = scene.server
                server.username = user
                server.password = "\(user)-pw"
                return try await SyncClient(server: server)
            }
            let alice = try await client("alice")
            let bob = try await client("bob")

            try await alice.write { store in
                for id in 1...3 { try store.add(SyncItem(id: id, title: "item \(id)")) }
            }
            try await alice.sync.synchronize()
            try await alice.write { $0.object(ofType: SyncItem.self, forPrimaryKey: 2)!.title = "two" }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()

            #expect(try await bob.items().map(\.title) == ["item 1", "two", "item 3"])
            #expect(try scene.serverItems().map(\.title) == ["item 1", "two", "item 3"])
            // Both pushes went as one statement each: a push's transaction inserts in a savepoint.
            let log = scene.cluster.serverLog()
            let oneStatements = log.components(separatedBy: "last_seq = (SELECT v.last_seq").count - 1
            let savepoints = log.components(separatedBy: "SAVEPOINT strata_insert").count - 1
            #expect(oneStatements == 2)
            #expect(savepoints == 0)
            // The client's row is alice's, at her last change.
            let rows = try scene.cluster.psql(
                "SELECT role FROM strata.clients WHERE pushed_through > 0 ORDER BY role", database: scene.database)
            #expect(rows.split(separator: "\n").contains("alice"))
        }
    }

    /// A psql process fed statements on its standard input, one transaction held open across calls.
    final class PsqlSession: Sendable {
        private let process: Process
        private let input: Pipe

        init(_ cluster: PostgresCluster, database: String) throws {
            process = Process()
            input = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["psql", cluster.url(database: database), "-v", "ON_ERROR_STOP=1", "-tAq"]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }

        func send(_ sql: String) throws {
            try input.fileHandleForWriting.write(contentsOf: Data((sql + "\n").utf8))
        }

        func close() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
#endif
