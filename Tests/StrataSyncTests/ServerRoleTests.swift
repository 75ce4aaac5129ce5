#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    /// A hosted setup: the database belongs to a role that may create in it but may not create roles
    /// (no CREATEROLE, not a superuser). Sync without access rules needs nothing more; per-user
    /// access needs the group role `strata_sync_client`, made beforehand or by a role with CREATEROLE.
    @Suite("StrataSync on a database whose owner may not create roles", .serialized, .offThePool, .fixtureChecks)
    struct ServerRoleTests {
        static let owner = "app_owner"
        static let database = "hosted"

        /// A private cluster with `hosted`, owned by `app_owner` (LOGIN, NOCREATEROLE).
        final class Scene: Sendable {
            let scene: SyncScene
            init() throws {
                scene = try SyncScene()
                _ = try scene.cluster.psql(
                    "CREATE ROLE \(ServerRoleTests.owner) LOGIN NOCREATEROLE NOSUPERUSER PASSWORD 'owner-pw'")
                _ = try scene.cluster.psql("CREATE DATABASE \(ServerRoleTests.database) OWNER \(ServerRoleTests.owner)")
            }

            func server(as user: String = ServerRoleTests.owner, password: String = "owner-pw") -> SyncServer {
                var server = scene.server
                server.database = ServerRoleTests.database
                server.username = user
                server.password = password
                return server
            }

            /// `sql` as the cluster's superuser, in the hosted database.
            func administer(_ sql: String) throws {
                _ = try scene.cluster.psql(sql, database: ServerRoleTests.database)
            }

            func stop() { scene.stop() }
        }

        @Test("without access rules, the database owner's role is all sync needs: no role is made")
        func withoutRules() async throws {
            let scene = try Scene()
            defer { scene.stop() }
            let laptop = try await SyncClient(server: scene.server())
            let phone = try await SyncClient(server: scene.server())
            try await laptop.write { try $0.add(SyncItem(id: 1, title: "hosted")) }
            try await laptop.sync.synchronize()
            try await phone.sync.synchronize()
            #expect(try await phone.items().map(\.title) == ["hosted"])
            let roles = try scene.scene.cluster.psql(
                "SELECT count(*) FROM pg_roles WHERE rolname = 'strata_sync_client'", database: Self.database)
            #expect(roles.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            await laptop.sync.stop()
            await phone.sync.stop()
        }

        @Test(
            "with access rules, the missing CREATEROLE is named with the SQL that gives it; a group role made beforehand is enough"
        )
        func withRules() async throws {
            let scene = try Scene()
            defer { scene.stop() }
            let rule = SyncAccess(SharedTodo.self, owner: "ownerID", team: "teamID")
            // A type without rules first: shared by every client role, once there is one.
            let shared = try await SyncClient(server: scene.server())
            try await shared.write { try $0.add(SyncItem(id: 1, title: "shared")) }
            try await shared.sync.synchronize()
            await shared.sync.stop()

            let refused = try await SyncClient(
                server: scene.server(), fixture: Fixture([SharedTodo.self]), types: [SharedTodo.self], access: [rule])
            await #expect {
                try await refused.sync.synchronize()
            } throws: { error in
                guard case SyncError.schemaMismatch(let message) = error else { return false }
                return message.contains("CREATEROLE") && message.contains("CREATE ROLE strata_sync_client NOLOGIN;")
                    && message.contains("ALTER ROLE app_owner CREATEROLE;")
            }
            await refused.sync.stop()

            // The administrator makes the group role once; the owner's client then grants it what it needs.
            try scene.administer("CREATE ROLE strata_sync_client NOLOGIN")
            let admin = try await SyncClient(
                server: scene.server(), fixture: Fixture([SharedTodo.self]), types: [SharedTodo.self], access: [rule])
            try await admin.sync.synchronize()
            await admin.sync.stop()
            try scene.administer("CREATE ROLE alice LOGIN PASSWORD 'alice-pw' IN ROLE strata_sync_client")
            try scene.administer("CREATE ROLE bob LOGIN PASSWORD 'bob-pw' IN ROLE strata_sync_client")
            let alice = try await SyncClient(
                server: scene.server(as: "alice", password: "alice-pw"), fixture: Fixture([SharedTodo.self]),
                types: [SharedTodo.self], access: [rule])
            let bob = try await SyncClient(
                server: scene.server(as: "bob", password: "bob-pw"), fixture: Fixture([SharedTodo.self]),
                types: [SharedTodo.self], access: [rule])
            try await alice.write { try $0.add(SharedTodo(id: 1, title: "alice's", ownerID: "alice")) }
            try await bob.write { try $0.add(SharedTodo(id: 2, title: "bob's", ownerID: "bob")) }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()
            #expect(try await alice.read { $0.objects(SharedTodo.self).map(\.title) } == ["alice's"])
            #expect(try await bob.read { $0.objects(SharedTodo.self).map(\.title) } == ["bob's"])
            // The type synced before the role existed is shared with the group's roles too.
            let sharedReader = try await SyncClient(server: scene.server(as: "bob", password: "bob-pw"))
            try await sharedReader.sync.synchronize()
            #expect(try await sharedReader.items().map(\.title) == ["shared"])
            await alice.sync.stop()
            await bob.sync.stop()
            await sharedReader.sync.stop()
        }

        @Test("an owner with CREATEROLE (not a superuser) makes the group role itself; its users see their own objects")
        func ownerWithCreateRole() async throws {
            let scene = try Scene()
            defer { scene.stop() }
            _ = try scene.scene.cluster.psql("ALTER ROLE \(Self.owner) CREATEROLE")
            let rule = SyncAccess(SharedTodo.self, owner: "ownerID", team: "teamID")
            let admin = try await SyncClient(
                server: scene.server(), fixture: Fixture([SharedTodo.self]), types: [SharedTodo.self], access: [rule])
            try await admin.sync.synchronize()
            await admin.sync.stop()
            _ = try scene.scene.cluster.psql(
                "CREATE ROLE carol LOGIN PASSWORD 'carol-pw' IN ROLE strata_sync_client", database: Self.database,
                user: Self.owner, password: "owner-pw")
            let carol = try await SyncClient(
                server: scene.server(as: "carol", password: "carol-pw"), fixture: Fixture([SharedTodo.self]),
                types: [SharedTodo.self], access: [rule])
            try await carol.write { try $0.add(SharedTodo(id: 1, title: "carol's", ownerID: "carol")) }
            try await carol.sync.synchronize()
            let rows = try scene.scene.cluster.psql(
                "SELECT title || ':' || \"ownerID\" FROM strata.\"SharedTodo\"", database: Self.database)
            #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == "carol's:carol")
            await carol.sync.stop()
        }
    }
#endif
