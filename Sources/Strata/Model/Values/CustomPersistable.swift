import Foundation

/// An app type stored as one of Strata's value types (Realm's `CustomPersistable`): a `URL` as a
/// String, a money amount as a Decimal128, a measurement as a Double.
///
/// ```swift
/// struct Money: CustomPersistable {
///     var amount: Decimal128
///     init(persistedValue: Decimal128) { amount = persistedValue }
///     var persistableValue: Decimal128 { amount }
/// }
/// final class Invoice: Object {
///     @Persisted var total: Money
///     @Persisted var lines: List<Money>
/// }
/// invoices.where { $0.total > Money(persistedValue: 100) }   // compares the stored Decimal128s
/// ```
/// The type is stored, queried, sorted and synced as its `PersistedType`; a property declared
/// without an initial value starts as `init(persistedValue:)` of that type's zero (`""`, `0`…).
public protocol CustomPersistable: _CustomPersistableValue {
    /// Makes the value from its stored form.
    init(persistedValue: PersistedType)
}

/// An app type stored as one of Strata's value types, whose conversion from the stored form may fail
/// (Realm's `FailableCustomPersistable`): a `URL` from a String.
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
/// A stored value the initializer refuses reads as `.corrupted` (a read of the property traps
/// naming it; `verify()` reports it): keep the conversion total over what the app stores.
public protocol FailableCustomPersistable: _CustomPersistableValue {
    /// Makes the value from its stored form, or nil when the stored form is not one.
    init?(persistedValue: PersistedType)

    /// Stored forms the initializer accepts, for a type that refuses Strata's own sample values
    /// (`""`, `0`, and a few odd strings and numbers): a query names a property by reading it on a
    /// recording object, which needs a value of the type. Empty by default.
    ///
    /// ```swift
    /// static var persistedSamples: [String] { ["a@example.com", "b@example.com", "c@example.com"] }
    /// ```
    static var persistedSamples: [PersistedType] { get }
}

extension FailableCustomPersistable {
    /// None: Strata's own samples (and the stored type's zero) are tried.
    public static var persistedSamples: [PersistedType] { [] }
}

/// Implementation detail: what `CustomPersistable` and `FailableCustomPersistable` share.
public protocol _CustomPersistableValue: _PersistableValue, _QueryComparable {
    /// The Strata value type the value is stored as.
    associatedtype PersistedType: _PersistableValue & _QueryComparable
    /// The value's stored form.
    var persistableValue: PersistedType { get }
    /// The value of a stored form, or nil when the type refuses it.
    static func _strataFromPersisted(_ value: PersistedType) -> Self?
    /// Stored forms to make probe values of when the type refuses Strata's.
    static var _strataSamples: [PersistedType] { get }
}

extension CustomPersistable {
    public static func _strataFromPersisted(_ value: PersistedType) -> Self? { Self(persistedValue: value) }
    public static var _strataSamples: [PersistedType] { [] }
}

extension FailableCustomPersistable {
    public static func _strataFromPersisted(_ value: PersistedType) -> Self? { Self(persistedValue: value) }
    public static var _strataSamples: [PersistedType] { persistedSamples }
}

extension _CustomPersistableValue {
    public static var _strataValueType: _SchemaType { PersistedType._strataValueType }

    /// The value of the stored type's zero (`""`, `0`, …).
    ///
    /// - Warning: Traps when a failable type refuses that zero: give such a property an initial value.
    public static func _strataZero() -> Self {
        guard let value = _strataFromPersisted(PersistedType._strataZero()) else {
            preconditionFailure(
                "Strata: \(Self.self) refuses \(PersistedType.self)'s zero (\(PersistedType._strataZero())): give "
                    + "@Persisted properties of it an initial value")
        }
        return value
    }

    /// The stored type's probe of `round`, converted; for a type that refuses it, the first of its
    /// `persistedSamples` (from the round's on) or of the stored type's zero that it accepts.
    ///
    /// - Warning: Traps, naming the fix, when the type accepts none of them.
    public static func _strataValueProbe(_ round: Int) -> Self {
        if let probe = _strataFromPersisted(PersistedType._strataValueProbe(round)) { return probe }
        let samples = _strataSamples
        let rotated =
            samples.isEmpty ? [] : Array(samples[(round % samples.count)...] + samples[..<(round % samples.count)])
        for candidate in rotated + [PersistedType._strataZero()] {
            if let value = _strataFromPersisted(candidate) { return value }
        }
        preconditionFailure(
            "Strata: \(Self.self) refuses every sample \(PersistedType.self) a query reads it with: list stored "
                + "forms it accepts in `static var persistedSamples`")
    }

    public static func _strataIsValueProbe(_ value: Self, _ round: Int) -> Bool {
        SetOrder.key(of: value.persistableValue) == SetOrder.key(of: _strataValueProbe(round).persistableValue)
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        try persistableValue._strataEncodeValue(into: &row)
    }

    public static func _strataDecodeValue(_ bytes: UnsafeRawBufferPointer, in context: _DecodeContext)
        throws(StoreError) -> Self?
    {
        guard let stored = try PersistedType._strataDecodeValue(bytes, in: context) else { return nil }
        guard let value = _strataFromPersisted(stored) else {
            throw .corrupted("\(Self.self) refuses the stored \(PersistedType.self) \(stored)")
        }
        return value
    }

    public static func _queryEqual(_ lhs: Self, _ rhs: Self) -> Bool {
        PersistedType._queryEqual(lhs.persistableValue, rhs.persistableValue)
    }

    public static func _queryCompare(_ lhs: Self, _ rhs: Self) -> Int {
        PersistedType._queryCompare(lhs.persistableValue, rhs.persistableValue)
    }
}
