import Foundation

/// Implementation detail: a stored type that queries compare with `==`, `!=` and `in`: every value
/// type, `PersistableEnum`s, and their optionals. Strings compare by their UTF-8 bytes (as in Realm
/// and SQLite's BINARY collation), so an index, a primary key and a scan always agree.
public protocol _QueryEquatable: _Persistable {
    static func _queryEqual(_ lhs: Self, _ rhs: Self) -> Bool
    /// Whether the value is nil (an optional's nil never compares as ordered).
    var _queryIsNull: Bool { get }
}

/// Implementation detail: a stored type with an order, for `<`, `<=`, `>`, `>=`, `min`, `max` and
/// sorting: integers, floating point, String (UTF-8 byte order), Date, Decimal, Bool (false first),
/// and their optionals (nil first when sorting; matched by a comparison only for `String?`, where nil
/// sorts before every string, as in Realm).
public protocol _QueryComparable: _QueryEquatable {
    /// -1, 0 or 1.
    static func _queryCompare(_ lhs: Self, _ rhs: Self) -> Int
    /// Whether `<`, `<=`, `>` and `>=` order nil before every value (`String?`, as Realm does) rather
    /// than never matching it.
    static var _queryOrdersNil: Bool { get }
}

extension _QueryComparable {
    public static var _queryOrdersNil: Bool { false }
}

/// Implementation detail: String and `String?`, for `contains`, `starts(with:)`, `ends(with:)`.
public protocol _QueryString: _QueryComparable {}

/// Implementation detail: a to-one link (`Object?`), which queries follow with `$0.owner.name`.
public protocol _QueryLink: _Persistable {
    associatedtype _Target: Object
}

/// Implementation detail: a `List`, for `.count` and `.contains` in queries.
public protocol _QueryList: _Persistable {
    associatedtype _Element: _ListElement
}

extension _QueryEquatable {
    public var _queryIsNull: Bool { false }
}

extension _QueryEquatable where Self: Equatable {
    public static func _queryEqual(_ lhs: Self, _ rhs: Self) -> Bool { lhs == rhs }
}

extension _QueryComparable where Self: Comparable {
    public static func _queryCompare(_ lhs: Self, _ rhs: Self) -> Int { lhs < rhs ? -1 : lhs == rhs ? 0 : 1 }
}

extension Int: _QueryComparable {}
extension Int8: _QueryComparable {}
extension Int16: _QueryComparable {}
extension Int32: _QueryComparable {}
extension Int64: _QueryComparable {}
extension UInt8: _QueryComparable {}
extension UInt16: _QueryComparable {}
extension UInt32: _QueryComparable {}
extension UInt64: _QueryComparable {}
extension Float: _QueryComparable {}
extension Double: _QueryComparable {}
extension Date: _QueryComparable {}
extension Decimal: _QueryComparable {}
extension Data: _QueryComparable {
    /// Byte order (as an index and a stored set order them).
    public static func _queryCompare(_ lhs: Data, _ rhs: Data) -> Int {
        lhs == rhs ? 0 : lhs.lexicographicallyPrecedes(rhs) ? -1 : 1
    }
}

extension UUID: _QueryComparable {
    /// The order of the 16 bytes (as an index orders them).
    public static func _queryCompare(_ lhs: UUID, _ rhs: UUID) -> Int {
        withUnsafeBytes(of: lhs.uuid) { left in
            withUnsafeBytes(of: rhs.uuid) { right in
                left.elementsEqual(right) ? 0 : left.lexicographicallyPrecedes(right) ? -1 : 1
            }
        }
    }
}

extension Bool: _QueryComparable {
    public static func _queryCompare(_ lhs: Bool, _ rhs: Bool) -> Int { lhs == rhs ? 0 : lhs ? 1 : -1 }
}

extension String: _QueryString {
    public static func _queryEqual(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8)
    }

    public static func _queryCompare(_ lhs: String, _ rhs: String) -> Int {
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }
}

extension PersistableEnum {
    public static func _queryEqual(_ lhs: Self, _ rhs: Self) -> Bool {
        RawValue._queryEqual(lhs.rawValue, rhs.rawValue)
    }
}

extension Optional: _QueryEquatable where Wrapped: _QueryEquatable & _OptionalPersistable {
    public static func _queryEqual(_ lhs: Wrapped?, _ rhs: Wrapped?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let a?, let b?): Wrapped._queryEqual(a, b)
        default: false
        }
    }

    public var _queryIsNull: Bool { self == nil }
}

extension Optional: _QueryComparable where Wrapped: _QueryComparable & _OptionalPersistable {
    public static func _queryCompare(_ lhs: Wrapped?, _ rhs: Wrapped?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case (let a?, let b?): Wrapped._queryCompare(a, b)
        }
    }

    /// Realm orders a nil string before every string (every string is greater than nil); other
    /// optionals never compare with nil.
    public static var _queryOrdersNil: Bool { Wrapped.self == String.self }
}

extension Optional: _QueryString where Wrapped == String {}

extension Optional: _QueryLink where Wrapped: Object {
    public typealias _Target = Wrapped
}

extension List: _QueryList {
    public typealias _Element = Element
}

extension MutableSet: _QueryList {
    public typealias _Element = Element
}

/// Implementation detail: a `Map`, for `map["key"]`, `keys`, `values` and `count` in queries.
public protocol _QueryMap: _Persistable {
    associatedtype _MapValueType: _MapValue
}

extension Map: _QueryMap {
    public typealias _MapValueType = Value
}

/// Implementation detail: an optional value (not a link) a Map holds, for `map["key"]` in queries.
public protocol _QueryOptionalValue: _Persistable {}

extension Optional: _QueryOptionalValue where Wrapped: _PersistableValue {}
