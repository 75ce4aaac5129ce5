#if Sync
    import Foundation
    import Synchronization
    @_spi(StrataSync) import Strata

    /// Keeps a Store's file in step with a PostgreSQL server of record, and through it with every other
    /// client: local commits of the synced types are pushed (from the outbox their own transaction filled),
    /// and the changes of others are pulled and applied in Strata writes, which observers hear of as of
    /// local ones.
    ///
    /// ```swift
    /// let server = SyncServer(host: "db.internal", username: "app", password: secret, database: "app")
    /// let sync = try await StoreSync(configuration: configuration, server: server, types: [Todo.self])
    /// await sync.start()                         // pushes and pulls in the background from now on
    /// try await sync.synchronize()               // or: push, then pull, and return when caught up
    /// for await state in sync.states { print(state.pending, state.connection) }
    /// ```
    /// Offline is normal: local writes (of any Store of the file) never wait for the network, and what
    /// they change waits in the outbox until the server has it. The rules when two clients change the
    /// same object are in Docs/Sync.md.
    ///
    /// - Warning: Enable sync before other Stores of the file write what is to be synced: capture
    ///   starts with the first commit after `init`. Call `stop()` before dropping a started sync.
    public actor StoreSync {
        /// Where sync stands: what waits to be pushed, how far pulls have come, the connection.
        public struct State: Sendable, Equatable {
            public enum Connection: Sendable, Equatable {
                case offline, connecting, connected
            }

            /// Changes committed locally that the server has not acknowledged yet. Follows this
            /// process's commits as they land; commits of other processes to the file once `start()`ed
            /// (within a second), or at `synchronize()`.
            public var pending: Int
            /// The server sequence number the file applied changes through.
            public var lastSequence: Int64
            public var connection: Connection
            /// The last failure (nil after a synchronization that succeeded).
            public var lastError: SyncError?
            /// How many changes the server refused (`refusedChanges()`) and the app has not dismissed.
            public var refused: Int = 0
        }

        public let server: SyncServer
        /// This client's id on the server (kept in the file, made when sync first opens it).
        public private(set) var clientID = UUID()

        var store: Store!
        var typeSchemas: [String: SyncTypeSchema] = [:]
        var keyTypes: [String: SyncType] = [:]
        var typeNames: [String] = []
        private(set) var accessRules: [String: AccessRule] = [:]
        /// The partial types, their subscriptions, and which types must be read again (kept in the file).
        var subscriptionSet = SubscriptionSet()
        /// Who the server says this client is (known once connected).
        private(set) var identity = ServerIdentity(role: "", teams: [])
        /// The changes the server refused, kept in the file until dismissed; never sent again.
        private var refused: [RefusedChange] = []
        /// Every change refused since the file was opened (dismissed ones too): what pushes leave out.
        private(set) var notToSend: [RefusedChange] = []
        private(set) var notToSendPlaces: Set<UInt64> = []
        private var connection: ServerConnection?
        /// The second connection of pushes (`pushPartner()`), and whether it could not be opened.
        var partner: ServerConnection?
        var partnerUnavailable = false
        var listener: ServerConnection?
        private let broadcast = StateBroadcast(State(pending: 0, lastSequence: 0, connection: .offline, lastError: nil))
        var busy = false
        var waitingForTurn: [CheckedContinuation<Void, Never>] = []
        var backgroundTask: Task<Void, Never>?
        var listenerTask: Task<Void, Never>?
        var wakeRequested = false
        /// The background loop waiting in `waitForWork` for a wake.
        var workWaiter: CheckedContinuation<Void, Never>?
        /// Tells this actor of each commit this process makes to the file (`noteLocalCommits`).
        private var commitWatch: CommitWatch?
        /// While started: looks for other processes' commits to the file (`otherProcessesCheck`).
        var otherProcessesTask: Task<Void, Never>?
        /// The version `noteLocalCommits` counted through.
        private var notedVersion: Int?
        /// A look at the outbox is scheduled or running (commits that land meanwhile are seen by it).
        private var noting = false
        /// A commit watch's call started a look that has not begun yet.
        private nonisolated let commitNoted = Atomic<Bool>(false)
        /// The outbox place `state.pending` has counted through.
        private var countedThrough: UInt64 = 0

        /// Opens the Store of `configuration` for sync (isolated to this actor), starts capturing the
        /// changes of `types` in its outbox, and reads or makes the client id. Does not connect: the
        /// server is first asked by `synchronize()` or `start()`.
        ///
        /// - Parameters:
        ///   - access: who may see and change the objects of some of `types` (the server enforces it;
        ///     Docs/Sync.md, "Who may see what"). The server's tables must have been made with the same
        ///     rules.
        ///   - partial: those of `types` this client holds only as far as its subscriptions reach
        ///     (`subscribe(_:named:where:waitForSync:)`): none of their objects until it subscribes.
        /// - Throws: `.unsupportedType` for a type without a primary key (or linking to a type keyed by
        ///   row ids), a rule naming a property that is not a String, or a partial type not among
        ///   `types` or not keyed by an Int, String or UUID; `.store` when the file cannot be opened or a
        ///   type is not in its schema.
        public init(
            configuration: Store.Configuration, server: SyncServer, types: [Object.Type], access: [SyncAccess] = [],
            partial: [Object.Type] = []
        ) async throws(SyncError) {
            self.server = server
            do throws(StoreError) {
                store = try await Store(configuration: configuration, actor: self)
                let schemas = try store.syncSchema(of: types)
                try store.captureChanges(of: types)
                if let stored = try store.syncSetting("client").flatMap(UUID.init(uuidString:)) {
                    clientID = stored
                } else {
                    let made = clientID
                    try Self.typed { try store.write { try store.setSyncSetting("client", to: made.uuidString) } }
                }
                typeNames = schemas.map(\.name)
                typeSchemas = Dictionary(uniqueKeysWithValues: schemas.map { ($0.name, $0) })
                keyTypes = Dictionary(
                    uniqueKeysWithValues: schemas.map { schema in
                        (schema.name, schema.properties.first { $0.name == schema.primaryKey }!.type)
                    })
                try recountPending()
                let position = try store.syncPosition()
                update { $0.lastSequence = position }
                if let stored = try store.syncSetting(Self.refusedSetting),
                    let decoded = try? JSONDecoder().decode([RefusedChange].self, from: Data(stored.utf8))
                {
                    refused = decoded
                    notToSend = decoded
                    notToSendPlaces = Set(decoded.map(\.sequence))
                    update { $0.refused = decoded.count }
                }
            } catch {
                if case .schemaMismatch(let reason) = error, reason.contains("primary key") {
                    throw .unsupportedType(reason)
                }
                throw .store(error)
            }
            for rule in access {
                guard let type = typeSchemas[rule.typeName] else {
                    throw .unsupportedType("an access rule names \(rule.typeName), which is not among the synced types")
                }
                accessRules[rule.typeName] = try AccessRule(rule, type: type)
            }
            try setUpSubscriptions(partial: partial.map { String(describing: $0) })
            // Event-driven: nothing runs while nothing commits (a sync never started costs no CPU).
            commitWatch = store.watchCommits { [weak self] in
                // One task for the commits that land before it runs, not one per commit.
                guard let self, !self.commitNoted.exchange(true, ordering: .acquiringAndReleasing) else { return }
                Task { await self.commitSeen() }
            }
        }

        /// How often a started sync looks for commits other processes made to its file (cheap: the
        /// file's last version, no transaction); this process's own commits wake it at once.
        static let otherProcessesCheck = Duration.seconds(1)

        /// Runs `body`, whose errors are the Store's (a `write` block throws untyped).
        static func typed(_ body: () throws -> Void) throws(StoreError) {
            do {
                try body()
            } catch let error as StoreError {
                throw error
            } catch {
                throw .invalidArgument("\(error)")
            }
        }

        // MARK: State

        /// Where sync stands now.
        public nonisolated var state: State { broadcast.current }

        /// The state now, then each change of it, for as long as the consumer iterates (each access makes a
        /// new sequence; a slow consumer sees the newest state, not every one).
        public nonisolated var states: AsyncStream<State> { broadcast.subscribe() }

        func update(_ change: (inout State) -> Void) {
            broadcast.update(change)
        }

        /// Counts what the outbox holds again (cheap once pushes emptied it).
        func recountPending() throws(StoreError) {
            let recorded = try store.capturedChanges()
            if let last = recorded.last { countedThrough = max(countedThrough, last.sequence) }
            update { $0.pending = recorded.count }
        }

        /// When the file has a new commit: counts what it recorded in the outbox, and wakes the
        /// background sync if that is anything. Returns the version whose outbox was read.
        /// A commit of this process landed: counts what it captured, once, however many commits come
        /// at once.
        func commitSeen() async {
            commitNoted.store(false, ordering: .releasing)  // a commit from now on starts another look
            guard !noting else { return }
            noting = true
            defer { noting = false }
            // Until the outbox read shows the file's last commit: `latestCommitVersion` can name a
            // commit a snapshot cannot see yet (LMDB shows it while the commit syncs). A sync to disk
            // can take seconds on a busy machine (a second was not always enough in the tests): the
            // look backs off to every 100 ms, and gives up after `commitVisibleWithin` (a failed commit).
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: Self.commitVisibleWithin)
            var pause = Duration.milliseconds(5)
            while noteLocalCommits(), clock.now < deadline {
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(100))
            }
        }

        /// How long a commit of this process may take to show in a new snapshot once LMDB names it.
        static let commitVisibleWithin = Duration.seconds(30)

        /// Counts what commits after the last look captured. Returns true when the file has a commit
        /// the look could not see yet (look again soon).
        @discardableResult
        private func noteLocalCommits() -> Bool {
            // `latestCommitVersion` is cheap (no transaction). A read that failed is retried too.
            guard let latest = try? store.latestCommitVersion(), latest != notedVersion else { return false }
            guard let (seen, recorded) = try? store.capturedChangesWithVersion(after: countedThrough) else {
                return true
            }
            if let last = recorded.last {
                countedThrough = last.sequence
                update { $0.pending += recorded.count }
                requestWork()
            }
            notedVersion = seen
            return seen < latest
        }

        // MARK: Synchronizing

        /// Pushes what the outbox holds, then pulls and applies what the server has, until caught up
        /// (with the server as it was when the pull began). Calls wait for each other.
        ///
        /// - Throws: `.unreachable`, `.authenticationFailed`, `.schemaMismatch`, `.server`, `.store`.
        ///   What was acknowledged before a failure stays acknowledged; nothing else is lost.
        public func synchronize() async throws(SyncError) {
            try await inTurn { (connection) throws(SyncError) in
                try await pushAll(connection)
                try await pullAll(connection)
            }
        }

        /// Sends what the outbox holds, until it is empty (Realm's `uploadAllLocalChanges`).
        ///
        /// - Throws: as `synchronize()`.
        public func push() async throws(SyncError) {
            try await inTurn { (connection) throws(SyncError) in try await pushAll(connection) }
        }

        /// Applies what the server has after the file's position, until caught up, without sending
        /// anything (Realm's `downloadAllServerChanges`). Pending local changes stay on top.
        ///
        /// - Throws: as `synchronize()`.
        public func pull() async throws(SyncError) {
            try await inTurn { (connection) throws(SyncError) in try await pullAll(connection) }
        }

        /// Runs `body` with a connection when no other call is under way; a failure drops the connection
        /// and shows in the state.
        private func inTurn(_ body: (ServerConnection) async throws(SyncError) -> Void) async throws(SyncError) {
            await takeTurn()
            defer { giveTurn() }
            do {
                try await body(try await connected())
                update { $0.lastError = nil }
            } catch {
                await dropConnection()
                update { $0.lastError = error }
                try? recountPending()
                throw error
            }
        }

        private func connected() async throws(SyncError) -> ServerConnection {
            if let connection {
                // One round trip per synchronization: a statement on a connection that died with the
                // server (or a network break) would wait `requestTimeout`, a failed probe only
                // `connectTimeout`, and then a new connection is opened (or fails fast: `.unreachable`).
                if await connection.answers(within: server.connectTimeout) { return connection }
                await dropConnection()
            }
            update { $0.connection = .connecting }
            do throws(SyncError) {
                let made = try await ServerConnection.connect(server)
                do throws(SyncError) {
                    identity = try await made.prepare(
                        types: typeNames.map { typeSchemas[$0]! }, keyTypes: keyTypes, access: accessRules)
                } catch {
                    await made.close()
                    throw error
                }
                connection = made
                update { $0.connection = .connected }
                return made
            } catch {
                update { $0.connection = .offline }
                throw error
            }
        }

        func dropConnection() async {
            await partner?.close()
            partner = nil
            partnerUnavailable = false
            guard let dropped = connection else {
                update { $0.connection = .offline }
                return
            }
            connection = nil
            update { $0.connection = .offline }
            await dropped.close()
        }

        // MARK: Refused changes

        static let refusedSetting = "refused"

        /// The changes the server refused (to objects of other users, or giving objects away), oldest
        /// first, until `dismissRefusedChanges()`. They are never sent; the objects stay as the app
        /// wrote them in this file.
        public func refusedChanges() -> [RefusedChange] { refused }

        /// Forgets the refused changes (the app has dealt with them).
        ///
        /// - Throws: `.store` when the file cannot be written.
        public func dismissRefusedChanges() async throws(SyncError) {
            refused = []
            try await storeWrite { store in try store.setSyncSetting(Self.refusedSetting, to: "[]") }
            update { $0.refused = 0 }
        }

        func recordRefused(_ changes: [RefusedChange]) async throws(SyncError) {
            refused += changes
            notToSend += changes
            notToSendPlaces.formUnion(changes.map(\.sequence))
            let text = String(decoding: (try? JSONEncoder().encode(refused)) ?? Data("[]".utf8), as: UTF8.self)
            try await storeWrite { store in try store.setSyncSetting(Self.refusedSetting, to: text) }
            update { $0.refused = refused.count }
        }

        private func pullAll(_ connection: ServerConnection) async throws(SyncError) {
            try await readStaleTypesAgain(connection)
            while true {
                let position = try storeCall { () throws(StoreError) in try store.syncPosition() }
                switch try await connection.pull(
                    after: position, types: typeSchemas, partial: partialTypes(), keyTypes: keyTypes,
                    limit: server.batchSize, clientID: clientID)
                {
                case .startOver:
                    try await startOver(connection, types: typeNames, from: position, movingPosition: true)
                    subscriptionSet.stale = []
                    try await saveSubscriptions()
                case .changes(var changes, let leaving, let through, let caughtUp):
                    changes += try withoutPendingObjects(leaving)
                    if through > position || !changes.isEmpty {
                        try await storeWrite { store in try store.applyIncomingChanges(changes, through: through) }
                        update { $0.lastSequence = through }
                    }
                    if caughtUp {
                        try await trimHistoryNowAndThen(connection)
                        return
                    }
                }
            }
        }

        /// Starts over from the server's typed tables (a new client, or one whose next changes the
        /// server trimmed; or, for some types, after their subscriptions changed): applies every object
        /// of `types` this role may see (and, of a partial type, that its subscriptions select) as of
        /// one snapshot, page by page, then deletes the objects of `types` the snapshot lacks; and, when
        /// `movingPosition`, moves the position to the snapshot's in the last write (else the pulls
        /// after it read the changes since the position again: of a partial type they bring the
        /// objects as they are then). Local changes not pushed yet stay on top (as for pulls), and an
        /// object with one is not deleted; an interrupted start-over starts over again.
        func startOver(
            _ connection: ServerConnection, types: [String], from position: Int64, movingPosition: Bool
        ) async throws(SyncError) {
            // The objects here before: those the snapshot lacks go. (Objects made meanwhile are in the
            // outbox, which the server's objects yield to.) A new client has none: nothing to compare.
            var before: [String: Set<[UInt8]>] = [:]
            for name in types {
                let keys = try storeCall { () throws(StoreError) in try store.syncStoredKeys(ofType: name) }
                if !keys.isEmpty { before[name] = Set(keys) }
            }
            // Applied only when numbered after the position (which a start-over that does not move it
            // keeps: the snapshot may be at the position itself).
            func numbered(_ change: IncomingChange) -> IncomingChange {
                guard change.sequence <= position else { return change }
                return IncomingChange(
                    sequence: position + 1, typeName: change.typeName, kind: change.kind, key: change.key,
                    properties: change.properties)
            }
            let snapshot = try await connection.snapshot(
                types: types.map { typeSchemas[$0]! }, keyTypes: keyTypes,
                conditions: subscriptionSet.serverConditions, pageSize: Self.bootstrapPage
            ) { (page) throws(SyncError) in
                let keyed = try storeCall { () throws(StoreError) in
                    try page.map { (change) throws(StoreError) in try store.keyed(numbered(change)) }
                }
                if !before.isEmpty {
                    for change in keyed { before[change.typeName]?.remove(change.key) }
                }
                try await storeWrite { store in try store.applyIncomingChanges(keyed, through: position) }
            }
            let gone = try withoutPendingObjects(
                before.flatMap { name, keys in
                    keys.map {
                        IncomingChange(
                            sequence: max(snapshot, position + 1), typeName: name, kind: .delete, key: $0,
                            properties: [])
                    }
                })
            let through = movingPosition ? snapshot : position
            try await storeWrite { store in try store.applyIncomingChanges(gone, through: through) }
            if movingPosition { update { $0.lastSequence = snapshot } }
        }

        /// Objects per page of a start-over (one read on the server, one write here).
        static let bootstrapPage = 10_000

        /// When the last trim of the server's history was asked for by this sync (or it was made).
        private var lastTrim = ContinuousClock.now

        /// Asks the server to trim the changes every recent client has (`strata.trim_history`), at
        /// most once per `SyncServer.trimInterval`.
        private func trimHistoryNowAndThen(_ connection: ServerConnection) async throws(SyncError) {
            let now = ContinuousClock.now
            if now - lastTrim < server.trimInterval { return }
            lastTrim = now
            // Where this client stands now (its pulls report the position they start from).
            let position = try storeCall { () throws(StoreError) in try store.syncPosition() }
            try await connection.execute(
                """
                UPDATE strata.clients SET pulled_through = greatest(pulled_through, \(position)), last_seen = now()
                WHERE client_id = \(clientID)
                """)
            try await connection.execute("SELECT strata.trim_history()")
        }

        func storeCall<R>(_ body: () throws(StoreError) -> R) throws(SyncError) -> R {
            do {
                return try body()
            } catch {
                throw .store(error)
            }
        }

        func storeWrite(_ body: (Store) throws -> Void) async throws(SyncError) {
            let store = self.store!
            do {
                try await store.asyncWrite { try body(store) }
            } catch {
                throw .store(error as? StoreError ?? .invalidArgument("\(error)"))
            }
        }

        deinit {
            commitWatch?.cancel()
            backgroundTask?.cancel()
            listenerTask?.cancel()
            otherProcessesTask?.cancel()
        }
    }
#endif
