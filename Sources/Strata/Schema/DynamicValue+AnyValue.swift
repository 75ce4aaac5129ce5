import Foundation

/// Mixed values in the dynamic API and migrations: read as the Swift values they hold, written from
/// Swift values of any stored kind.
extension AnyValue {
    /// The value as the dynamic API shows it: the Swift value inside (nil for `.none`), arrays and
    /// dictionaries for nested collections.
    @_spi(StrataTools)
    public var unwrapped: Any? {
        switch self {
        case .none: nil
        case .int(let value): value
        case .bool(let value): value
        case .float(let value): value
        case .double(let value): value
        case .string(let value): value
        case .data(let value): value
        case .date(let value): value
        case .objectId(let value): value
        case .decimal128(let value): value
        case .uuid(let value): value
        case .object(let value): value
        case .list(let values): values.map { $0.unwrapped as Any }
        case .map(let entries): entries.mapValues { $0.unwrapped as Any }
        }
    }

    /// Whether every value of a stored scalar type has a mixed kind that holds it exactly (what a
    /// migration converts to `AnyValue` without a block). `UInt64` past `Int.max` and Foundation's
    /// `Decimal` do not.
    static func canWrap(_ type: PropertyType) -> Bool {
        switch type {
        case .bool, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .float, .double, .string, .data,
            .date, .objectId, .decimal128, .uuid:
            true
        default: false
        }
    }

    /// A mixed value holding `value` (a Swift value of a stored kind, an array or dictionary of them),
    /// or nil when it holds none.
    init?(wrapping value: Any?) {
        switch value {
        case nil: self = .none
        case let mixed as AnyValue: self = mixed
        case let bool as Bool: self = .bool(bool)
        case let integer as any BinaryInteger:
            guard let int = Int(exactly: integer) else { return nil }
            self = .int(int)
        case let float as Float: self = .float(float)
        case let double as Double: self = .double(double)
        case let string as String: self = .string(string)
        case let data as Data: self = .data(data)
        case let date as Date: self = .date(date)
        case let id as ObjectId: self = .objectId(id)
        case let decimal as Decimal128: self = .decimal128(decimal)
        case let decimal as Decimal: self = .decimal128(Decimal128(decimal))
        case let uuid as UUID: self = .uuid(uuid)
        case let object as Object: self = .object(object)
        case let array as [Any]:
            var values: [AnyValue] = []
            for element in array {
                guard let value = AnyValue(wrapping: DynamicValue.unwrap(element)) else { return nil }
                values.append(value)
            }
            self = .list(values)
        case let dictionary as [String: Any]:
            var entries: [String: AnyValue] = [:]
            for (key, element) in dictionary {
                guard let value = AnyValue(wrapping: DynamicValue.unwrap(element)) else { return nil }
                entries[key] = value
            }
            self = .map(entries)
        default: return nil
        }
    }
}
