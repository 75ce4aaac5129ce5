#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestModels
    import StrataTestSupport
    import Testing

    @Suite("a push while another holds the server's sequence", .serialized)
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
            try await until("the other writer holds the sequence") {
                try scene.cluster.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'",
                    database: scene.database) == "1"
            }

            try await client.write { $0.object(ofType: SyncItem.self, forPrimaryKey: 1)!.title = "mine" }
            async let pushed: Void = client.sync.push()
            try await until("the push waits for the sequence") {
                try scene.cluster.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", database: scene.database)
                    == "1"
            }
            try other.send("COMMIT;")
            try await pushed

            // The update went to the row the other writer made: its title set, its count kept.
            let row = try scene.cluster.psql(
                "SELECT title, count FROM strata.\"SyncItem\" WHERE id = 1", database: scene.database)
            #expect(row == "mine|5")
        }

        /// Waits until `condition` holds (checked every 20 ms, for at most 30 s).
        private func until(_ what: String, _ condition: () throws -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while try !condition() {
                guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        struct Timeout: Error {
            let what: String
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
