#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    /// Bounded history: the server drops the changes every recent client has pulled, and a client that
    /// has nothing yet, or was away longer than the retention window, starts from the typed tables.
    @Suite("StrataSync's bounded history", .serialized, .offThePool, .fixtureChecks)
    struct HistoryTests {
        /// Server settings that ask for a trim after every pull.
        static func trimming(_ scene: SyncScene) -> SyncServer {
            var server = scene.server
            server.trimInterval = .zero
            return server
        }

        func changeRows(_ scene: SyncScene) throws -> Int {
            Int(try scene.cluster.psql("SELECT count(*) FROM strata.changes", database: scene.database)) ?? -1
        }

        @Test(
            "100,000 changes, trimmed once pulled: a new client starts from the tables and holds the server's objects")
        func newClientAfterTrim() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: Self.trimming(scene))
            // 40,000 inserts, 40,000 updates, 20,000 deletes: 100,000 changes in 15 writes, each pushed
            // before the next (pushed together, the outbox would leave out changes of objects deleted since).
            for round in 0..<5 {
                try await writer.write { store in
                    for id in (round * 8_000)..<(round * 8_000 + 8_000) {
                        try store.add(SyncItem(id: id, title: "item \(id)", count: id))
                    }
                }
                try await writer.sync.push()
                try await writer.write { store in
                    for item in store.objects(SyncItem.self).filter({ $0.id >= round * 8_000 }) {
                        item.count += 1
                    }
                }
                try await writer.sync.push()
                try await writer.write { store in
                    let doomed = store.objects(SyncItem.self).filter { $0.id >= round * 8_000 && $0.id % 2 == 0 }
                    try store.delete(Array(doomed))
                }
                try await writer.sync.push()
            }
            try await writer.sync.synchronize()
            #expect(writer.sync.state.lastSequence == 100_000)
            // The writer pulled through the last change, and is the only client: everything goes.
            try await writer.sync.synchronize()
            #expect(try changeRows(scene) == 0)
            let server = try scene.serverItems()
            #expect(server.count == 20_000)

            let newcomer = try await SyncClient(server: scene.server)
            try await newcomer.sync.synchronize()
            #expect(try await newcomer.items() == server)
            #expect(newcomer.sync.state.lastSequence == 100_000)
            // And from there it follows the change stream.
            try await writer.write { store in store.objects(SyncItem.self).first!.title = "after the trim" }
            try await writer.sync.synchronize()
            try await newcomer.sync.synchronize()
            #expect(try await newcomer.items() == (try await writer.items()))
        }

        @Test("a client away longer than the window starts over, keeping what it has not pushed")
        func awayTooLong() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: Self.trimming(scene))
            let traveller = try await SyncClient(server: scene.server)
            try await writer.write { store in
                for id in 1...4 { try store.add(SyncItem(id: id, title: "item \(id)", count: id)) }
            }
            try await writer.sync.synchronize()
            try await traveller.sync.synchronize()
            #expect(try await traveller.items().count == 4)
            _ = try scene.cluster.psql(
                "INSERT INTO strata.sync_meta VALUES ('retention', '1 second') ON CONFLICT (key) DO UPDATE SET value = '1 second'",
                database: scene.database)
            // Offline, the traveller renames 1 and makes 5; meanwhile the writer deletes 2 and changes 3.
            try await traveller.write { store in
                store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.title = "renamed while away"
                try store.add(SyncItem(id: 5, title: "made while away", count: 5))
            }
            // The traveller was last seen an hour ago (no sleep: its row says so); the writer's next
            // pull marks the writer seen now.
            _ = try scene.cluster.psql(
                "UPDATE strata.clients SET last_seen = now() - interval '1 hour'", database: scene.database)
            try await writer.write { store in
                try store.delete(store.object(ofType: SyncItem.self, forPrimaryKey: 2)!)
                store.object(ofType: SyncItem.self, forPrimaryKey: 3)!.count = 30
            }
            try await writer.sync.synchronize()
            try await writer.sync.synchronize()  // the traveller is outside the window: its changes go
            #expect(try changeRows(scene) == 0)
            let pending = traveller.sync.state.pending
            try await traveller.sync.pull()  // starts over, without pushing first
            let after = try await traveller.items()
            #expect(after.map(\.id) == [1, 3, 4, 5])
            #expect(after.first { $0.id == 1 }?.title == "renamed while away")
            #expect(after.first { $0.id == 3 }?.count == 30)
            #expect(traveller.sync.state.pending == pending)
            try await traveller.sync.synchronize()
            try await writer.sync.synchronize()
            #expect(try scene.serverItems() == (try await traveller.items()))
            #expect(try await writer.items() == (try await traveller.items()))
        }

        @Test("a client within the window keeps the changes it still needs")
        func slowClientHoldsHistory() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: Self.trimming(scene))
            let slow = try await SyncClient(server: scene.server)
            try await writer.write { try $0.add(SyncItem(id: 1, title: "one", count: 1)) }
            try await writer.sync.synchronize()
            try await slow.sync.synchronize()
            try await writer.write { try $0.add(SyncItem(id: 2, title: "two", count: 2)) }
            try await writer.sync.synchronize()
            try await writer.sync.synchronize()
            // The slow client pulled through 1 only: change 2 stays for it.
            #expect(
                try scene.cluster.psql("SELECT max(last_seq) FROM strata.changes", database: scene.database) == "2")
            try await slow.sync.synchronize()
            #expect(try await slow.items().map(\.id) == [1, 2])
        }
    }
#endif
