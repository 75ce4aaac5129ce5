import Foundation
import Synchronization

/// A 12-byte identifier, as MongoDB and Realm make them: a 4-byte timestamp (seconds since 1970,
/// big-endian), 5 bytes random per process, and a 3-byte counter (big-endian) that starts at a random
/// value. Ids generated later in a process sort after earlier ones (within a second, by the counter).
///
/// ```swift
/// final class Contact: Object {
///     @Persisted(primaryKey: true) var id = ObjectId.generate()
/// }
/// let id = try ObjectId(string: "000123450000ffbeef91906c")
/// print(id.stringValue, id.timestamp)
/// ```
public struct ObjectId: Hashable, Comparable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// Bytes 0–7 and 8–11, read big-endian: they compare and hash as the bytes do, with no array.
    let head: UInt64
    let tail: UInt32

    /// The id made of these 12 bytes.
    ///
    /// - Throws: `StoreError.invalidArgument` when there are not 12.
    public init(bytes: some Collection<UInt8>) throws(StoreError) {
        guard bytes.count == 12 else { throw .invalidArgument("an ObjectId has 12 bytes, not \(bytes.count)") }
        let all = Array(bytes)
        head = all[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        tail = all[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The id whose 12 bytes are at `raw` (a stored value or key: the caller checked the length).
    init(stored raw: UnsafeRawBufferPointer) {
        head = UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
        tail = UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    init(timeSeconds: UInt32, middle: UInt64, count: UInt32) {
        head = UInt64(timeSeconds) << 32 | ((middle >> 8) & 0xFFFF_FFFF)
        tail = UInt32(truncatingIfNeeded: middle & 0xFF) << 24 | (count & 0xFF_FFFF)
    }

    /// The id written as 24 hexadecimal digits (either case), as `stringValue` gives it.
    ///
    /// - Throws: `StoreError.invalidArgument` for anything else.
    public init(string: String) throws(StoreError) {
        let digits = Array(string.utf8)
        var bytes = [UInt8](repeating: 0, count: 12)
        guard digits.count == 24 else { throw .invalidArgument("an ObjectId is 24 hex digits, not \"\(string)\"") }
        for index in 0..<12 {
            guard let high = Self.hexValue(digits[2 * index]), let low = Self.hexValue(digits[2 * index + 1]) else {
                throw .invalidArgument("an ObjectId is 24 hex digits, not \"\(string)\"")
            }
            bytes[index] = high << 4 | low
        }
        try self.init(bytes: bytes)
    }

    /// `LosslessStringConvertible`: the id of 24 hex digits, or nil.
    public init?(_ description: String) {
        guard let id = try? ObjectId(string: description) else { return nil }
        self = id
    }

    /// An id of `timestamp` (whole seconds) with these machine (3 bytes) and process (2 bytes) parts
    /// and a fresh count, as Realm's `ObjectId(timestamp:machineId:processId:)`.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let machine = UInt64(truncatingIfNeeded: machineId) & 0xFF_FFFF
        let middle = machine << 16 | UInt64(truncatingIfNeeded: processId) & 0xFFFF
        self.init(timeSeconds: Self.seconds(timestamp), middle: middle, count: ObjectIdSource.shared.nextCount())
    }

    /// A new id: now, this process's random part, the next count.
    public static func generate() -> ObjectId {
        let source = ObjectIdSource.shared
        return ObjectId(timeSeconds: seconds(Date()), middle: source.processPart, count: source.nextCount())
    }

    private static func seconds(_ date: Date) -> UInt32 {
        UInt32(truncatingIfNeeded: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The 12 bytes, first to last.
    public var bytes: [UInt8] {
        withBytes { Array($0) }
    }

    /// Runs `body` with the 12 bytes (as stored in a row or a key).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var parts = (head.bigEndian, tail.bigEndian)
        return try withUnsafeBytes(of: &parts) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<12])) }
    }

    /// The 24 lowercase hex digits.
    public var stringValue: String {
        withBytes { raw in
            String(unsafeUninitializedCapacity: 24) { text in
                for (index, byte) in raw.enumerated() {
                    text[2 * index] = Self.hexDigits[Int(byte >> 4)]
                    text[2 * index + 1] = Self.hexDigits[Int(byte & 0xF)]
                }
                return 24
            }
        }
    }

    /// The 24 hex digits (`stringValue`).
    public var description: String { stringValue }

    /// When the id was made (whole seconds).
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(UInt32(truncatingIfNeeded: head >> 32)))
    }

    /// Byte order: the order of their timestamps, then of the rest.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.head, lhs.tail) < (rhs.head, rhs.tail)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The per-process parts of generated ids: 5 random bytes, and a 24-bit counter starting at random.
private final class ObjectIdSource: Sendable {
    static let shared = ObjectIdSource()

    let processPart = UInt64.random(in: 0...0xFF_FFFF_FFFF)
    private let counter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))

    func nextCount() -> UInt32 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue & 0xFF_FFFF
    }
}

extension ObjectId: Codable {
    /// Decodes the 24 hex digits `stringValue` gives.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = try ObjectId(string: try container.decode(String.self))
    }

    /// Encodes `stringValue`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

extension RowKey {
    /// The key of an ObjectId primary key: its 12 bytes.
    static func objectId(_ value: ObjectId) -> RowKey {
        .bytes(value.bytes)
    }
}
