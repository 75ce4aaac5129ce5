import Foundation

/// A property value as sync sends it to its server (StrataSync): what other programs read there.
/// Links are the primary key of the object they point to.
@_spi(StrataSync)
public indirect enum SyncValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case uuid(UUID)
    case decimal(Decimal)
    case list([SyncValue])
}

/// The type of a property, as sync describes it to its server.
@_spi(StrataSync)
public indirect enum SyncType: Sendable, Hashable, CustomStringConvertible {
    case bool, integer, unsigned, double, string, data, date, uuid, decimal
    case optional(SyncType)
    /// A link to an object of the named type (always optional).
    case link(String)
    case list(SyncType)

    init(_ type: PropertyType) {
        switch type {
        case .bool: self = .bool
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32: self = .integer
        case .uint64: self = .unsigned
        case .float, .double: self = .double
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .uuid: self = .uuid
        case .decimal: self = .decimal
        case .optional(let wrapped): self = .optional(SyncType(wrapped))
        case .link(let target): self = .link(target)
        case .list(let element): self = .list(SyncType(element))
        }
    }

    public var description: String {
        switch self {
        case .bool: "bool"
        case .integer: "integer"
        case .unsigned: "unsigned"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .uuid: "uuid"
        case .decimal: "decimal"
        case .optional(let wrapped): "\(wrapped)?"
        case .link(let target): "link(\(target))"
        case .list(let element): "list(\(element))"
        }
    }
}

/// A synced type's stored columns, as sync describes it to its server.
@_spi(StrataSync)
public struct SyncTypeSchema: Sendable, Hashable {
    public struct Property: Sendable, Hashable {
        public let name: String
        public let type: SyncType
    }

    public let name: String
    /// The primary key property's name.
    public let primaryKey: String
    /// The stored columns, in the file's order.
    public let properties: [Property]
}

/// A change of the outbox with the values it sends: the object's properties as they are when read.
@_spi(StrataSync)
public struct OutgoingChange: Sendable, Equatable {
    public struct Property: Sendable, Equatable {
        public let name: String
        /// The column exactly as the file stores it (nil: null): what other clients apply.
        public let bytes: [UInt8]?
        /// The value, for the server's tables.
        public let value: SyncValue
    }

    /// The outbox place of the commit that made the change (`CapturedChange.sequence`).
    public let sequence: UInt64
    public let typeName: String
    public let kind: CapturedChange.Kind
    /// The object's key as stored.
    public let key: [UInt8]
    public let primaryKey: SyncValue
    /// Every property for an insert, the changed ones for an update, none for a delete.
    public let properties: [Property]
}

/// The outbox's next changes, and the place of the last commit they come from (nil: the outbox is
/// empty). A change to an object since deleted is left out (its delete follows), so `changes` may be
/// empty while `through` is not.
@_spi(StrataSync)
public struct OutgoingBatch: Sendable, Equatable {
    public let changes: [OutgoingChange]
    public let through: UInt64?
    /// How many changes the outbox records of the batch hold (left-out ones included).
    public let recordedCount: Int
}

/// A change another client made, as the server ordered it.
@_spi(StrataSync)
public struct IncomingChange: Sendable, Equatable {
    public struct Property: Sendable, Equatable {
        public let name: String
        /// The column as the sending file stored it (nil: null).
        public let bytes: [UInt8]?

        public init(name: String, bytes: [UInt8]?) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The server's sequence number of the change.
    public let sequence: Int64
    public let typeName: String
    public let kind: CapturedChange.Kind
    public let key: [UInt8]
    public let properties: [Property]

    public init(sequence: Int64, typeName: String, kind: CapturedChange.Kind, key: [UInt8], properties: [Property]) {
        self.sequence = sequence
        self.typeName = typeName
        self.kind = kind
        self.key = key
        self.properties = properties
    }
}

extension Store {
    /// The stored columns of `types`, as sync describes them to its server.
    ///
    /// - Throws: `.schemaMismatch` for a type outside the Store's schema or without a primary key
    ///   (sync names objects by primary key), `.wrongThread`.
    @_spi(StrataSync)
    public func syncSchema(of types: [Object.Type]) throws(StoreError) -> [SyncTypeSchema] {
        try core.checkConfined()
        return try types.map { (type) throws(StoreError) in
            let binding = try core.binding(for: type)
            guard let keyColumn = binding.primaryKeyColumn else {
                throw .schemaMismatch("\(binding.name) has no primary key: sync names objects by primary key")
            }
            return SyncTypeSchema(
                name: binding.name, primaryKey: binding.columnNames[keyColumn],
                properties: zip(binding.columnNames, binding.columnTypes).map {
                    SyncTypeSchema.Property(name: $0, type: SyncType($1))
                })
        }
    }

    /// The outbox's changes after `sequence`, oldest first, with their values read in one snapshot
    /// of the last commit: whole commits, until `limit` changes are reached or passed.
    ///
    /// - Throws: `.corrupted` for a record or row that cannot be read, `.schemaMismatch`,
    ///   `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func outgoingChanges(after sequence: UInt64 = 0, limit: Int = .max) throws(StoreError) -> OutgoingBatch {
        try core.checkConfined()
        return try core.outgoingChanges(after: sequence, limit: limit)
    }

    /// Applies changes pulled from the server in the open write (call it inside `write` or
    /// `asyncWrite`), under the rules of sync: changes to objects the outbox still holds yield to
    /// them, changes at or before the stored position are skipped, and the position becomes
    /// `position`, in the same transaction. Observers hear of the changes as of local ones; the outbox
    /// records none of them. Returns how many objects changed.
    ///
    /// - Throws: `.notInWriteTransaction`, `.schemaMismatch`, `.corrupted` (a value that is not of its
    ///   property's type: the write is then to be cancelled, as `write` and `asyncWrite` do),
    ///   `.wrongThread`, `.mapFull`, `.storage`.
    @_spi(StrataSync)
    @discardableResult
    public func applyIncomingChanges(_ changes: [IncomingChange], through position: Int64) throws(StoreError) -> Int {
        try core.applyIncomingChanges(changes, through: position)
    }

    /// The server position this file applied changes through (0: none yet).
    ///
    /// - Throws: `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func syncPosition() throws(StoreError) -> Int64 {
        try core.checkConfined()
        return try core.syncMetaValue(SyncMeta.pulledKey).map(StoreCore.decodePosition) ?? 0
    }

    /// A value sync keeps in the file (`name` under the `sync.` prefix), such as its client id.
    ///
    /// - Throws: `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func syncSetting(_ name: String) throws(StoreError) -> String? {
        try core.checkConfined()
        return try core.syncMetaValue(Array((SyncMeta.prefix + name).utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Stores a sync setting in the open write.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.storage`.
    @_spi(StrataSync)
    public func setSyncSetting(_ name: String, to value: String) throws(StoreError) {
        let session = try core.writableSession()
        try core.setSyncMetaValue(Array((SyncMeta.prefix + name).utf8), Array(value.utf8), session: session)
    }
}

extension Store {
    /// The version of the file's last commit, by any Store or process (cheap: no transaction). Sync
    /// polls it to push soon after a local commit.
    ///
    /// - Throws: `.storage`.
    @_spi(StrataSync)
    public func latestCommitVersion() throws(StoreError) -> Int {
        try StoreError.mapping { () throws(StorageError) in try core.environment.latestVersion() }
    }
}
