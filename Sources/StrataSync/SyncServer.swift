#if Sync
    /// Where the server of record runs: a PostgreSQL database StrataSync creates its tables in.
    ///
    /// ```swift
    /// let server = SyncServer(host: "db.internal", username: "app", password: secret, database: "app")
    /// ```
    public struct SyncServer: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        /// How long a connection attempt may take before the server counts as unreachable.
        public var connectTimeout: Duration
        /// How often a client asks for changes when no notification came while its listening
        /// connection is down (LISTEN/NOTIFY is the fast path; this is the fallback). While it listens,
        /// an idle client asks every 30 seconds (or every `pollInterval`, if longer).
        public var pollInterval: Duration
        /// How long one statement may take before the connection counts as broken (`.unreachable`): a
        /// server that stopped, or a half-open connection, never answers otherwise.
        public var requestTimeout: Duration
        /// How many changes one push or pull carries at most (one PostgreSQL transaction, one Strata write).
        public var batchSize: Int

        public init(
            host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil,
            database: String, connectTimeout: Duration = .seconds(5), pollInterval: Duration = .seconds(1),
            batchSize: Int = 2_000, requestTimeout: Duration = .seconds(30)
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.connectTimeout = connectTimeout
            self.pollInterval = pollInterval
            self.batchSize = max(1, batchSize)
            self.requestTimeout = requestTimeout
        }
    }
#endif
