import Foundation

/// How a table's keys are encoded: fixed 8-byte big-endian integers (integer primary keys, and the
/// row ids of types without a primary key), tagged UTF-8 strings, or 16-byte UUIDs.
enum KeyKind: String, Codable, Hashable, Sendable {
    case integer, string, uuid, objectId
}

/// The encoded key of a row. Byte order equals value order, so LMDB's default comparison (memcmp)
/// sorts rows by primary key.
///
/// - Signed integers: the value with its sign bit flipped, big-endian (so -1 < 0 < 1 bytewise).
/// - Unsigned integers and row ids: big-endian.
/// - Strings: a 0x01 tag byte, then UTF-8 (LMDB refuses empty keys; the tag makes "" storable).
/// - UUIDs: their 16 bytes, held as two big-endian halves (no array to allocate per key).
/// - ObjectIds: their 12 bytes (which sort as the ids).
@usableFromInline
enum RowKey: Hashable, Sendable {
    case integer(UInt64)
    /// 16 bytes: the first eight and the last eight, each read big-endian (so they order as the bytes).
    case wide(UInt64, UInt64)
    case bytes([UInt8])

    static let stringTag: UInt8 = 0x01

    static func signed(_ value: Int64) -> RowKey {
        .integer(UInt64(bitPattern: value) ^ (1 << 63))
    }

    static func string(_ value: String) -> RowKey {
        var bytes = [UInt8]()
        bytes.reserveCapacity(value.utf8.count + 1)
        bytes.append(stringTag)
        bytes.append(contentsOf: value.utf8)
        return .bytes(bytes)
    }

    static func uuid(_ value: UUID) -> RowKey {
        Swift.withUnsafeBytes(of: value.uuid) { wide($0) }
    }

    /// 16 bytes as a key.
    static func wide(_ bytes: UnsafeRawBufferPointer) -> RowKey {
        .wide(
            UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
            UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    /// Reads a stored key back. Throws when its length cannot be a key of this kind.
    init(stored bytes: UnsafeRawBufferPointer, kind: KeyKind) throws(RowDamage) {
        switch kind {
        case .integer:
            guard bytes.count == 8 else { throw RowDamage("an integer key has \(bytes.count) bytes, not 8") }
            self = .integer(UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
        case .string:
            guard bytes.first == Self.stringTag else { throw RowDamage("a string key lacks its tag byte") }
            self = .bytes(Array(bytes))
        case .uuid:
            guard bytes.count == 16 else { throw RowDamage("a UUID key has \(bytes.count) bytes, not 16") }
            self = .wide(bytes)
        case .objectId:
            guard bytes.count == 12 else { throw RowDamage("an ObjectId key has \(bytes.count) bytes, not 12") }
            self = .bytes(Array(bytes))
        }
    }

    var byteCount: Int {
        switch self {
        case .integer: 8
        case .wide: 16
        case .bytes(let bytes): bytes.count
        }
    }

    @inlinable
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch self {
        case .integer(let value):
            var bigEndian = value.bigEndian
            return try Swift.withUnsafeBytes(of: &bigEndian) { (raw) throws(E) -> R in try body(raw) }
        case .wide(let high, let low):
            var halves = (high.bigEndian, low.bigEndian)
            return try Swift.withUnsafeBytes(of: &halves) { (raw) throws(E) -> R in try body(raw) }
        case .bytes(let bytes):
            return try bytes.withBytes { (raw) throws(E) -> R in try body(raw) }
        }
    }

    /// The key as the value a user would recognise, for messages (`alreadyExists(primaryKey:)`).
    func describe(as kind: KeyKind, signed: Bool) -> String {
        switch (self, kind) {
        case (.integer(let value), .integer):
            signed ? String(Int64(bitPattern: value ^ (1 << 63))) : String(value)
        case (.bytes(let bytes), .string):
            String(decoding: bytes.dropFirst(), as: UTF8.self)
        case (.wide, .uuid):
            withBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)).uuidString }
        default:
            withBytes { (raw: UnsafeRawBufferPointer) in  // hex, as an ObjectId's text
                raw.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            }
        }
    }
}

extension RowKey: Comparable {
    /// The order of keys in their table: LMDB's default, bytewise (a prefix before its extensions).
    /// Integer and UUID keys compare as numbers, which is the same order (they are stored big-endian).
    @usableFromInline
    static func < (lhs: RowKey, rhs: RowKey) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a < b
        case (.wide(let a, let b), .wide(let c, let d)): (a, b) < (c, d)
        default: lhs.withBytes { a in rhs.withBytes { b in a.lexicographicallyPrecedes(b) } }
        }
    }
}

/// Why a row, key or value could not be decoded. The Store layer adds which type, key and property.
@usableFromInline
struct RowDamage: Error, CustomStringConvertible {
    @usableFromInline let description: String
    @usableFromInline init(_ description: String) { self.description = description }
}
