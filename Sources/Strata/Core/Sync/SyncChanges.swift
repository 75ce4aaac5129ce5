import Foundation

/// A property value as sync sends it to its server (StrataSync): what other programs read there.
/// Links are the primary key of the object they point to.
@_spi(StrataSync)
public enum SyncValue: Sendable, Hashable {
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
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case list([SyncValue])
    /// A MutableSet's elements, in the set's order.
    case set([SyncValue])
    case map([String: SyncValue])
    /// Some keys of a Map: the values of those set, and those removed (last-writer-wins per key).
    case mapPatch(set: [String: SyncValue], removed: [String])
}

/// The type of a property, as sync describes it to its server.
@_spi(StrataSync)
public indirect enum SyncType: Sendable, Hashable, CustomStringConvertible {
    case bool, integer, unsigned, double, string, data, date, uuid, decimal, objectId, decimal128
    /// A mixed value (`AnyValue`).
    case mixed
    case optional(SyncType)
    /// A link to an object of the named type (always optional).
    case link(String)
    case list(SyncType)
    case set(SyncType)
    /// A Map with String keys and values of this type.
    case map(SyncType)
    /// A link to an EmbeddedObject of the named type, with its properties: sent inside its owner
    /// (the server holds it as `jsonb`).
    case embedded(String, [SyncTypeSchema.Property])

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
        case .objectId: self = .objectId
        case .decimal128: self = .decimal128
        case .mixed: self = .mixed
        case .optional(let wrapped): self = .optional(SyncType(wrapped))
        case .link(let target): self = .link(target)
        case .list(let element): self = .list(SyncType(element))
        case .set(let element): self = .set(SyncType(element))
        case .map(let value): self = .map(SyncType(value))
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
        case .objectId: "objectId"
        case .decimal128: "decimal128"
        case .mixed: "mixed"
        case .optional(let wrapped): "\(wrapped)?"
        case .link(let target): "link(\(target))"
        case .list(let element): "list(\(element))"
        case .set(let element): "set(\(element))"
        case .map(let value): "map(\(value))"
        case .embedded(let name, let properties):
            "embedded(\(name){\(properties.map { "\($0.name): \($0.type)" }.joined(separator: ", "))})"
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
        /// The value, for the server's tables (its bytes are in the change's `payload`).
        public let value: SyncValue
        /// Whether the property's bytes are a Map patch (`MapPatch`: some keys of the Map), not the
        /// whole column.
        public var isMapPatch = false
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
    /// The properties' names and bytes exactly as the file stores them (`ChangePayload`): what
    /// other clients apply.
    public let payload: [UInt8]
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
        /// The column as the sending file stored it (nil: null), or a Map patch.
        public let bytes: [UInt8]?
        /// Whether `bytes` are a Map patch (some keys of the Map), not the whole column.
        public let isMapPatch: Bool

        public init(name: String, bytes: [UInt8]?, isMapPatch: Bool = false) {
            self.name = name
            self.bytes = bytes
            self.isMapPatch = isMapPatch
        }
    }

    /// The server's sequence number of the change.
    public let sequence: Int64
    public let typeName: String
    public let kind: CapturedChange.Kind
    /// The object's stored key; empty for an insert to be keyed by its primary key property.
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

/// A change to an object of a captured type, as its commit recorded it in the file's outbox (change
/// capture: what StrataSync pushes to its server).
@_spi(StrataSync)
public struct CapturedChange: Sendable, Equatable {
    /// What happened to the object.
    public enum Kind: Sendable, Equatable {
        /// Stored anew (every property is sent).
        case insert
        /// Some properties set (`changedProperties`).
        case update
        /// Deleted.
        case delete
    }

    /// The place in the outbox of the commit that made the change (the changes of one commit share
    /// it): increasing with each commit, never reused.
    public let sequence: UInt64
    /// The object type's name (its class name).
    public let typeName: String
    public let kind: Kind
    /// The object's key as the file stores it (Strata's encoding of its primary key).
    public let key: [UInt8]
    /// The properties the change set: all of them for an insert, none for a delete. Their values are
    /// the object's as it is when read (a later change only brings a newer value).
    public let changedProperties: [String]
}
