#if Sync
    import Foundation
    @_spi(StrataSync) import Strata

    /// Who may see and change the objects of a synced type: the PostgreSQL role named by the object's
    /// `owner` property, and the members of the team named by its `team` property (if any). The server
    /// enforces it with row-level security (Docs/Sync.md, "Who may see what"); a client only learns
    /// of it to tell refused changes apart early.
    ///
    /// ```swift
    /// let sync = try await StoreSync(
    ///     configuration: configuration, server: server, types: [Todo.self],
    ///     access: [SyncAccess(Todo.self, owner: "ownerID", team: "listID")])
    /// ```
    /// A type without a rule is shared by every role of the sync's clients.
    public struct SyncAccess: Sendable, Hashable {
        public let typeName: String
        /// A `String` property holding the owner's PostgreSQL role name.
        public let ownerProperty: String
        /// A `String?` (or `String`) property holding a team's name (`strata.members` says who is in it).
        public let teamProperty: String?

        public init(_ type: Object.Type, owner: String, team: String? = nil) {
            typeName = String(describing: type)  // the name the Store gives the type
            ownerProperty = owner
            teamProperty = team
        }

        /// The rule as the server's `strata.types` describes it (part of the type's fingerprint).
        var fingerprint: String { "owner=\(ownerProperty)" + (teamProperty.map { ";team=\($0)" } ?? "") }
    }

    /// A change the server refused: to an object of another user, or one that would give an object
    /// away. It was not sent and will not be; the object stays as the app wrote it in this file until
    /// the app changes it back (or deletes it) or a pulled change overwrites it. Refused changes stay
    /// listed (`StoreSync.refusedChanges()`) until `dismissRefusedChanges()`.
    public struct RefusedChange: Sendable, Hashable, Codable {
        public enum Kind: String, Sendable, Hashable, Codable {
            case insert, update, delete
        }

        public let typeName: String
        /// The object's primary key, as text.
        public let primaryKey: String
        public let kind: Kind
        /// Why, as the server or the check before the push saw it.
        public let reason: String
        /// The change's outbox place (what keeps it from being sent again).
        let sequence: UInt64
        /// The object's stored key (base64).
        let storedKey: String

        init(_ change: OutgoingChange, reason: String) {
            typeName = change.typeName
            primaryKey = Self.text(change.primaryKey)
            kind =
                switch change.kind {
                case .insert: .insert
                case .update: .update
                case .delete: .delete
                }
            self.reason = reason
            sequence = change.sequence
            storedKey = Data(change.key).base64EncodedString()
        }

        /// Whether `change` is this one (the same outbox place, type and object).
        func matches(_ change: OutgoingChange) -> Bool {
            change.sequence == sequence && change.typeName == typeName
                && Data(change.key).base64EncodedString() == storedKey
        }

        /// A primary key as PostgreSQL's text of it (what `strata.inaccessible_keys` compares).
        static func text(_ key: SyncValue) -> String {
            switch key {
            case .integer(let value): String(value)
            case .unsigned(let value): String(value)
            case .string(let value): value
            case .uuid(let value): value.uuidString.lowercased()
            case .objectId(let value): value.stringValue
            default: "\(key)"
            }
        }
    }

    /// A rule resolved against a type's schema: its columns' positions.
    struct AccessRule: Sendable, Hashable {
        let access: SyncAccess
        let ownerIndex: Int
        let teamIndex: Int?
        let keyIndex: Int

        /// - Throws: `.unsupportedType` for a property the type lacks or that does not hold text, or
        ///   a primary key the server cannot compare (only Int, String and UUID keys).
        init(_ access: SyncAccess, type: SyncTypeSchema) throws(SyncError) {
            func textColumn(_ name: String) throws(SyncError) -> Int {
                guard let index = type.properties.firstIndex(where: { $0.name == name }) else {
                    throw .unsupportedType("\(type.name) has no property \(name) to name who may see it")
                }
                switch type.properties[index].type {
                case .string, .optional(.string): return index
                default: throw .unsupportedType("\(type.name).\(name) names a role or team: it must be a String")
                }
            }
            self.access = access
            ownerIndex = try textColumn(access.ownerProperty)
            teamIndex = try access.teamProperty.map { (name) throws(SyncError) in try textColumn(name) }
            keyIndex = type.properties.firstIndex { $0.name == type.primaryKey } ?? 0
            switch type.properties[keyIndex].type {
            case .integer, .string, .uuid: break
            default:
                throw .unsupportedType(
                    "\(type.name): a type with access rules needs an Int, String or UUID primary key")
            }
        }
    }

    /// Who this client is on the server: its role and the teams `strata.members` puts it in.
    struct ServerIdentity: Sendable, Hashable {
        let role: String
        let teams: Set<String>

        /// Whether an object with these owner and team values is one this client may hold.
        func mayAccess(owner: String?, team: String?) -> Bool {
            owner == role || team.map(teams.contains) == true
        }
    }
#endif
