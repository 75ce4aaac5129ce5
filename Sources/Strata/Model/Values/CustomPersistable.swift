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
/// A stored value the initializer refuses reads as nil where nil is a value (an optional property,
/// as Realm does), and otherwise as `.corrupted` (a read of a non-optional property traps naming it;
/// `verify()` reports it): keep the conversion total over what the app stores.
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
    /// `persistedSamples` (from the round's on) or of the stored type's zero that it accepts; for a
    /// type that refuses all of them, the value the recorder's own property holds (its initial value:
    /// a non-optional property of such a type must have one), so that a query never traps for it.
    ///
    /// - Warning: Traps, naming the fix, when there is no value at all (outside a key path's recording).
    public static func _strataValueProbe(_ round: Int) -> Self {
        if let probe = _strataAcceptedProbe(round) ?? (KeyPathRecordings.current?.valueOfLastRead() as? Self) {
            return probe
        }
        preconditionFailure(
            "Strata: \(Self.self) refuses every sample \(PersistedType.self) a query reads it with: list stored "
                + "forms it accepts in `static var persistedSamples`")
    }

    /// The stored type's probe of `round`, or the first sample the type accepts; nil when it refuses all.
    static func _strataAcceptedProbe(_ round: Int) -> Self? {
        if let probe = _strataFromPersisted(PersistedType._strataValueProbe(round)) { return probe }
        let samples = _strataSamples
        let rotated =
            samples.isEmpty ? [] : Array(samples[(round % samples.count)...] + samples[..<(round % samples.count)])
        for candidate in rotated + [PersistedType._strataZero()] {
            if let value = _strataFromPersisted(candidate) { return value }
        }
        return nil
    }

    public static func _strataIsValueProbe(_ value: Self, _ round: Int) -> Bool {
        SetOrder.key(of: value.persistableValue) == SetOrder.key(of: _strataValueProbe(round).persistableValue)
    }

    /// An optional property's probes: nil in round 1; in the others the value probe, or, for a type
    /// that refuses every sample and a property whose value is nil, nil again (the key path is then
    /// told by the property it reads alone).
    public static func _strataOptionalProbe(_ round: Int) -> Self? {
        guard round != 1 else { return nil }
        return _strataAcceptedProbe(round) ?? (KeyPathRecordings.current?.valueOfLastRead() as? Self)
    }

    public static func _strataIsOptionalProbe(_ value: Any?, _ round: Int) -> Bool {
        let probe = _strataOptionalProbe(round)
        guard let value else { return probe == nil }
        guard let typed = value as? Self, let probe else { return false }
        return SetOrder.key(of: typed.persistableValue) == SetOrder.key(of: probe.persistableValue)
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

    /// A stored form the type refuses reads as nil where nil is a value (an optional property, List
    /// element or Map value), as Realm reads it; damaged bytes are still `.corrupted`.
    public static func _strataDecodeOptional(_ bytes: UnsafeRawBufferPointer, in context: _DecodeContext)
        throws(StoreError) -> Self?
    {
        guard let stored = try PersistedType._strataDecodeValue(bytes, in: context) else { return nil }
        return _strataFromPersisted(stored)
    }

    public static func _queryEqual(_ lhs: Self, _ rhs: Self) -> Bool {
        PersistedType._queryEqual(lhs.persistableValue, rhs.persistableValue)
    }

    public static func _queryCompare(_ lhs: Self, _ rhs: Self) -> Int {
        PersistedType._queryCompare(lhs.persistableValue, rhs.persistableValue)
    }
}
