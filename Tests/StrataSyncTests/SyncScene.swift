#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport

    /// A private PostgreSQL cluster with a database of its own for one test, and the server settings
    /// clients use for it. Making one and its `psql` queries block the calling thread for seconds: a
    /// suite using it runs `.offThePool`.
    final class SyncScene: Sendable {
        let cluster: PostgresCluster
        let database: String

        init() throws {
            cluster = try PostgresCluster.start()
            registerForTeardown(cluster)
            database = "app"
            _ = try cluster.psql("CREATE DATABASE \(database)")
        }

        var server: SyncServer {
            SyncServer(
                port: cluster.port, username: PostgresCluster.user, password: PostgresCluster.password,
                database: database, tls: tls, connectTimeout: .seconds(5), pollInterval: .milliseconds(200))
        }

        /// TLS with the server's certificate checked against the cluster's own authority.
        var tls: SyncServer.TLS {
            .verifyFull(rootCertificates: .pemFile(cluster.certificateAuthorityFile))
        }

        /// The rows of `strata."SyncItem"`, as the clients' snapshots describe theirs.
        func serverItems() throws -> [ItemState] {
            let text = try cluster.psql(
                """
                SELECT id, title, count, coalesce(note, '<nil>'), coalesce(owner, '<nil>')
                FROM strata."SyncItem" ORDER BY id
                """, database: database)
            return text.split(separator: "\n").map { line in
                let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                return ItemState(
                    id: Int(fields[0])!, title: fields[1], count: Int(fields[2])!,
                    note: fields[3] == "<nil>" ? nil : fields[3], owner: fields[4] == "<nil>" ? nil : fields[4])
            }
        }

        /// A client of `types` that follows the change stream from the start: a change of another type
        /// is pushed first (by a client of its own), and the follower takes its place after it, so
        /// that what is pushed from then on reaches it by pulls, not by a start from the tables.
        func follower(fixture: Fixture, types: [Object.Type]) async throws -> SyncClient {
            let seeder = try await SyncClient(server: server, types: [SyncOwner.self])
            try await seeder.write { try $0.add(SyncOwner(name: "seed-\(UUID().uuidString)")) }
            try await seeder.sync.synchronize()
            let follower = try await SyncClient(server: server, fixture: fixture, types: types)
            try await follower.sync.synchronize()
            guard follower.sync.state.lastSequence > 0 else { throw FollowerNotPlaced() }
            return follower
        }

        struct FollowerNotPlaced: Error {}

        func stop() {
            cluster.stop()
        }
    }

    /// A `SyncItem` as values.
    struct ItemState: Sendable, Hashable, CustomStringConvertible {
        var id: Int
        var title: String
        var count: Int
        var note: String?
        var owner: String?

        init(id: Int, title: String, count: Int, note: String?, owner: String?) {
            self.id = id
            self.title = title
            self.count = count
            self.note = note
            self.owner = owner
        }

        init(_ item: SyncItem) {
            self.init(id: item.id, title: item.title, count: item.count, note: item.note, owner: item.owner?.name)
        }

        var description: String { "\(id):\(title):\(count):\(note ?? "nil"):\(owner ?? "nil")" }
    }

    /// One client of a scene: a file, its sync, and a Store of the app's (isolated to this actor).
    actor SyncClient {
        let fixture: Fixture
        let sync: StoreSync
        private var store: Store!

        init(
            server: SyncServer, fixture: Fixture = Fixture([SyncItem.self, SyncOwner.self]),
            types: [Object.Type] = [SyncItem.self, SyncOwner.self], access: [SyncAccess] = [],
            partial: [Object.Type] = []
        ) async throws {
            self.fixture = fixture
            sync = try await StoreSync(
                configuration: fixture.configuration, server: server, types: types, access: access, partial: partial)
            store = try await Store(configuration: fixture.configuration, actor: self)
        }

        /// Writes with the app's Store (what sync then pushes).
        func write(_ body: (Store) throws -> Void) async throws {
            let store = self.store!
            try await store.asyncWrite { try body(store) }
        }

        /// Reads the client's Store (refreshed first).
        func read<R: Sendable>(_ body: (Store) throws -> R) throws -> R {
            _ = try store.refresh()
            return try body(store)
        }

        func items() throws -> [ItemState] {
            _ = try store.refresh()
            return store.objects(SyncItem.self).sorted(by: \.id).map(ItemState.init)
        }

        private var tokens: [NotificationToken] = []

        /// Observes the client's items (sorted by id) until the client goes.
        func observeItems(_ body: @escaping @Sendable (CollectionChange<Results<SyncItem>>) -> Void) throws {
            tokens.append(try store.objects(SyncItem.self).sorted(by: \.id).observe(body))
        }
    }
#endif
