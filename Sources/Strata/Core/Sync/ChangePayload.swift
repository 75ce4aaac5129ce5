/// The bytes of a change's properties as StrataSync's server keeps them (`strata.changes.payloads`,
/// one element per change, and a typed row's image): a count (UInt16), then per property its name's
/// length (UInt16), its name (UTF-8), its value's length (Int32, -1: null; -2 - n: a Map patch of n
/// bytes, `MapPatch`) and its value as the sending file stores it, little-endian. Clients apply it as
/// it is; the server's typed tables hold the same values for other programs.
@_spi(StrataSync)
public enum ChangePayload {
    /// Bytes that are not a payload.
    public struct Damage: Error, Sendable {
        public let message: String
    }

    /// Makes a payload, property by property, in one array (no array per property first).
    struct Writer {
        private(set) var bytes: [UInt8] = [0, 0]
        private var count = 0

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func append(name: String, value: UnsafeRawBufferPointer?, isMapPatch: Bool = false) {
            count += 1
            var name = name
            name.withUTF8 { name in
                append(UInt16(truncatingIfNeeded: name.count))
                bytes.append(contentsOf: name)  // UnsafeBufferPointer<UInt8>: copied at once
            }
            guard let value else { return append(Int32(-1)) }
            append(isMapPatch ? -2 - Int32(value.count) : Int32(value.count))
            bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))  // a typed buffer: copied at once
        }

        mutating func append(name: String, value: [UInt8]?, isMapPatch: Bool = false) {
            value.withOptionalBytes { append(name: name, value: $0, isMapPatch: isMapPatch) }
        }

        /// Empties the writer for the next payload, keeping its capacity.
        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: [0, 0])
            count = 0
        }

        /// Runs `body` with the payload's bytes, its count written.
        mutating func withFinishedBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            writeCount()
            return bytes.withUnsafeBytes(body)
        }

        /// The payload, its count written.
        consuming func finish() -> [UInt8] {
            writeCount()
            return bytes
        }

        private mutating func writeCount() {
            bytes[0] = UInt8(truncatingIfNeeded: count)
            bytes[1] = UInt8(truncatingIfNeeded: count >> 8)
        }

        private mutating func append<I: FixedWidthInteger>(_ integer: I) {
            withUnsafeBytes(of: integer.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    /// The property names of the payloads decoded before, by position: payloads of one type name
    /// the same properties in the same order, and a name seen there is not made again.
    public struct Names {
        var known: [String] = []

        public init() {}

        mutating func name(at position: Int, _ bytes: ArraySlice<UInt8>) -> String {
            if position < known.count, known[position].utf8.elementsEqual(bytes) { return known[position] }
            let name = String(decoding: bytes, as: UTF8.self)
            if position < known.count {
                known[position] = name
            } else if position == known.count {
                known.append(name)
            }
            return name
        }
    }

    /// The properties a payload holds.
    ///
    /// - Throws: `Damage` when the bytes are not a payload.
    public static func decode(_ bytes: [UInt8], names: inout Names) throws(Damage) -> [IncomingChange.Property] {
        var position = 0
        func take(_ count: Int) throws(Damage) -> ArraySlice<UInt8> {
            guard count >= 0, position + count <= bytes.count else {
                throw Damage(message: "its payload of \(bytes.count) bytes ends early")
            }
            defer { position += count }
            return bytes[position..<position + count]
        }
        func take16() throws(Damage) -> Int {
            let two = try take(2)
            return Int(two[two.startIndex]) | Int(two[two.startIndex + 1]) << 8
        }
        var properties: [IncomingChange.Property] = []
        let count = try take16()
        properties.reserveCapacity(count)
        for position in 0..<count {
            let name = names.name(at: position, try take(try take16()))
            let four = try take(4)
            let length = four.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let signed = Int32(bitPattern: length)
            let isMapPatch = signed <= -2
            let value = signed == -1 ? nil : Array(try take(Int(isMapPatch ? -2 - signed : signed)))
            properties.append(IncomingChange.Property(name: name, bytes: value, isMapPatch: isMapPatch))
        }
        guard position == bytes.count else { throw Damage(message: "its payload has bytes past its properties") }
        return properties
    }

    /// The properties a payload holds.
    ///
    /// - Throws: `Damage` when the bytes are not a payload.
    public static func decode(_ bytes: [UInt8]) throws(Damage) -> [IncomingChange.Property] {
        var names = Names()
        return try decode(bytes, names: &names)
    }
}
