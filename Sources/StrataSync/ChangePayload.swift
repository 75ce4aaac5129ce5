#if Sync
    @_spi(StrataSync) import Strata

    /// The bytes of a change's properties in `strata.changes.payloads` (one element per change): a count (UInt16), then per
    /// property its name's length (UInt16), its name (UTF-8), its value's length (Int32, -1: null;
    /// -2 - n: a Map patch of n bytes, `MapPatch`) and its value as the sending file stores it,
    /// little-endian. Clients apply it as it is; the server's
    /// typed tables hold the same values for other programs.
    enum ChangePayload {
        static func encode<Entry: PayloadEntry>(_ properties: [Entry]) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(2 + properties.reduce(0) { $0 + 6 + $1.name.utf8.count + ($1.bytes?.count ?? 0) })
            append16(properties.count, to: &bytes)
            for property in properties {
                append16(property.name.utf8.count, to: &bytes)
                bytes += property.name.utf8
                var length = Int32(property.bytes?.count ?? -1)
                if property.isMapPatch, let bytes = property.bytes { length = -2 - Int32(bytes.count) }
                withUnsafeBytes(of: length.littleEndian) { bytes += $0 }
                if let value = property.bytes { bytes += value }
            }
            return bytes
        }

        /// - Throws: `SyncError.server` when the bytes are not a payload (nothing of the batch is applied).
        static func decode(_ bytes: [UInt8], sequence: Int64) throws(SyncError) -> [IncomingChange.Property] {
            var names = Names()
            return try decode(bytes, sequence: sequence, names: &names)
        }

        /// The property names of the payloads decoded before, by position: payloads of one type name
        /// the same properties in the same order, and a name seen there is not made again.
        struct Names {
            var known: [String] = []

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

        static func decode(_ bytes: [UInt8], sequence: Int64, names: inout Names) throws(SyncError)
            -> [IncomingChange.Property]
        {
            var position = 0
            func take(_ count: Int) throws(SyncError) -> ArraySlice<UInt8> {
                guard count >= 0, position + count <= bytes.count else {
                    throw .server(
                        sqlState: nil, message: "change \(sequence): its payload of \(bytes.count) bytes ends early")
                }
                defer { position += count }
                return bytes[position..<position + count]
            }
            func take16() throws(SyncError) -> Int {
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
            guard position == bytes.count else {
                throw .server(sqlState: nil, message: "change \(sequence): its payload has bytes past its properties")
            }
            return properties
        }

        /// An object's image (every property's bytes) as a payload.
        static func encode(image: [OutgoingChange.ImageColumn]) -> [UInt8] { encode(image) }

        private static func append16(_ value: Int, to bytes: inout [UInt8]) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
    }

    /// What a payload holds of a property: its name and bytes, and whether they are a Map patch.
    protocol PayloadEntry {
        var name: String { get }
        var bytes: [UInt8]? { get }
        var isMapPatch: Bool { get }
    }

    extension OutgoingChange.Property: PayloadEntry {}

    extension OutgoingChange.ImageColumn: PayloadEntry {
        var isMapPatch: Bool { false }
    }
#endif
