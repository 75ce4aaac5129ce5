import Foundation

// AnyValue as a stored value (see `MixedFormat`), and its order: every number one kind, compared as a
// number, so that `.int(1)` and `.double(1.0)` are equal in queries and sets.

extension AnyValue: _PersistableValue, _QueryComparable {
    public static var _strataValueType: _SchemaType { _SchemaType(.mixed) }
    public static func _strataZero() -> AnyValue { .none }
    public static func _strataValueProbe(_ round: Int) -> AnyValue { .string(Probe.string(round)) }
    public static func _strataIsValueProbe(_ value: AnyValue, _ round: Int) -> Bool {
        if case .string(let string) = value { return String._strataIsValueProbe(string, round) }
        return false
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        row.write(type.rawValue)
        switch self {
        case .none: break
        case .int(let value): row.write(Int64(value))
        case .bool(let value): row.write(value ? 1 as UInt8 : 0)
        case .float(let value): row.write(value.bitPattern)
        case .double(let value): row.write(value.bitPattern)
        case .string(let value): row.write(value)
        case .data(let value): value.withUnsafeBytes { row.write($0) }
        case .date(let value): try value._strataEncodeValue(into: &row)
        case .objectId(let value): try value._strataEncodeValue(into: &row)
        case .decimal128(let value): try value._strataEncodeValue(into: &row)
        case .uuid(let value): try value._strataEncodeValue(into: &row)
        case .object(let object):
            if object is EmbeddedObject {
                throw .invalidArgument(
                    "\(Swift.type(of: object)) is an EmbeddedObject: an AnyValue cannot hold one (it has one owner's property)"
                )
            }
            // Storing the row adds an unmanaged target first (`add`, a setter), which gives it its key.
            guard let binding = object._binding else {
                throw .invalidArgument("\(Swift.type(of: object)) is in an AnyValue but not stored")
            }
            let name = binding.name
            row.write(UInt16(name.utf8.count))
            row.write(name)
            row.writeLink(key: object._key)
        case .list(let values):
            row.writeListHeader(count: values.count)
            for value in values {
                let start = row.beginElement()
                try value._strataEncodeValue(into: &row)
                row.endElement(start)
            }
        case .map(let entries):
            for key in entries.keys {
                if let problem = MapFormat.problem(withKey: key) { throw .invalidArgument(problem) }
            }
            let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            row.writeListHeader(count: sorted.count * 2)
            for (key, value) in sorted {
                var start = row.beginElement()
                row.write(key)
                row.endElement(start)
                start = row.beginElement()
                try value._strataEncodeValue(into: &row)
                row.endElement(start)
            }
        }
    }

    public static func _strataDecodeValue(_ bytes: UnsafeRawBufferPointer, in context: _DecodeContext)
        throws(StoreError) -> AnyValue?
    {
        do {
            let (tag, payload) = try MixedFormat.split(bytes)
            func value<T: _PersistableValue>(_: T.Type) throws(StoreError) -> T {
                guard let value = try T._strataDecodeValue(payload, in: context) else {
                    throw .corrupted("an undecodable \(T.self) in an AnyValue")
                }
                return value
            }
            switch tag {
            case .none: return AnyValue.none
            case .int: return .int(Int(try value(Int64.self)))
            case .bool: return .bool(try value(Bool.self))
            case .float: return .float(try value(Float.self))
            case .double: return .double(try value(Double.self))
            case .string: return .string(try value(String.self))
            case .data: return .data(try value(Data.self))
            case .date: return .date(try value(Date.self))
            case .objectId: return .objectId(try value(ObjectId.self))
            case .decimal128: return .decimal128(try value(Decimal128.self))
            case .uuid: return .uuid(try value(UUID.self))
            case .object:
                let (typeName, key) = try MixedFormat.link(payload)
                guard let store = context.owner?._store,
                    let object = try store.linkedObject(typeNamed: typeName, keyBytes: key)
                else { return AnyValue.none }  // deleted since, or read without a Store
                return .object(object)
            case .list:
                var values: [AnyValue] = []
                for element in try ListFormat.elements(payload) {
                    guard let element else { throw RowDamage("a null element in an AnyValue list") }
                    values.append(try _strataDecodeValue(element, in: context) ?? .none)
                }
                return .list(values)
            case .map:
                var entries: [String: AnyValue] = [:]
                for entry in try MapFormat.entries(payload) {
                    guard let value = entry.value else { throw RowDamage("a null value in an AnyValue map") }
                    entries[String(decoding: entry.key, as: UTF8.self)] =
                        try _strataDecodeValue(value, in: context) ?? AnyValue.none
                }
                return .map(entries)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupted("AnyValue: \(error)")
        }
    }

    /// Equal in the stored order: numbers of any kind by value, other kinds as themselves.
    public static func _queryEqual(_ lhs: AnyValue, _ rhs: AnyValue) -> Bool {
        _queryCompare(lhs, rhs) == 0
    }

    public static func _queryCompare(_ lhs: AnyValue, _ rhs: AnyValue) -> Int {
        guard let left = SetOrder.key(of: lhs), let right = SetOrder.key(of: rhs) else { return 0 }
        return left == right ? 0 : left.lexicographicallyPrecedes(right) ? -1 : 1
    }
}
