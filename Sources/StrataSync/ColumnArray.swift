#if Sync
    import Foundation
    import NIOCore
    import PostgresNIO
    @_spi(StrataSync) import Strata

    extension OutgoingScalar {
        /// The value as a `SyncValue` (the way of any column but the simplest).
        var syncValue: SyncValue {
            switch self {
            case .null: .null
            case .bool(let flag): .bool(flag)
            case .integer(let integer): .integer(integer)
            case .double(let double): .double(double)
            case .text(let utf8): .string(String(decoding: utf8, as: UTF8.self))
            case .bytes(let bytes): .data(Data(bytes))
            case .value(let value): value
            }
        }
    }

    /// One column of a batch as a one-dimensional PostgreSQL array in binary form, nulls included
    /// (postgres-nio's own arrays cannot hold a null). A push binds one per column and `unnest`s them
    /// into rows: PostgreSQL reads binary values without parsing text, the cheapest way in for many rows.
    struct ColumnArray: PostgresDynamicTypeEncodable {
        /// How a property's values travel: binary where PostgreSQL's binary form is simple, else text
        /// that the statement casts (`cast`) to the column's type.
        enum Element {
            case bool, int8, float8, text, bytea, uuid, timestamptz
            /// Text cast to the column's type (`numeric`, `jsonb`).
            case castText
            /// Any value as JSON text, cast to `jsonb` (a mixed value).
            case json

            init(_ type: SyncType, keyTypes: [String: SyncType]) {
                switch type {
                case .bool: self = .bool
                case .integer: self = .int8
                case .double: self = .float8
                case .string: self = .text
                case .data: self = .bytea
                case .uuid: self = .uuid
                case .date: self = .timestamptz
                case .objectId: self = .text
                case .unsigned, .decimal, .decimal128, .list, .set, .map, .embedded: self = .castText
                case .mixed: self = .json
                case .optional(let wrapped): self.init(wrapped, keyTypes: keyTypes)
                case .link(let target): self.init(keyTypes[target] ?? .string, keyTypes: keyTypes)
                }
            }

            var types: (element: PostgresDataType, array: PostgresDataType) {
                switch self {
                case .bool: (.bool, .boolArray)
                case .int8: (.int8, .int8Array)
                case .float8: (.float8, .float8Array)
                case .text, .castText, .json: (.text, .textArray)
                case .bytea: (.bytea, .byteaArray)
                case .uuid: (.uuid, .uuidArray)
                case .timestamptz: (.timestamptz, .timestamptzArray)
                }
            }
        }

        let element: Element
        private var elements = ByteBuffer()
        private(set) var count = 0
        private var hasNull = false

        init(_ element: Element, capacity: Int = 0) {
            self.element = element
            elements.reserveCapacity(capacity * 12)
        }

        var psqlType: PostgresDataType { element.types.array }
        var psqlFormat: PostgresFormat { .binary }

        mutating func appendNull() {
            append(byteCount: -1) { _ in }
            hasNull = true
        }

        mutating func append(_ flag: Bool) {
            append(byteCount: 1) { $0.write(UInt8(flag ? 1 : 0)) }
        }

        /// Appends `value` as this column's element type.
        ///
        /// - Throws: `SyncError.unsupportedType` for a value that is not of the column's type.
        mutating func append(_ value: SyncValue) throws(SyncError) {
            switch (element, value) {
            case (.json, .null): append(bytes: "null".utf8)  // a mixed .none: JSON's null, the column is NOT NULL
            case (_, .null): appendNull()
            case (.bool, .bool(let flag)): append(flag)
            case (.int8, .integer(let integer)): appendFixed(integer)
            case (.float8, .double(let double)): appendFixed(double.bitPattern)
            case (.text, .string(let string)): append(text: string)
            case (.bytea, .data(let data)): append(bytes: data)
            case (.uuid, .uuid(let uuid)): append(bytes: withUnsafeBytes(of: uuid.uuid) { Array($0) })
            case (.timestamptz, .date(let date)): appendFixed(Self.postgresMicroseconds(date))
            case (.castText, .unsigned(let integer)): append(bytes: String(integer).utf8)
            case (.castText, .integer(let integer)): append(bytes: String(integer).utf8)
            case (.castText, .decimal(let decimal)): append(bytes: "\(decimal)".utf8)
            case (.castText, .decimal128(let decimal)): append(bytes: JSONText.numericText(decimal).utf8)
            case (.text, .objectId(let id)): append(bytes: id.stringValue.utf8)
            case (.json, _), (.castText, .list), (.castText, .map), (.castText, .mapPatch):
                var json = ""
                JSONText.append(value, to: &json)
                append(bytes: json.utf8)
            case (.castText, .set(let elements)):
                append(bytes: PostgresArrayText.literal(elements).utf8)
            default:
                throw .unsupportedType("the value \(value) in a column of \(element)")
            }
        }

        /// Appends a value read from the file's bytes (`OutgoingInsertSink`) as this column's element type.
        ///
        /// - Throws: `SyncError.unsupportedType` for a value that is not of the column's type.
        mutating func append(_ scalar: OutgoingScalar) throws(SyncError) {
            switch (element, scalar) {
            case (_, .value(let value)): try append(value)
            case (.int8, .integer(let integer)): appendFixed(integer)
            case (.float8, .double(let double)): appendFixed(double.bitPattern)
            case (.text, .text(let utf8)): append(raw: utf8)
            case (.bytea, .bytes(let bytes)): append(raw: bytes)
            case (.bool, .bool(let flag)): append(flag)
            case (.json, _), (.castText, _), (_, .null): try append(scalar.syncValue)
            default: throw .unsupportedType("the value \(scalar.syncValue) in a column of \(element)")
            }
        }

        private mutating func appendFixed<I: FixedWidthInteger>(_ integer: I) {
            append(byteCount: I.bitWidth / 8) { $0.write(integer.bigEndian) }  // PostgreSQL's byte order
        }

        /// Appends bytes as they are: an element of a `text` (UTF-8) or `bytea` column.
        mutating func append(bytes: some Collection<UInt8>) {
            append(byteCount: bytes.count) { $0.write(bytes) }
        }

        /// Appends bytes as they are, copied at once.
        mutating func append(raw bytes: UnsafeRawBufferPointer) {
            append(byteCount: bytes.count) { $0.write(raw: bytes) }
        }

        /// Appends a string's UTF-8: an element of a `text` column.
        mutating func append(text: String) {
            append(byteCount: text.utf8.count) { $0.write(utf8Of: text) }
        }

        /// Appends an element of `byteCount` bytes (-1: null, no bytes) that `write` writes, in place:
        /// one reservation of the buffer per element, not one per part of it.
        private mutating func append(byteCount: Int, writing write: (inout ElementWriter) -> Void) {
            let total = 4 + max(0, byteCount)
            elements.writeWithUnsafeMutableBytes(minimumWritableBytes: total) { buffer in
                var writer = ElementWriter(buffer.baseAddress!, limit: total)
                writer.write(Int32(byteCount).bigEndian)
                write(&writer)
                precondition(writer.offset == total, "an element of \(byteCount) bytes written as \(writer.offset - 4)")
                return total
            }
            count += 1
        }

        /// Writes an element's bytes where `append(byteCount:writing:)` reserved room for them.
        private struct ElementWriter {
            private let base: UnsafeMutableRawPointer
            /// The bytes reserved: a write past them traps before it touches memory.
            private let limit: Int
            private(set) var offset = 0

            init(_ base: UnsafeMutableRawPointer, limit: Int) {
                self.base = base
                self.limit = limit
            }

            /// Writes an integer's bytes in memory order (the caller chooses the byte order).
            mutating func write<I: FixedWidthInteger>(_ integer: I) {
                precondition(offset + I.bitWidth / 8 <= limit, "a write past an element's reserved bytes")
                (base + offset).storeBytes(of: integer, as: I.self)
                offset += I.bitWidth / 8
            }

            mutating func write(_ bytes: some Collection<UInt8>) {
                guard bytes.withContiguousStorageIfAvailable({ write(raw: UnsafeRawBufferPointer($0)) }) == nil else {
                    return
                }
                for byte in bytes { write(byte) }
            }

            mutating func write(raw bytes: UnsafeRawBufferPointer) {
                precondition(offset + bytes.count <= limit, "a write past an element's reserved bytes")
                if let start = bytes.baseAddress { (base + offset).copyMemory(from: start, byteCount: bytes.count) }
                offset += bytes.count
            }

            mutating func write(utf8Of text: String) {
                var text = text
                text.withUTF8 { write($0) }
            }
        }

        /// PostgreSQL's timestamp: microseconds since 2000-01-01 UTC.
        private static func postgresMicroseconds(_ date: Date) -> Int64 {
            Int64(((date.timeIntervalSince1970 - 946_684_800) * 1_000_000).rounded())
        }

        func encode<JSONEncoder: PostgresJSONEncoder>(
            into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
        ) {
            guard count > 0 else {
                buffer.writeInteger(Int32(0))  // no dimensions: the empty array
                buffer.writeInteger(Int32(0))
                buffer.writeInteger(element.types.element.rawValue)
                return
            }
            buffer.writeInteger(Int32(1))
            buffer.writeInteger(Int32(hasNull ? 1 : 0))
            buffer.writeInteger(element.types.element.rawValue)
            buffer.writeInteger(Int32(count))
            buffer.writeInteger(Int32(1))  // lower bound
            var elements = elements
            buffer.writeBuffer(&elements)
        }
    }
#endif
