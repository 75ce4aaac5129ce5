#if Sync
    import Strata

    /// Why sync could not do what was asked. Sync never crashes and never loses a local commit: a
    /// failed push leaves the outbox as it was, a failed pull applies nothing of its batch.
    public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The server did not answer in time, or the connection broke (`reason` says how). Offline is
        /// normal: local writes go on, and `start()` keeps trying.
        case unreachable(String)
        /// The server refused the user name or password (or, its `pg_hba.conf` says, a connection
        /// without TLS).
        case authenticationFailed(String)
        /// The server did not prove who it is (`SyncServer.TLS.verifyFull`): its certificate is not
        /// signed by a trusted root, names another host, or has expired; or the root certificates
        /// could not be read. Nothing was sent to it: no password, no change.
        case untrustedServer(String)
        /// TLS was asked for and the server does not offer it (its `ssl` is off). Nothing was sent.
        case tlsUnavailable(String)
        /// The server's tables describe a type otherwise than this client's schema does (another
        /// version of the app made them), or the server speaks another version of the sync protocol.
        case schemaMismatch(String)
        /// A type sync cannot carry (one without a primary key).
        case unsupportedType(String)
        /// A subscription's condition the server cannot evaluate (through a link, on a collection, a
        /// sort or limit, `[d]`), or a subscription to a type synced whole.
        case unsupportedQuery(String)
        /// The server refused a statement (its SQLSTATE and message), or sent what sync cannot read.
        case server(sqlState: String?, message: String)
        /// The local Store failed (its file, a damaged value).
        case store(StoreError)
        /// The sync was stopped while the call waited.
        case stopped

        public var description: String {
            switch self {
            case .unreachable(let reason): "the sync server is unreachable: \(reason)"
            case .authenticationFailed(let reason): "the sync server refused the credentials: \(reason)"
            case .untrustedServer(let reason): "the sync server did not prove who it is: \(reason)"
            case .tlsUnavailable(let reason): "the sync server does not offer TLS: \(reason)"
            case .schemaMismatch(let reason): "the sync server's schema differs from this client's: \(reason)"
            case .unsupportedType(let reason): "this type cannot be synced: \(reason)"
            case .unsupportedQuery(let reason): "this subscription cannot be evaluated by the server: \(reason)"
            case .server(let state, let message): "the sync server failed (\(state ?? "no SQLSTATE")): \(message)"
            case .store(let error): "the local Store failed: \(error)"
            case .stopped: "the sync was stopped"
            }
        }
    }
#endif
