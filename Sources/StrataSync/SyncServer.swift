#if Sync
    /// Where the server of record runs: a PostgreSQL database StrataSync creates its tables in.
    ///
    /// ```swift
    /// let server = SyncServer(host: "db.internal", username: "app", password: secret, database: "app")
    /// // TLS, the server's certificate checked against the system's roots and its host name
    /// ```
    public struct SyncServer: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        /// How the connection is protected. The default (`init`'s `tls: nil`): `.verifyFull(.system)` for
        /// any host but the loopback, where traffic never leaves the machine and `.disable` is the default.
        public var tls: TLS
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
        /// How often (at most) a client asks the server, after a pull, to drop the changes every recent
        /// client has (`strata.trim_history`; the window is the server's, Docs/Sync.md).
        public var trimInterval: Duration = .seconds(60)

        /// How a connection to the server is protected (libpq's `sslmode` of the same names).
        public enum TLS: Sendable, Hashable {
            /// No TLS: the password's proof, every query and every change cross the network in the clear.
            /// Only for a server on the loopback or a network you control end to end.
            case disable
            /// Encrypted, but the server's certificate is not checked: protects from eavesdropping, not from
            /// a machine that poses as the server (it would receive every change pushed).
            case require
            /// Encrypted, and the server must prove it is `host` with a certificate signed by one of
            /// `rootCertificates`. Nothing is sent before the server passed (no password, no change).
            case verifyFull(rootCertificates: RootCertificates)

            /// `.verifyFull` with the system's trusted roots.
            public static var verifyFull: TLS { .verifyFull(rootCertificates: .system) }
        }

        /// The certificate authorities a `.verifyFull` connection trusts.
        public enum RootCertificates: Sendable, Hashable {
            /// The system's trust store (Debian: the `ca-certificates` package).
            case system
            /// Certificates in PEM, read from a file (a private CA's, say) each time a connection opens.
            case pemFile(String)
            /// Certificates in PEM.
            case pem(String)
        }

        /// - Parameter tls: nil: `.verifyFull(rootCertificates: .system)`, or `.disable` for a loopback
        ///   `host` (`127.0.0.1`, `::1`, `localhost`).
        public init(
            host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil,
            database: String, tls: TLS? = nil, connectTimeout: Duration = .seconds(5),
            pollInterval: Duration = .seconds(1), batchSize: Int = 2_000, requestTimeout: Duration = .seconds(30)
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls ?? (Self.isLoopback(host) ? .disable : .verifyFull)
            self.connectTimeout = connectTimeout
            self.pollInterval = pollInterval
            self.batchSize = max(1, batchSize)
            self.requestTimeout = requestTimeout
        }

        static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }
#endif
