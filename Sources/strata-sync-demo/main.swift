#if Sync
    // strata-sync-demo: two devices of a todo app kept in step through a PostgreSQL server of record,
    // then two users (each a PostgreSQL role) sharing a list under row-level security: what each sees,
    // a refused forged write, trimmed history and a new device starting from the tables; printed as a
    // transcript. It starts a private PostgreSQL cluster in a temporary directory (Debian's
    // `postgresql`; `make demo-sync` installs it when missing) and stops and removes it at the end.
    //
    //   swift run strata-sync-demo
    import Foundation
    import PrivatePostgres
    import Strata
    import StrataSync

    final class Todo: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var title: String
        @Persisted var done: Bool
        @Persisted var priority: Int

        convenience init(id: Int, title: String, priority: Int = 1) {
            self.init()
            self.id = id
            self.title = title
            self.priority = priority
        }
    }

    /// An item of a list that its owner and the list's team see (`SyncAccess` by owner and team).
    final class ListItem: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var title: String
        @Persisted var ownerID: String
        @Persisted var listID: String?

        convenience init(id: Int, title: String, ownerID: String, listID: String? = nil) {
            self.init()
            self.id = id
            self.title = title
            self.ownerID = ownerID
            self.listID = listID
        }
    }

    let listAccess = SyncAccess(ListItem.self, owner: "ownerID", team: "listID")

    /// One user's device: it connects as the user's own PostgreSQL role.
    actor UserDevice {
        let name: String
        let sync: StoreSync
        private var store: Store!

        /// - Parameter partial: the device holds only the items its subscriptions select.
        init(_ name: String, user: String, directory: URL, server: SyncServer, partial: Bool = false) async throws {
            self.name = name
            var server = server
            server.username = user
            server.password = "\(user)-secret"
            let configuration = Store.Configuration(
                fileURL: directory.appendingPathComponent("\(name).strata"), objectTypes: [ListItem.self])
            sync = try await StoreSync(
                configuration: configuration, server: server, types: [ListItem.self], access: [listAccess],
                partial: partial ? [ListItem.self] : [])
            store = try await Store(configuration: configuration, actor: self)
        }

        func write(_ body: (Store) throws -> Void) async throws {
            let store = self.store!
            try await store.asyncWrite { try body(store) }
        }

        func items() throws -> String {
            _ = try store.refresh()
            return store.objects(ListItem.self).sorted(by: \.id).map { item in
                "#\(item.id) \(item.title) [\(item.ownerID)\(item.listID.map { ", list \($0)" } ?? "")]"
            }.joined(separator: " | ")
        }
    }

    /// One device: its own file, its sync, and the app's Store (isolated to this actor).
    actor Device {
        let name: String
        let sync: StoreSync
        private var store: Store!
        private var tokens: [NotificationToken] = []

        init(_ name: String, directory: URL, server: SyncServer) async throws {
            self.name = name
            let configuration = Store.Configuration(
                fileURL: directory.appendingPathComponent("\(name).strata"), objectTypes: [Todo.self])
            sync = try await StoreSync(configuration: configuration, server: server, types: [Todo.self])
            store = try await Store(configuration: configuration, actor: self)
        }

        func write(_ body: (Store) throws -> Void) async throws {
            let store = self.store!
            try await store.asyncWrite { try body(store) }
        }

        /// The device's todos, one line each.
        func todos() throws -> [String] {
            _ = try store.refresh()
            return store.objects(Todo.self).sorted(by: \.id).map { task in
                "#\(task.id) \(task.title) (priority \(task.priority)\(task.done ? ", done" : ""))"
            }
        }

        /// Prints what the device's observers hear: remote changes arrive as local ones do.
        func observe() throws {
            let name = self.name
            tokens.append(
                try store.objects(Todo.self).sorted(by: \.id).observe { change in
                    if case .update(let tasks, let deletions, let insertions, let modifications) = change {
                        var parts: [String] = []
                        if !insertions.isEmpty { parts.append("inserted \(insertions.map { tasks[$0].title })") }
                        if !modifications.isEmpty { parts.append("modified \(modifications.map { tasks[$0].title })") }
                        if !deletions.isEmpty { parts.append("deleted rows \(deletions)") }
                        say("  [\(name) observer] \(parts.joined(separator: "; "))")
                    }
                })
        }

        func stopObserving() { tokens.removeAll() }
    }

    /// Writes a line at once (observers print from other threads while the scene goes on).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func step(_ title: String) { say("\n== \(title)") }

    /// Waits until `condition` holds (at most `seconds`); returns the milliseconds it took.
    func waitFor(seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Int {
        let clock = ContinuousClock()
        let start = clock.now
        while try await !condition() {
            guard clock.now - start < .seconds(seconds) else { throw DemoFailure("gave up waiting after \(seconds) s") }
            try await Task.sleep(for: .milliseconds(2))
        }
        let elapsed = (clock.now - start).components
        return Int(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)
    }

    struct DemoFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func show(_ devices: [Device]) async throws {
        for device in devices {
            say("  \(device.name): \(try await device.todos().joined(separator: " | "))")
        }
    }

    func runScene(cluster: PostgresCluster, directory: URL) async throws {
        let server = SyncServer(
            port: cluster.port, username: PostgresCluster.user, password: PostgresCluster.password, database: "todos",
            tls: .verifyFull(rootCertificates: .pemFile(cluster.certificateAuthorityFile)), pollInterval: .seconds(1))
        let laptop = try await Device("laptop", directory: directory, server: server)
        let phone = try await Device("phone", directory: directory, server: server)

        step("1. Both devices sync in the background (push after each commit, LISTEN/NOTIFY for the others')")
        await laptop.sync.start()
        await phone.sync.start()
        try await phone.observe()
        try await laptop.write { store in
            try store.add(Todo(id: 1, title: "Buy milk"))
            try store.add(Todo(id: 2, title: "Call mum", priority: 2))
            try store.add(Todo(id: 3, title: "Book flights", priority: 3))
        }
        say("laptop committed 3 todos")
        let arrived = try await waitFor { try await phone.todos().count == 3 }
        say("the phone has them after \(arrived) ms")

        step("2. The phone ticks a task off; the laptop sees it")
        try await phone.write { $0.object(ofType: Todo.self, forPrimaryKey: 3)!.done = true }
        let ticked = try await waitFor {
            try await laptop.todos().contains { $0.hasPrefix("#3") && $0.contains("done") }
        }
        say("the laptop has it after \(ticked) ms")
        try await show([laptop, phone])

        step("3. Offline edits of the same task: per property, the change the server sequences last wins")
        await laptop.sync.stop()
        await phone.sync.stop()
        await phone.stopObserving()
        try await laptop.write { store in
            let milk = store.object(ofType: Todo.self, forPrimaryKey: 1)!
            milk.title = "Buy oat milk"
            milk.priority = 2
        }
        try await phone.write { $0.object(ofType: Todo.self, forPrimaryKey: 1)!.title = "Buy almond milk" }
        say("offline: the laptop set #1's title and priority, the phone its title")
        try await show([laptop, phone])
        try await laptop.sync.synchronize()
        say("the laptop synchronizes first, then the phone (its title is sequenced last)")
        try await phone.sync.synchronize()
        try await laptop.sync.synchronize()
        try await show([laptop, phone])

        step("4. A delete against an offline edit: the delete removes the object")
        try await laptop.write { try $0.delete($0.object(ofType: Todo.self, forPrimaryKey: 2)!) }
        try await phone.write { $0.object(ofType: Todo.self, forPrimaryKey: 2)!.title = "Call mum on Sunday" }
        try await laptop.sync.synchronize()
        try await phone.sync.synchronize()
        try await laptop.sync.synchronize()
        try await show([laptop, phone])

        step("5. The phone is offline for 500 commits, then catches up")
        for id in 100..<600 {
            try await laptop.write { try $0.add(Todo(id: id, title: "Chore \(id)")) }
        }
        say("the laptop committed 500 todos, one write each, to its outbox too")
        try await laptop.sync.synchronize()
        let caughtUp = try await waitFor {
            try await phone.sync.synchronize()
            return try await phone.todos().count == 502
        }
        say(
            "the phone caught up in \(caughtUp) ms: \(try await phone.todos().count) todos, at server sequence \(phone.sync.state.lastSequence)"
        )

        step("6. The server's tables are plain SQL: other programs read the data there")
        say("psql> SELECT id, title, done, priority FROM strata.\"Todo\" WHERE id < 100 ORDER BY id")
        let rows = try cluster.psql(
            "SELECT id, title, done, priority FROM strata.\"Todo\" WHERE id < 100 ORDER BY id", database: "todos")
        for row in rows.split(separator: "\n") { say("  \(row)") }
        let changes = try cluster.psql("SELECT count(*) FROM strata.change_log", database: "todos")
        say("strata.change_log holds \(changes) changes, in one sequence")

        let laptopTasks = try await laptop.todos()
        guard laptopTasks == (try await phone.todos()) else { throw DemoFailure("the devices differ") }
        say("\nBoth devices hold the same \(laptopTasks.count) todos, as the server does.")
    }

    /// Two users and a shared list: each device connects as its user's PostgreSQL role, and the
    /// server's row-level security decides what each sees and may change.
    func runUsersScene(cluster: PostgresCluster, directory: URL) async throws {
        let admin = SyncServer(
            port: cluster.port, username: PostgresCluster.user, password: PostgresCluster.password, database: "lists",
            tls: .verifyFull(rootCertificates: .pemFile(cluster.certificateAuthorityFile)), pollInterval: .seconds(1))
        step("7. Two users, each a PostgreSQL role; the administrator's client makes the tables and rules")
        let owner = try await StoreSync(
            configuration: Store.Configuration(
                fileURL: directory.appendingPathComponent("admin.strata"), objectTypes: [ListItem.self]),
            server: admin, types: [ListItem.self], access: [listAccess])
        try await owner.push()  // connects (making what is missing) and sends nothing: no position to keep
        for user in ["alice", "bob"] {
            _ = try cluster.psql(
                "CREATE ROLE \(user) LOGIN PASSWORD '\(user)-secret' IN ROLE strata_sync_client", database: "lists")
        }
        _ = try cluster.psql(
            "INSERT INTO strata.members VALUES ('alice', 'groceries'), ('bob', 'groceries')", database: "lists")
        say("roles alice and bob; both in the team \"groceries\" (strata.members)")
        let alice = try await UserDevice("alice-phone", user: "alice", directory: directory, server: admin)
        let bob = try await UserDevice("bob-laptop", user: "bob", directory: directory, server: admin)
        try await alice.write { store in
            try store.add(ListItem(id: 1, title: "Alice's diary", ownerID: "alice"))
            try store.add(ListItem(id: 2, title: "Eggs", ownerID: "alice", listID: "groceries"))
        }
        try await alice.sync.synchronize()
        try await bob.sync.synchronize()
        say("alice added a private item and one on the shared list")
        say("  alice-phone: \(try await alice.items())")
        say("  bob-laptop:  \(try await bob.items())")
        for user in ["alice", "bob"] {
            let seen = try cluster.psql(
                "SELECT string_agg(title, ', ' ORDER BY id) FROM strata.\"ListItem\"", database: "lists", user: user,
                password: "\(user)-secret")
            say("  psql as \(user)> SELECT title FROM strata.\"ListItem\": \(seen)")
        }

        step("8. Bob's device forges a write to alice's private item: refused, the rest of the batch goes")
        try await bob.write { store in
            try store.add(ListItem(id: 1, title: "Bob was here", ownerID: "bob"))
            try store.add(ListItem(id: 3, title: "Bread", ownerID: "bob", listID: "groceries"))
        }
        try await bob.sync.synchronize()
        for refused in await bob.sync.refusedChanges() {
            say("refused: \(refused.kind) of ListItem \(refused.primaryKey): \(refused.reason)")
        }
        try await alice.sync.synchronize()
        try await bob.sync.synchronize()
        say("  alice-phone: \(try await alice.items())")
        let row = try cluster.psql("SELECT title FROM strata.\"ListItem\" WHERE id = 1", database: "lists")
        say("  the server's item 1 is still \"\(row)\"")

        step("9. Bounded history: the changes both have pulled are trimmed; a new device starts from the tables")
        try await alice.sync.pull()  // each pull tells the server where the client stands
        try await bob.sync.pull()
        _ = try cluster.psql("SELECT strata.trim_history()", database: "lists")
        let left = try cluster.psql("SELECT count(*) FROM strata.changes", database: "lists")
        say("strata.changes holds \(left) rows after the trim")
        let tablet = try await UserDevice("alice-tablet", user: "alice", directory: directory, server: admin)
        try await tablet.sync.synchronize()
        say("  alice-tablet (new): \(try await tablet.items())")
        guard try await tablet.items() == (try await alice.items()) else { throw DemoFailure("alice's devices differ") }

        step("10. Partial sync: bob's watch holds only what its subscriptions select")
        let watch = try await UserDevice("bob-watch", user: "bob", directory: directory, server: admin, partial: true)
        try await watch.sync.synchronize()
        say("  bob-watch (new, no subscription): [\(try await watch.items())]")
        try await watch.sync.subscribe(ListItem.self, named: "groceries", where: { $0.listID == "groceries" })
        say("subscribed to \((await watch.sync.subscriptions).map(\.description))")
        say("  bob-watch: \(try await watch.items())")
        try await alice.write { store in
            try store.add(ListItem(id: 4, title: "Milk", ownerID: "alice", listID: "groceries"))
            store.object(ofType: ListItem.self, forPrimaryKey: 2)!.listID = nil  // Eggs leaves the list
        }
        try await alice.sync.synchronize()
        try await watch.sync.synchronize()
        try await bob.sync.synchronize()
        say("alice adds Milk to the list and takes Eggs off it (Eggs is hers alone now)")
        say("  bob-watch:  \(try await watch.items())")
        say("  bob-laptop: \(try await bob.items())")
        try await watch.sync.unsubscribe(named: "groceries")
        let onServer = try cluster.psql("SELECT count(*) FROM strata.\"ListItem\"", database: "lists")
        say("unsubscribed: bob-watch holds [\(try await watch.items())]; the server still has \(onServer) items")
        guard try await watch.items().isEmpty, onServer == "4" else {
            throw DemoFailure("the watch's subscription did not come and go")
        }
        await owner.stop()
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-demo-\(getpid())")
    var status: Int32 = 0
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        say("Strata sync demo: two devices of a todo app, kept in step through PostgreSQL")
        let cluster = try PostgresCluster.start()
        say("started a private PostgreSQL on 127.0.0.1:\(cluster.port) (in \(cluster.directory.path))")
        do {
            _ = try cluster.psql("CREATE DATABASE todos")
            try await runScene(cluster: cluster, directory: directory)
            _ = try cluster.psql("CREATE DATABASE lists")
            try await runUsersScene(cluster: cluster, directory: directory)
        } catch {
            say("\nstrata-sync-demo failed: \(error)")
            status = 1
        }
        cluster.stop()
        say("stopped and removed the private PostgreSQL")
    } catch {
        say("\nstrata-sync-demo could not start PostgreSQL: \(error)")
        status = 1
    }
    try? FileManager.default.removeItem(at: directory)
    if status == 0 { say("Done.") }
    exit(status)
#else
    // Built without the Sync trait (`swift build --traits Sync`; `make` passes it).
    import Foundation

    FileHandle.standardError.write(Data("this build has no sync: build with --traits Sync (make does)\n".utf8))
    exit(2)
#endif
