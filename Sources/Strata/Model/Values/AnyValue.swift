import Foundation

/// A value of any stored kind (Realm's `AnyRealmValue`): a mixed property, or the elements of a
/// List, Map or MutableSet of mixed values.
///
/// ```swift
/// final class Setting: Object {
///     @Persisted var value: AnyValue
///     @Persisted var history: List<AnyValue>
/// }
/// setting.value = .int(3)
/// setting.value = .string("dark")
/// setting.value = .map(["size": .double(12.5), "tags": .list([.string("a")])])
/// settings.where { $0.value == .int(3) }                // also matches .double(3.0)
/// settings.where { $0.value.type == .string }
/// ```
/// Numbers compare across kinds in queries, sorting and sets (`.int(1)` and `.double(1.0)` are equal
/// there, as in Realm); a string never equals a number. Nested lists and maps are values: change
/// one by assigning a new one. A link (`.object`) whose target is deleted reads as `.none`.
public enum AnyValue: Hashable, CustomStringConvertible {
    /// No value (Realm's `.none`): what a new property holds, and a link whose target was deleted.
    case none
    /// An integer.
    case int(Int)
    /// A Bool.
    case bool(Bool)
    /// A Float (compared with other numbers by value).
    case float(Float)
    /// A Double (compared with other numbers by value).
    case double(Double)
    /// A String.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A Date.
    case date(Date)
    /// An ObjectId.
    case objectId(ObjectId)
    /// A Decimal128 (compared with other numbers by value).
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A link to a stored object.
    case object(Object)
    /// A list of mixed values (Realm 10.51's nested collections).
    indirect case list([AnyValue])
    /// A map of mixed values.
    indirect case map([String: AnyValue])

    /// The kinds of `AnyValue`, for `$0.value.type == .string` in queries.
    public enum ValueType: UInt8, Sendable, CaseIterable {
        /// `.none`.
        case none
        /// `.int`.
        case int
        /// `.bool`.
        case bool
        /// `.float`.
        case float
        /// `.double`.
        case double
        /// `.string`.
        case string
        /// `.data`.
        case data
        /// `.date`.
        case date
        /// `.objectId`.
        case objectId
        /// `.decimal128`.
        case decimal128
        /// `.uuid`.
        case uuid
        /// `.object`.
        case object
        /// `.list`.
        case list
        /// `.map`.
        case map
    }

    /// The value's kind.
    public var type: ValueType {
        switch self {
        case .none: .none
        case .int: .int
        case .bool: .bool
        case .float: .float
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .objectId: .objectId
        case .decimal128: .decimal128
        case .uuid: .uuid
        case .object: .object
        case .list: .list
        case .map: .map
        }
    }

    /// The case and its value: `.int(3)`, `.string("a")`.
    public var description: String {
        switch self {
        case .none: ".none"
        case .int(let value): ".int(\(value))"
        case .bool(let value): ".bool(\(value))"
        case .float(let value): ".float(\(value))"
        case .double(let value): ".double(\(value))"
        case .string(let value): ".string(\"\(value)\")"
        case .data(let value): ".data(\(value.count) bytes)"
        case .date(let value): ".date(\(value))"
        case .objectId(let value): ".objectId(\(value))"
        case .decimal128(let value): ".decimal128(\(value))"
        case .uuid(let value): ".uuid(\(value))"
        case .object(let value): ".object(\(Swift.type(of: value)))"
        case .list(let values): ".list(\(values))"
        case .map(let entries): ".map(\(entries))"
        }
    }

    /// The Int, if the value is one.
    public var intValue: Int? { if case .int(let value) = self { value } else { nil } }
    /// The Bool, if the value is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The Double, if the value is one.
    public var doubleValue: Double? { if case .double(let value) = self { value } else { nil } }
    /// The String, if the value is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The linked object, if the value is one, as `T`.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let value) = self { value as? T } else { nil }
    }

    /// The objects the value links to: its `.object`, or those of its nested lists and maps (what
    /// storing it adds first, as for a link).
    var linkedObjects: [Object] {
        switch self {
        case .object(let object): [object]
        case .list(let values): values.flatMap(\.linkedObjects)
        case .map(let entries): entries.values.flatMap(\.linkedObjects)
        default: []
        }
    }
}

@available(*, unavailable, message: "an AnyValue may hold an object, which is confined to its Store's thread")
extension AnyValue: Sendable {}
