#if Sync
    import Foundation
    import PostgresNIO
    @_spi(StrataSync) import Strata

    /// One connection to the server of record, and the statements of the protocol: create the tables,
    /// push a batch of outbox changes, pull the changes after a position. Every failure comes out as a
    /// `SyncError`.
    final class ServerConnection: Sendable {
        let connection: PostgresConnection
        private let logger: Logger
        private let requestTimeout: Duration

        private init(connection: PostgresConnection, logger: Logger, requestTimeout: Duration) {
            self.connection = connection
            self.logger = logger
            self.requestTimeout = requestTimeout
        }

        /// Connects, or fails with `.unreachable` within the server's `connectTimeout`.
        static func connect(_ server: SyncServer) async throws(SyncError) -> ServerConnection {
            var configuration = PostgresConnection.Configuration(
                host: server.host, port: server.port, username: server.username, password: server.password,
                database: server.database, tls: try tls(server.tls))
            let (seconds, attoseconds) = server.connectTimeout.components
            configuration.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let logger = Logger(label: "strata.sync")
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 1, logger: logger)
                return ServerConnection(connection: connection, logger: logger, requestTimeout: server.requestTimeout)
            } catch {
                throw Self.syncError(error)
            }
        }

        /// postgres-nio's TLS mode for `tls`. NIOSSL checks the certificate's names against the host
        /// (or, for an IP address, the address connected to) and its chain against the roots.
        ///
        /// - Throws: `.untrustedServer` when the root certificates cannot be read.
        static func tls(_ tls: SyncServer.TLS) throws(SyncError) -> PostgresConnection.Configuration.TLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv12
            switch tls {
            case .disable:
                return .disable
            case .require:
                configuration.certificateVerification = .none
            case .verifyFull(let roots):
                configuration.certificateVerification = .fullVerification
                do {
                    switch roots {
                    case .system: configuration.trustRoots = .default
                    case .pemFile(let path):
                        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
                    case .pem(let text):
                        configuration.trustRoots = .certificates(
                            try NIOSSLCertificate.fromPEMBytes(Array(text.utf8)))
                    }
                } catch {
                    throw .untrustedServer("cannot read the root certificates: \(error)")
                }
            }
            do {
                return .require(try NIOSSLContext(configuration: configuration))
            } catch {
                throw .untrustedServer("cannot make a TLS context: \(error)")
            }
        }

        func close() async {
            try? await connection.close()
        }

        /// Whether the connection is gone: closed here, or by the server (which stopped, or restarted).
        var isClosed: Bool { connection.isClosed }

        /// Whether the server still answers on this connection within `timeout`. A connection whose
        /// server stopped can still look open to postgres-nio, and a statement sent on it then waits for
        /// the whole `requestTimeout` (seen under load: a push 30 s after the server stopped).
        func answers(within timeout: Duration) async -> Bool {
            guard !isClosed else { return false }
            do {
                try await within(timeout) { [connection, logger] in
                    _ = try await connection.query("SELECT 1", logger: logger)
                }
                return true
            } catch {
                return false
            }
        }

        deinit {
            // A connection dropped without `close()` (a sync that was not stopped): closed now, kept
            // alive until it is (postgres-nio asserts that a connection is closed before it goes).
            let connection = connection
            connection.close().whenComplete { _ in _ = connection }
        }

        // MARK: Statements

        /// Runs `query`, whose rows (if any) are read and dropped, within the request timeout (read whole
        /// for the reason `rows(_:as:)` gives).
        func execute(_ query: PostgresQuery) async throws(SyncError) {
            let answer = send(query).answer
            _ = try await within(requestTimeout) { try await answer.get() }
        }

        /// The rows `query` returns, all of them, within the request timeout.
        ///
        /// Read whole on the event loop (`send`), not as an async sequence: a sequence read slower than
        /// rows arrive stops asking for more, and postgres-nio 1.33.2's row stream then traps
        /// (`RowStreamStateMachine.channelReadComplete`) when the server closes the connection, as a
        /// restarted server does (NIO reads what is left and completes the read without a request).
        func rows<each Value: PostgresDecodable & Sendable>(_ query: PostgresQuery, as types: (repeat each Value).Type)
            async throws(SyncError) -> [(repeat each Value)]
        {
            try await rows(of: send(query), as: types)
        }

        /// A statement sent (`send`) whose answer is still to come.
        struct SentStatement: Sendable {
            fileprivate let answer: EventLoopFuture<PostgresQueryResult>
        }

        /// Sends `query` now and returns without waiting for its answer (`rows(of:as:)`). The server
        /// runs a connection's statements one after another in the order they were sent: a statement
        /// sent while another runs starts the moment that one ends, with no round trip between them.
        func send(_ query: PostgresQuery) -> SentStatement {
            SentStatement(answer: connection.query(query, logger: logger))
        }

        /// The rows a statement sent returns, within the request timeout from now.
        func rows<each Value: PostgresDecodable & Sendable>(of sent: SentStatement, as types: (repeat each Value).Type)
            async throws(SyncError) -> [(repeat each Value)]
        {
            let answer = sent.answer
            let rows = try await within(requestTimeout) { try await answer.get().rows }
            return try Self.decode(rows, as: types)
        }

        private static func decode<each Value: PostgresDecodable & Sendable>(
            _ rows: [PostgresRow], as types: (repeat each Value).Type
        ) throws(SyncError) -> [(repeat each Value)] {
            do {
                return try rows.map { try $0.decode(types) }
            } catch {
                throw Self.syncError(error)
            }
        }

        /// How often a statement under way checks whether its connection closed.
        private static let closeCheckInterval = Duration.milliseconds(100)

        /// Runs `request` and returns what it returns, or fails with `.unreachable` once `timeout`
        /// passed or the connection closed, closing it: postgres-nio's query on a connection whose server went away
        /// can wait for ever (seen with the server stopped between two statements).
        private func within<R: Sendable>(_ timeout: Duration, _ request: @escaping @Sendable () async throws -> R)
            async throws(SyncError) -> R
        {
            let outcome = RequestOutcome<R>()
            let result: Result<R, any Error> = await withCheckedContinuation { continuation in
                outcome.setContinuation(continuation)
                let work = Task {
                    do {
                        outcome.finish(.success(try await request()))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                }
                let timer = Task { [connection] in
                    // Also watches the connection: a statement in flight when the server stopped was
                    // seen to wait the whole timeout on a connection already closed.
                    let clock = ContinuousClock()
                    let deadline = clock.now + timeout
                    var failure = SyncError.unreachable("no answer within \(timeout)")
                    while clock.now < deadline {
                        let pause = min(Self.closeCheckInterval, deadline - clock.now)
                        guard (try? await Task.sleep(for: pause)) != nil else { return }  // cancelled: answered
                        if connection.isClosed {
                            failure = .unreachable("the server closed the connection")
                            break
                        }
                    }
                    if outcome.finish(.failure(failure)) {
                        work.cancel()
                        connection.close().whenComplete { _ in }
                    }
                }
                outcome.setTimer(timer)
            }
            outcome.cancelTimer()  // else every statement would leave a task asleep for `requestTimeout`
            switch result {
            case .success(let value): return value
            case .failure(let error): throw Self.syncError(error)
            }
        }

        /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
        func transaction<R>(_ body: () async throws(SyncError) -> R) async throws(SyncError) -> R {
            try await execute("BEGIN")
            do throws(SyncError) {
                let result = try await body()
                try await execute("COMMIT")
                return result
            } catch {
                _ = try? await execute("ROLLBACK")
                throw error
            }
        }

        // MARK: The protocol

        /// The session's settings every statement of StrataSync's relies on (a second connection of a
        /// push takes them too: `StoreSync.pushAll`).
        func prepareSession() async throws(SyncError) {
            // A push finds its objects by key, 2,000 at a time: with PostgreSQL's default page cost (4,
            // for spinning disks) the planner scans the whole typed table instead of probing its index
            // once per key, and every push then costs as much as the table is big.
            try await execute("SET random_page_cost = 1.1")
            // Subscriptions' conditions quote their strings by doubling quotes (`SubscriptionSQL`): a
            // backslash must stay a backslash.
            try await execute("SET standard_conforming_strings = on")
        }

        /// Creates what is missing of the server's tables (under a lock, so clients may start together),
        /// checks that the server describes `types` (and their access rules) as this client does, and
        /// says who this client is there. Only a role that may create in the database makes tables:
        /// the first client to connect must be an administrator's when users connect as roles of
        /// their own.
        ///
        /// - Throws: `.schemaMismatch` when the server's protocol version or a type's columns or rule
        ///   differ, or when something is missing that this role may not make.
        func prepare(types: [SyncTypeSchema], keyTypes: [String: SyncType], access: [String: AccessRule])
            async throws(SyncError) -> ServerIdentity
        {
            try await prepareSession()
            return try await transaction { () throws(SyncError) -> ServerIdentity in
                try await execute("SELECT pg_advisory_xact_lock(\(ServerSchema.creationLock))")
                let made = try await rows(
                    "SELECT to_regclass('strata.sync_meta') IS NOT NULL AND to_regclass('strata.types') IS NOT NULL",
                    as: Bool.self)
                var version =
                    made.first == true
                    ? try await rows("SELECT value FROM strata.sync_meta WHERE key = 'protocol'", as: String.self) : []
                if version.isEmpty {
                    try await making("StrataSync's tables") { () throws(SyncError) in
                        for statement in ServerSchema.meta { try await execute(PostgresQuery(unsafeSQL: statement)) }
                        try await execute(
                            "INSERT INTO strata.sync_meta VALUES ('protocol', \(ServerSchema.protocolVersion)) ON CONFLICT DO NOTHING"
                        )
                        version = try await rows(
                            "SELECT value FROM strata.sync_meta WHERE key = 'protocol'", as: String.self)
                        guard version.first == ServerSchema.protocolVersion else { return }
                        for statement in ServerSchema.tables { try await execute(PostgresQuery(unsafeSQL: statement)) }
                    }
                }
                guard version.first == ServerSchema.protocolVersion else {
                    throw .schemaMismatch(
                        "the server speaks sync protocol \(version.first ?? "?"), this client \(ServerSchema.protocolVersion)"
                    )
                }
                // The client role exists only where per-user access needs it: made (or found made) then.
                // A server made before images were patched there lacks the functions that patch them.
                let imagesPatched = try await rows(PostgresQuery(unsafeSQL: ServerImages.present), as: Bool.self)
                if imagesPatched.first != true {
                    try await making("StrataSync's image functions") { () throws(SyncError) in
                        for statement in ServerImages.statements {
                            try await execute(PostgresQuery(unsafeSQL: statement))
                        }
                    }
                }
                let grantsToClients = try await prepareClientRole(required: !access.isEmpty)
                for type in types {
                    let rule = access[type.name]
                    let fingerprint =
                        ServerSchema.fingerprint(type) + (rule.map { ";access:" + $0.access.fingerprint } ?? "")
                    let stored = try await rows(
                        "SELECT fingerprint FROM strata.types WHERE name = \(type.name)", as: String.self)
                    if let stored = stored.first {
                        guard stored == fingerprint else {
                            throw .schemaMismatch("\(type.name) is [\(stored)] on the server, [\(fingerprint)] here")
                        }
                        continue
                    }
                    try await making("the table of \(type.name)") { () throws(SyncError) in
                        try await createTable(
                            type, fingerprint: fingerprint, rule: rule, keyTypes: keyTypes,
                            grantsToClients: grantsToClients)
                    }
                }
                let identity = try await rows(
                    """
                    SELECT current_user::text, coalesce((SELECT array_agg(team) FROM strata.members
                        WHERE member = current_user), '{}')
                    """, as: (String, [String]).self)
                return ServerIdentity(role: identity.first?.0 ?? "", teams: Set(identity.first?.1 ?? []))
            }
        }

        /// Runs `body`, which makes `what` on the server; a role without the right to is told so.
        private func making(_ what: String, _ body: () async throws(SyncError) -> Void) async throws(SyncError) {
            do {
                try await body()
            } catch .server(sqlState: "42501", let message) {
                throw .schemaMismatch(
                    "\(what) are not on the server yet, and this role may not make them (\(message)): "
                        + "connect once with the database owner's role first")
            }
        }

        /// Makes the group role of client roles (`ServerAccess.clientRole`) exist and hold its
        /// privileges on the protocol's tables and on every synced type's table, where this role may:
        /// making the role needs CREATEROLE, granting needs the tables' owner. Per-user access
        /// (`required`) needs the role; sync without access rules makes it only when it may (then
        /// clients may connect as roles of the group), and otherwise goes on without it. Returns
        /// whether the role is there (new types' tables are then granted to it).
        ///
        /// - Throws: `.schemaMismatch` when `required` and the role or its privileges are missing and
        ///   this role may not make them: the message names the privilege and the SQL that gives it.
        private func prepareClientRole(required: Bool) async throws(SyncError) -> Bool {
            let role = ServerAccess.clientRole
            let exists = try await rows(PostgresQuery(unsafeSQL: ServerAccess.clientRoleExists), as: Bool.self)
            if exists.first != true {
                let me = try await rows(
                    "SELECT current_user::text, rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user",
                    as: (String, Bool).self)
                guard me.first?.1 == true else {
                    guard required else { return false }
                    let name = me.first?.0 ?? "<this role>"
                    throw .schemaMismatch(
                        "per-user access (SyncAccess) needs the group role \(role), and the role \(name) may not "
                            + "create roles: it lacks the CREATEROLE privilege. Either make the group role "
                            + "beforehand, as a role that may (a superuser): CREATE ROLE \(role) NOLOGIN; or give this "
                            + "role the privilege: ALTER ROLE \(name) CREATEROLE; then connect again. Sync without "
                            + "access rules needs neither")
                }
                try await execute(PostgresQuery(unsafeSQL: ServerAccess.createClientRole))
            }
            let granted = try await rows(PostgresQuery(unsafeSQL: ServerAccess.clientRoleGranted), as: Bool.self)
            guard granted.first != true else { return true }
            let owner = try await rows(
                "SELECT pg_has_role(current_user, relowner, 'USAGE') FROM pg_class WHERE oid = 'strata.changes'::regclass",
                as: Bool.self)
            guard owner.first == true else {
                guard required else { return true }
                throw .schemaMismatch(
                    "the group role \(role) has no privileges on StrataSync's tables yet, and this role may not "
                        + "give them (only the tables' owner may): connect once with the database owner's role first")
            }
            for statement in ServerAccess.clientRoleGrants { try await execute(PostgresQuery(unsafeSQL: statement)) }
            // The types synced so far (without rules: shared by every role of the group).
            for name in try await rows("SELECT name FROM strata.types", as: String.self) {
                try await execute(PostgresQuery(unsafeSQL: ServerAccess.typeGrant(name)))
            }
            return true
        }

        private func createTable(
            _ type: SyncTypeSchema, fingerprint: String, rule: AccessRule?, keyTypes: [String: SyncType],
            grantsToClients: Bool
        ) async throws(SyncError) {
            try await execute(PostgresQuery(unsafeSQL: ServerSchema.createStateTable(type, keyTypes: keyTypes)))
            for statement in ServerAccess.typeStatements(
                type, rule: rule, keyTypes: keyTypes, grantsToClients: grantsToClients)
            {
                try await execute(PostgresQuery(unsafeSQL: statement))
            }
            var columns = "["
            for (index, property) in type.properties.enumerated() {
                if index > 0 { columns += "," }
                columns += "{\"name\":"
                JSONText.appendString(property.name, to: &columns)
                columns += ",\"type\":"
                JSONText.appendString("\(property.type)", to: &columns)
                columns += "}"
            }
            columns += "]"
            try await execute("INSERT INTO strata.types VALUES (\(type.name), \(fingerprint), \(columns)::jsonb)")
        }

        /// The changes after `position` to `types`, in order: those of the pushes that hold the next
        /// `limit` sequence numbers (whole pushes, so perhaps more). Returns the position they bring the
        /// client to (past other types' changes too), and whether that is the server's last; or, for a
        /// new client and when the server trimmed changes after `position` (`strata.trim_history`),
        /// `.startOver`. Records how far the client has pulled, and when.
        ///
        /// The changes of `partial` types (each with the condition its subscriptions make) are not sent
        /// as they are: the objects they name are, as they are now if they match (`currentObjects`),
        /// or as `leaving` deletes.
        ///
        /// A `moved` notice (an object whose owner or team changed) is answered the same way, for any
        /// type: the object as this role now sees it, or `leaving`.
        func pull(
            after position: Int64, types: [String: SyncTypeSchema], partial: [String: PartialType] = [:],
            keyTypes: [String: SyncType], limit: Int, clientID: UUID
        ) async throws(SyncError) -> PullOutcome {
            // Every number up to the sequence's last is committed (a push holds the sequence's row).
            let heads = try await rows(
                """
                WITH c AS (
                    INSERT INTO strata.clients (client_id, pulled_through) VALUES (\(clientID), \(position))
                    ON CONFLICT (client_id) DO UPDATE
                    SET pulled_through = greatest(strata.clients.pulled_through, EXCLUDED.pulled_through), last_seen = now())
                SELECT s.last_seq, coalesce((SELECT value::bigint FROM strata.sync_meta WHERE key = 'trimmed_through'), 0)
                FROM strata.sequence AS s WHERE s.id = 1
                """, as: (Int64, Int64).self)
            let newest = heads.first?.0 ?? 0
            let trimmedThrough = heads.first?.1 ?? 0
            // A new client, or one whose next changes are gone: it starts from the typed tables.
            if position < trimmedThrough || (position == 0 && newest > 0) { return .startOver }
            let windowEnd = position + Int64(max(1, limit))
            let found = try await rows(
                """
                SELECT first_seq, last_seq, type_names, object_keys, kinds, payloads FROM strata.changes
                WHERE first_seq >= (SELECT coalesce(max(first_seq), 0) FROM strata.changes WHERE first_seq <= \(position))
                    AND first_seq <= \(windowEnd) AND last_seq > \(position)
                ORDER BY first_seq
                """,
                as: (Int64, Int64, [String], [ByteBuffer], [String], [ByteBuffer]).self)
            var changes: [IncomingChange] = []
            // Objects to send as they are now (`currentObjects`): of partial types, and moved ones.
            var lookUps: [String: [[UInt8]: Int64]] = [:]
            for (first, last, typeNames, keys, kindNames, payloads) in found {
                let count = typeNames.count
                guard last - first + 1 == Int64(count), keys.count == count, kindNames.count == count,
                    payloads.count == count
                else {
                    throw .server(sqlState: nil, message: "the changes \(first)...\(last) do not have one element each")
                }
                for index in 0..<count where first + Int64(index) > position && types[typeNames[index]] != nil {
                    let sequence = first + Int64(index)
                    if partial[typeNames[index]] != nil || kindNames[index] == "moved" {
                        lookUps[typeNames[index], default: [:]][Array(buffer: keys[index])] = sequence
                        continue
                    }
                    guard let kind = Self.kind(named: kindNames[index]) else {
                        throw .server(sqlState: nil, message: "change \(sequence) is of kind \(kindNames[index])")
                    }
                    let properties = try ChangePayload.decode(Array(buffer: payloads[index]), sequence: sequence)
                    changes.append(
                        IncomingChange(
                            sequence: sequence, typeName: typeNames[index], kind: kind, key: Array(buffer: keys[index]),
                            properties: properties))
                }
            }
            // The numbers after the last push read that no push holds (none while they are dense) are
            // passed too, up to the window's end; never past the sequence's last.
            let through = max(position, found.last?.1 ?? min(newest, windowEnd))
            var leaving: [IncomingChange] = []
            for (name, keys) in lookUps.sorted(by: { $0.key < $1.key }) {
                guard let schema = types[name] else { continue }
                let current = try await currentObjects(
                    of: schema, keys: keys, condition: partial[name]?.condition ?? "TRUE", keyTypes: keyTypes)
                changes += current.arriving
                leaving += current.leaving
            }
            return .changes(changes, leaving: leaving, through: through, caughtUp: through >= newest)
        }

        /// A type synced only as far as subscriptions reach: their condition (SQL over its table `t`).
        struct PartialType: Sendable {
            let condition: String
        }

        /// What a pull found.
        enum PullOutcome {
            /// `leaving`: objects of partial types that are gone or no longer match (to delete where
            /// no local change waits to be pushed).
            case changes([IncomingChange], leaving: [IncomingChange], through: Int64, caughtUp: Bool)
            /// The client has nothing yet, or the changes after its position are gone (trimmed): it
            /// starts over from the typed tables (`snapshot`).
            case startOver
        }

        static func kindName(_ kind: CapturedChange.Kind) -> String {
            switch kind {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }

        static func kind(named name: String) -> CapturedChange.Kind? {
            switch name {
            case "insert": .insert
            case "update": .update
            case "delete": .delete
            default: nil
            }
        }

        // MARK: Errors

        /// What a failure of postgres-nio or SwiftNIO means for sync (never handed out as it is).
        static func syncError(_ error: any Error) -> SyncError {
            if let error = error as? SyncError { return error }
            guard let error = error as? PSQLError else { return .unreachable(String(describing: error)) }
            if let underlying = error.underlying, isCertificateFailure(underlying) {
                return .untrustedServer(String(describing: underlying))
            }
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState]
                let message = error.serverInfo?[.message] ?? "no message"
                if state == "28P01" || state == "28000" { return .authenticationFailed(message) }
                if let state, state.hasPrefix("08") || state.hasPrefix("57P") { return .unreachable(message) }
                return .server(sqlState: state, message: message)
            case .sslUnsupported:
                return .tlsUnavailable("the server answered that it does not speak TLS")
            case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
                return .unreachable(error.underlying.map { String(describing: $0) } ?? "\(error.code)")
            case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
                return .authenticationFailed("\(error.code)")
            default:
                return .server(sqlState: nil, message: "\(error.code)")
            }
        }
    }

    extension ServerConnection {
        /// Whether `error` is the TLS handshake refusing the server's certificate (BoringSSL's
        /// verification failed, or NIOSSL's check of the host name).
        static func isCertificateFailure(_ error: any Error) -> Bool {
            if let error = error as? NIOSSLExtraError { return error == .failedToValidateHostname }
            switch error as? NIOSSLError {
            case .handshakeFailed, .unableToValidateCertificate, .noCertificateToValidate: return true
            default: return false
            }
        }

        /// Listens on `channel` and calls `onNotification` for each notification, until the connection
        /// closes or the task is cancelled.
        func listen(channel: String, onNotification: @escaping @Sendable () async -> Void) async throws(SyncError) {
            do {
                try await connection.listen(on: channel) { notifications in
                    for try await _ in notifications { await onNotification() }
                }
            } catch {
                throw Self.syncError(error)
            }
        }
    }

    /// The first of a request's answer and its timeout, handed to the one waiting for it.
    private final class RequestOutcome<R: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Result<R, any Error>, Never>?
        private var early: Result<R, any Error>?
        private var done = false
        private var timer: Task<Void, Never>?

        func setTimer(_ timer: Task<Void, Never>) {
            lock.withLock { self.timer = timer }
        }

        func cancelTimer() {
            lock.withLock { timer }?.cancel()
        }

        func setContinuation(_ continuation: CheckedContinuation<Result<R, any Error>, Never>) {
            let ready: Result<R, any Error>? = lock.withLock {
                if let early { return early }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }

        /// Hands `result` on unless another came first; returns whether it was the first.
        @discardableResult
        func finish(_ result: Result<R, any Error>) -> Bool {
            let waiting: CheckedContinuation<Result<R, any Error>, Never>?? = lock.withLock {
                guard !done else { return .none }
                done = true
                if let continuation {
                    self.continuation = nil
                    return .some(continuation)
                }
                early = result
                return .some(nil)
            }
            guard case .some(let continuation) = waiting else { return false }
            continuation?.resume(returning: result)
            return true
        }
    }
#endif
