import Foundation

/// Values of properties known only by their stored type (migrations read old rows that no Swift
/// class describes any more): decoded to and encoded from `Any`.
enum DynamicValue {
    /// The Swift type a scalar property type is read as.
    static func swiftType(_ type: PropertyType) -> (any _PersistableValue.Type)? {
        switch type {
        case .bool: Bool.self
        case .int8: Int8.self
        case .int16: Int16.self
        case .int32: Int32.self
        case .int64: Int.self
        case .uint8: UInt8.self
        case .uint16: UInt16.self
        case .uint32: UInt32.self
        case .uint64: UInt64.self
        case .float: Float.self
        case .double: Double.self
        case .string: String.self
        case .data: Data.self
        case .date: Date.self
        case .uuid: UUID.self
        case .decimal: Decimal.self
        case .objectId: ObjectId.self
        case .decimal128: Decimal128.self
        case .mixed: AnyValue.self
        case .optional, .link, .list, .map, .set: nil
        }
    }

    /// Decodes a column; links go through `link` (target type name, key bytes). With
    /// `resolvingMixedLinks`, a mixed value holding a link (at any depth of its lists and maps) goes
    /// through `link` too, and its lists and maps become arrays and dictionaries; otherwise a mixed
    /// value is an `AnyValue` whose links read `.none` (no Store resolves them).
    static func decode(
        _ bytes: UnsafeRawBufferPointer?, type: PropertyType, resolvingMixedLinks: Bool = false,
        link: (String, [UInt8]) throws(StoreError) -> Any?
    ) throws(StoreError) -> Any? {
        try walk(
            bytes, type: type, null: nil, link: { (target, key) throws(StoreError) in try link(target, Array(key)) },
            list: { $0.map { $0 as Any } },
            map: { entries in Dictionary(entries.map { ($0.key, $0.value as Any) }) { $1 } }, isNull: { $0 == nil },
            scalar: { (bytes, type) throws(StoreError) -> Any? in
                if resolvingMixedLinks, type == .mixed { return try mixed(bytes, link: link) }
                guard let swiftType = swiftType(type) else { throw .corrupted("\(type) is not a scalar type") }
                guard let value = try swiftType._strataDecodeValue(bytes, in: _DecodeContext(owner: nil, column: 0))
                else { throw .corrupted("undecodable \(type) value") }
                return value
            })
    }

    /// A mixed value for the dynamic API: a link through `link`, a nested list or map as an array or
    /// dictionary of such values, anything else as its `AnyValue`.
    private static func mixed(
        _ bytes: UnsafeRawBufferPointer, link: (String, [UInt8]) throws(StoreError) -> Any?
    ) throws(StoreError) -> Any? {
        do {
            let (tag, payload) = try MixedFormat.split(bytes)
            switch tag {
            case .object:
                let (typeName, key) = try MixedFormat.link(payload)
                return try link(typeName, Array(key))
            case .list:
                var values: [Any] = []
                for element in try ListFormat.elements(payload) {
                    guard let element else { throw RowDamage("a mixed list holds a null element") }
                    values.append(try mixed(element, link: link) as Any)
                }
                return values
            case .map:
                var entries: [String: Any] = [:]
                for entry in try MapFormat.entries(payload) {
                    guard let value = entry.value else { throw RowDamage("a mixed map holds a null value") }
                    entries[String(decoding: entry.key, as: UTF8.self)] = try mixed(value, link: link) as Any
                }
                return entries
            default:
                guard let value = try AnyValue._strataDecodeValue(bytes, in: _DecodeContext(owner: nil, column: 0))
                else { throw RowDamage("undecodable mixed value") }
                return value
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupted("a mixed value: \(error)")
        }
    }

    /// The one walk of a stored column by its property type: optional, link, list and set (a link to
    /// a deleted object is left out of them), map (a link to a deleted object is a null value), scalar.
    /// What each becomes is the caller's (`decode`: `Any`, a Map a `[String: Any]`; StrataSync's
    /// values: `SyncValue`, decoded by the Swift type directly, with no `Any`).
    ///
    /// - Throws: `.corrupted` for a null where the type has none, or bytes that are not a value of
    ///   the type; what `link` and `scalar` throw.
    static func walk<Value>(
        _ bytes: UnsafeRawBufferPointer?, type: PropertyType, null: Value,
        link: (String, UnsafeRawBufferPointer) throws(StoreError) -> Value, list: ([Value]) -> Value,
        map: ([(key: String, value: Value)]) -> Value, isNull: (Value) -> Bool,
        scalar: (UnsafeRawBufferPointer, PropertyType) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        func element(_ bytes: UnsafeRawBufferPointer?, _ type: PropertyType) throws(StoreError) -> Value {
            try walk(bytes, type: type, null: null, link: link, list: list, map: map, isNull: isNull, scalar: scalar)
        }
        switch type {
        case .optional(let wrapped):
            guard let bytes else { return null }
            return try element(bytes, wrapped)
        case .link(let target):
            guard let bytes else { return null }
            return try link(target, bytes)
        case .map(let valueType):
            guard let bytes else { throw .corrupted("a Map column is null") }
            let entries: [MapFormat.Entry]
            do {
                entries = try MapFormat.entries(bytes)
            } catch {
                throw .corrupted("\(error)")
            }
            var values: [(key: String, value: Value)] = []
            values.reserveCapacity(entries.count)
            for entry in entries {
                let value: Value
                if case .link = valueType, entry.value == nil {
                    value = null
                } else if entry.value == nil, case .optional = valueType {
                    value = null
                } else {
                    value = try element(entry.value, valueType)
                }
                values.append((String(decoding: entry.key, as: UTF8.self), value))
            }
            return map(values)
        case .list(let element), .set(let element):
            guard let bytes else { throw .corrupted("a \(type) column is null") }
            let parts: [UnsafeRawBufferPointer?]
            do {
                parts = try ListFormat.elements(bytes)
                if case .set = type { try SetOrder.checkSorted(parts, type: element) }
            } catch {
                throw .corrupted("\(error)")
            }
            var values: [Value] = []
            values.reserveCapacity(parts.count)
            for part in parts {
                let value = try walk(
                    part, type: element, null: null, link: link, list: list, map: map, isNull: isNull, scalar: scalar)
                if case .link = element, isNull(value) { continue }  // a link to a deleted object
                values.append(value)
            }
            return list(values)
        default:
            guard let bytes else { throw .corrupted("null in a non-optional \(type) column") }
            return try scalar(bytes, type)
        }
    }

    /// `value` with every integer (not Bool) as an `NSNumber`, lists included: what a migration hands
    /// out, so that `as? Int`, `as? Int64` and `as? Int8` all succeed when the value fits, as in Realm.
    static func numbersBridged(_ value: Any?) -> Any? {
        switch value {
        case let integer as any BinaryInteger: integerNumber(integer)
        case let array as [Any]: array.map { numbersBridged($0) as Any }
        default: value
        }
    }

    private static func integerNumber(_ integer: some BinaryInteger) -> NSNumber {
        if let signed = Int64(exactly: integer) { return NSNumber(value: signed) }
        return NSNumber(value: UInt64(integer))
    }

    /// Encodes `value` as a column of `type`. Integers convert between widths when they fit, numbers
    /// between Float and Double; links take a `MigrationObject` of the new schema (or nil).
    static func encodeColumn(
        _ value: Any?, type: PropertyType, into row: inout _RowEncoder,
        link: (String, Any) throws(StoreError) -> [UInt8]
    ) throws(StoreError) {
        switch type {
        case .optional(let wrapped):
            guard let value = unwrap(value) else { return row.appendNullColumn() }
            try encodeColumn(value, type: wrapped, into: &row, link: link)
        case .link(let target):
            guard let value = unwrap(value) else { return row.appendNullColumn() }
            let key = try link(target, value)
            key.withUnsafeBytes { row.write($0) }
            row.endColumn()
        case .list(let element):
            guard let array = unwrap(value) as? [Any] else {
                throw .invalidArgument("a List<\(element)> needs an array, not \(value ?? "nil")")
            }
            row.writeListHeader(count: array.count)
            for item in array {
                try encodeElement(item, type: element, into: &row, link: link)
            }
            row.endColumn()
        case .set(let element):
            guard let array = unwrap(value) as? [Any] else {
                throw .invalidArgument("a \(type) needs an array, not \(value ?? "nil")")
            }
            var scratch = _RowEncoder()
            scratch.beginRow(columns: 1)
            scratch.writeListHeader(count: array.count)
            for item in array {
                try encodeElement(item, type: element, into: &scratch, link: link)
            }
            scratch.endColumn()
            try scratch.withRow { (bytes) throws(StoreError) in
                do throws(RowDamage) {
                    let list = try RowView(encoded: bytes, columns: 1).column(0)
                    let sorted = try SetOrder.sortedUnique(try ListFormat.elements(list ?? bytes), type: element)
                    row.writeListHeader(count: sorted.count)
                    for part in sorted {
                        if let part { row.writeElement(part) } else { row.writeNullElement() }
                    }
                    row.endColumn()
                } catch {
                    throw .invalidArgument("\(type): \(error)")
                }
            }
        case .map(let valueType):
            guard let dictionary = unwrap(value) as? [String: Any] else {
                throw .invalidArgument("a \(type) needs a [String: Any], not \(value ?? "nil")")
            }
            let sorted = dictionary.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            row.writeListHeader(count: sorted.count * 2)
            for (key, item) in sorted {
                if let problem = MapFormat.problem(withKey: key) { throw .invalidArgument(problem) }
                let start = row.beginElement()
                row.write(key)
                row.endElement(start)
                try encodeElement(item, type: valueType, into: &row, link: link)
            }
            row.endColumn()
        default:
            try encodeValue(value, type: type, into: &row)
            row.endColumn()
        }
    }

    /// Encodes one element of a collection (a null one for nil, when `type` is optional or a link).
    private static func encodeElement(
        _ item: Any, type: PropertyType, into row: inout _RowEncoder, link: (String, Any) throws(StoreError) -> [UInt8]
    ) throws(StoreError) {
        let start = row.beginElement()
        switch type {
        case .optional(let wrapped):
            guard let item = unwrap(item) else {
                row.endElement(start)
                return row.rewriteAsNullElement(start)
            }
            try encodeValue(item, type: wrapped, into: &row)
        case .link(let target):
            guard let item = unwrap(item) else {
                row.endElement(start)
                return row.rewriteAsNullElement(start)
            }
            let key = try link(target, item)
            key.withUnsafeBytes { row.write($0) }
        default:
            try encodeValue(item, type: type, into: &row)
        }
        row.endElement(start)
    }

    private static func encodeValue(_ value: Any?, type: PropertyType, into row: inout _RowEncoder) throws(StoreError) {
        guard let value = unwrap(value), let converted = convert(value, to: type) else {
            throw .invalidArgument("\(value.map { "\($0) (\(Swift.type(of: $0)))" } ?? "nil") is not a \(type)")
        }
        try converted._strataEncodeValue(into: &row)
    }

    /// `value` without the Optional an `Any` may hold (a null element of a collection is one).
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? OptionalValue { return optional.wrappedAny }
        return value
    }

    /// `value` as the Swift type of `type`, converting numbers that fit.
    private static func convert(_ value: Any, to type: PropertyType) -> (any _PersistableValue)? {
        if let target = swiftType(type), Swift.type(of: value) == target { return value as? any _PersistableValue }
        if Swift.type(of: value) is NSNumber.Type { return convert(number: value, to: type) }
        if let raw = (value as? any RawRepresentable)?.rawValue, !(raw is any RawRepresentable) {
            return convert(raw, to: type)
        }
        let integer = value as? any BinaryInteger
        let floating = (value as? Double) ?? (value as? Float).map(Double.init)
        switch type {
        case .int8: return integer.flatMap { Int8(exactly: $0) }
        case .int16: return integer.flatMap { Int16(exactly: $0) }
        case .int32: return integer.flatMap { Int32(exactly: $0) }
        case .int64: return integer.flatMap { Int(exactly: $0) }
        case .uint8: return integer.flatMap { UInt8(exactly: $0) }
        case .uint16: return integer.flatMap { UInt16(exactly: $0) }
        case .uint32: return integer.flatMap { UInt32(exactly: $0) }
        case .uint64: return integer.flatMap { UInt64(exactly: $0) }
        case .double: return floating ?? integer.map { Double($0) }
        case .float: return floating.map { Float($0) } ?? integer.map { Float($0) }
        case .decimal: return integer.map { Decimal(Int64(truncatingIfNeeded: $0)) } ?? floating.map { Decimal($0) }
        case .decimal128:
            if let decimal = value as? Decimal { return Decimal128(decimal) }
            return integer.flatMap { Decimal128(exactly: $0) } ?? floating.map { Decimal128($0) }
        case .objectId: return (value as? String).flatMap { try? ObjectId(string: $0) }
        case .mixed: return AnyValue(wrapping: value)
        case .string: return (value as? Substring).map(String.init)
        default: return nil
        }
    }
}

extension DynamicValue {
    /// An `NSNumber` (what a migration reads integers as) as the Swift type of `type`, when it fits.
    fileprivate static func convert(number: Any, to type: PropertyType) -> (any _PersistableValue)? {
        switch type {
        case .int8: number as? Int8
        case .int16: number as? Int16
        case .int32: number as? Int32
        case .int64: number as? Int
        case .uint8: number as? UInt8
        case .uint16: number as? UInt16
        case .uint32: number as? UInt32
        case .uint64: number as? UInt64
        case .double: (number as? NSNumber)?.doubleValue
        case .float: (number as? NSNumber)?.floatValue
        case .decimal: (number as? NSNumber)?.decimalValue
        case .decimal128: (number as? NSNumber).map { Decimal128($0.decimalValue) }
        case .mixed: (number as? NSNumber).map { AnyValue.int($0.intValue) }  // migrations bridge integers only
        default: nil
        }
    }
}

/// Lets `Any` holding an Optional be unwrapped.
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? {
        switch self {
        case .some(let value): (value as? OptionalValue)?.wrappedAny ?? value
        case .none: nil
        }
    }
}
