#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    /// Per-user access through PostgreSQL: alice, bob and carol connect as roles of their own; alice
    /// and bob are in team "crew". The server's row-level security decides who sees and changes what.
    @Suite("StrataSync with per-user access", .serialized, .offThePool, .fixtureChecks)
    struct AccessTests {
        static let rule = SyncAccess(SharedTodo.self, owner: "ownerID", team: "teamID")

        /// The scene, its tables made by the administrator's client, three user roles, and a client each.
        final class Scene: Sendable {
            let scene: SyncScene
            init() async throws {
                scene = try SyncScene()
                let admin = try await client(as: PostgresCluster.user, password: PostgresCluster.password)
                try await admin.sync.synchronize()  // makes the tables, with the rules
                await admin.sync.stop()
                for user in ["alice", "bob", "carol"] {
                    _ = try scene.cluster.psql(
                        "CREATE ROLE \(user) LOGIN PASSWORD '\(user)-pw' IN ROLE strata_sync_client",
                        database: scene.database)
                }
                _ = try scene.cluster.psql(
                    "INSERT INTO strata.members VALUES ('alice', 'crew'), ('bob', 'crew')", database: scene.database)
            }

            func client(as user: String, password: String? = nil) async throws -> SyncClient {
                var server = scene.server
                server.username = user
                server.password = password ?? "\(user)-pw"
                return try await SyncClient(
                    server: server, fixture: Fixture([SharedTodo.self]), types: [SharedTodo.self], access: [rule])
            }

            /// `sql` as `user` (row-level security applies), or its error.
            func psql(_ sql: String, as user: String) -> Result<String, any Error> {
                Result { try scene.cluster.psql(sql, database: scene.database, user: user, password: "\(user)-pw") }
            }

            func serverTodos() throws -> [String] {
                try scene.cluster.psql(
                    "SELECT id || ':' || title || ':' || \"ownerID\" || ':' || coalesce(\"teamID\", '-') FROM strata.\"SharedTodo\" ORDER BY id",
                    database: scene.database
                ).split(separator: "\n").map(String.init)
            }

            func stop() { scene.stop() }
        }

        @Test("private objects reach only their owner; a team's reach its members; forged pushes change nothing")
        func threeUsers() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let alice = try await scene.client(as: "alice")
            let bob = try await scene.client(as: "bob")
            let carol = try await scene.client(as: "carol")
            try await alice.write { store in
                try store.add(SharedTodo(id: 1, title: "alice's diary", ownerID: "alice"))
                try store.add(SharedTodo(id: 2, title: "crew plan", ownerID: "alice", teamID: "crew"))
            }
            try await carol.write { try $0.add(SharedTodo(id: 3, title: "carol's list", ownerID: "carol")) }
            try await alice.sync.synchronize()
            try await carol.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await bob.todoTitles() == ["crew plan"])
            #expect(try await carol.todoTitles() == ["carol's list"])
            #expect(try await alice.todoTitles() == ["alice's diary", "crew plan"])

            // Bob edits the team's todo (allowed) and, in the same batch, forges alice's private one
            // (he makes an object with its key) and makes one of his own.
            try await bob.write { store in
                store.object(ofType: SharedTodo.self, forPrimaryKey: 2)!.title = "crew plan v2"
                try store.add(SharedTodo(id: 1, title: "forged by bob", ownerID: "bob"))
                try store.add(SharedTodo(id: 4, title: "bob's own", ownerID: "bob"))
            }
            try await bob.sync.synchronize()
            #expect(bob.sync.state.refused == 1)
            let refused = await bob.sync.refusedChanges()
            #expect(refused.map(\.primaryKey) == ["1"])
            #expect(refused.first?.reason.contains("another user") == true, "\(refused)")
            #expect(bob.sync.state.pending == 0)
            #expect(
                try scene.serverTodos() == [
                    "1:alice's diary:alice:-", "2:crew plan v2:alice:crew", "3:carol's list:carol:-",
                    "4:bob's own:bob:-",
                ])
            try await alice.sync.synchronize()
            try await carol.sync.synchronize()
            #expect(try await alice.todoTitles() == ["alice's diary", "crew plan v2"])
            #expect(try await carol.todoTitles() == ["carol's list"])
            // The refusal stays in bob's file until dismissed.
            await bob.sync.stop()
            let bobAgain = try await SyncClient(
                server: bob.sync.server, fixture: bob.fixture, types: [SharedTodo.self], access: [Self.rule])
            #expect(await bobAgain.sync.refusedChanges().map(\.primaryKey) == ["1"])
            try await bobAgain.sync.dismissRefusedChanges()
            #expect(await bobAgain.sync.refusedChanges().isEmpty)
            #expect(bobAgain.sync.state.refused == 0)
        }

        @Test("an object taken out of a team leaves its members' files; one put into a team reaches them whole")
        func movingBetweenAudiences() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let alice = try await scene.client(as: "alice")
            let bob = try await scene.client(as: "bob")
            try await alice.write { store in
                try store.add(SharedTodo(id: 1, title: "shared", ownerID: "alice", teamID: "crew"))
                try store.add(SharedTodo(id: 2, title: "private", ownerID: "alice"))
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await bob.todoTitles() == ["shared"])
            try await alice.write { store in
                store.object(ofType: SharedTodo.self, forPrimaryKey: 1)!.teamID = nil  // out of the team
                let made = store.object(ofType: SharedTodo.self, forPrimaryKey: 2)!
                made.teamID = "crew"  // into it
                made.title = "now shared"
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await bob.todoTitles() == ["now shared"])
            try await alice.sync.synchronize()
            #expect(try await alice.todoTitles() == ["shared", "now shared"])
        }

        @Test("giving an object to a user or team one is not: refused before sending, the rest goes")
        func givingAway() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let bob = try await scene.client(as: "bob")
            try await bob.write { store in
                try store.add(SharedTodo(id: 1, title: "for carol", ownerID: "carol"))
                try store.add(SharedTodo(id: 2, title: "for another team", ownerID: "carol", teamID: "other"))
                try store.add(SharedTodo(id: 3, title: "for the crew", ownerID: "carol", teamID: "crew"))
            }
            try await bob.sync.synchronize()
            let refused = await bob.sync.refusedChanges()
            #expect(refused.map(\.primaryKey).sorted() == ["1", "2"], "\(refused)")
            #expect(try scene.serverTodos() == ["3:for the crew:carol:crew"])
        }

        @Test("a client that skips its checks (raw SQL as bob): the server refuses, nothing changes")
        func rawForgery() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let alice = try await scene.client(as: "alice")
            try await alice.write { store in
                try store.add(SharedTodo(id: 1, title: "private", ownerID: "alice"))
                try store.add(SharedTodo(id: 2, title: "crew", ownerID: "alice", teamID: "crew"))
            }
            try await alice.sync.synchronize()
            // Row-level security hides alice's private row from bob: he neither reads nor changes it.
            #expect(try scene.psql("SELECT count(*) FROM strata.\"SharedTodo\"", as: "bob").get() == "1")
            #expect(
                try scene.psql("UPDATE strata.\"SharedTodo\" SET title = 'x' WHERE id = 1", as: "bob").get()
                    == "UPDATE 0")
            // Nor can he make a row for alice, or give the crew's todo to someone outside the crew.
            #expect(
                throws: (any Error).self,
                performing: {
                    try scene.psql("INSERT INTO strata.\"SharedTodo\" VALUES (9, 'x', 'alice', NULL)", as: "bob").get()
                })
            #expect(
                throws: (any Error).self,
                performing: {
                    try scene.psql(
                        "UPDATE strata.\"SharedTodo\" SET \"ownerID\" = 'carol', \"teamID\" = NULL WHERE id = 2",
                        as: "bob"
                    ).get()
                })
            // A change row to the crew naming alice's private todo (key 1: the stored Int key's bytes) is
            // refused at commit: the crew would apply it to an object bob may not write.
            let forged = """
                INSERT INTO strata.changes (first_seq, last_seq, client_id, client_seq, type_names, object_keys,
                    kinds, payloads, audience_owner, audience_team)
                VALUES (1000, 1000, gen_random_uuid(), 1, '{SharedTodo}', ARRAY['\\x8000000000000001'::bytea],
                    '{update}', ARRAY['\\x0000'::bytea], 'bob', 'crew')
                """
            #expect {
                try scene.psql(forged, as: "bob").get()
            } throws: { error in
                "\(error)".contains("not to objects of the audience")
            }
            // Nor may he write a change row to alice's audience at all.
            #expect(
                throws: (any Error).self,
                performing: {
                    try scene.psql(forged.replacingOccurrences(of: "'bob', 'crew'", with: "'alice', NULL"), as: "bob")
                        .get()
                })
            // Bob sees the crew's changes only, carol none of them.
            #expect(try scene.psql("SELECT count(*) FROM strata.change_log", as: "bob").get() == "1")
            #expect(try scene.psql("SELECT count(*) FROM strata.change_log", as: "carol").get() == "0")
            #expect(try scene.serverTodos() == ["1:private:alice:-", "2:crew:alice:crew"])
        }

        @Test("a user role cannot make the tables: .schemaMismatch telling to connect the owner first")
        func tablesNeedTheOwner() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            _ = try scene.cluster.psql("CREATE ROLE dave LOGIN PASSWORD 'dave-pw'", database: scene.database)
            var server = scene.server
            server.username = "dave"
            server.password = "dave-pw"
            let dave = try await SyncClient(
                server: server, fixture: Fixture([SharedTodo.self]), types: [SharedTodo.self], access: [Self.rule])
            await #expect {
                try await dave.sync.synchronize()
            } throws: { error in
                guard case .schemaMismatch(let reason) = error as? SyncError else { return false }
                return reason.contains("owner")
            }
        }

        @Test("a rule naming a property that is not a String: .unsupportedType")
        func ruleOnAWrongProperty() async throws {
            let fixture = Fixture([SharedTodo.self])
            await #expect {
                _ = try await StoreSync(
                    configuration: fixture.configuration,
                    server: SyncServer(username: "app", database: "app"), types: [SharedTodo.self],
                    access: [SyncAccess(SharedTodo.self, owner: "id")])
            } throws: { error in
                if case .unsupportedType = error as? SyncError { return true }
                return false
            }
        }
    }

    extension SyncClient {
        /// The titles of the client's SharedTodos, by id.
        func todoTitles() async throws -> [String] {
            try read { store in store.objects(SharedTodo.self).sorted(by: \.id).map(\.title) }
        }
    }
#endif
