/// An enum that `@Persisted` can store, as its raw value.
///
/// ```swift
/// enum Status: String, PersistableEnum { case active, archived }
/// final class Task: Object {
///     @Persisted var status: Status          // .active, the first case, unless given
///     @Persisted var previous: Status?
/// }
/// ```
/// A stored raw value that matches no case (the enum lost a case, or the file is damaged) makes
/// throwing APIs report `.corrupted`.
public protocol PersistableEnum: _PersistableValue, _QueryEquatable, RawRepresentable, CaseIterable
where RawValue: _PersistableValue & _QueryEquatable {}

extension PersistableEnum {
    public static var _strataValueType: _SchemaType { RawValue._strataValueType }

    public static func _strataZero() -> Self {
        guard let first = allCases.first else {
            preconditionFailure("Strata: PersistableEnum \(Self.self) has no cases")
        }
        return first
    }

    /// The cases in turn (an enum of one case cannot tell a computed property from a stored one).
    public static func _strataValueProbe(_ round: Int) -> Self {
        let cases = Array(allCases)
        guard !cases.isEmpty else { return _strataZero() }
        return cases[round % cases.count]
    }

    public static func _strataIsValueProbe(_ value: Self, _ round: Int) -> Bool {
        RawValue._queryEqual(value.rawValue, _strataValueProbe(round).rawValue)
    }

    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        try rawValue._strataEncodeValue(into: &row)
    }

    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Self? {
        guard let raw = try RawValue._strataDecodeValue(bytes, in: context) else { return nil }
        guard let value = Self(rawValue: raw) else {
            throw .corrupted("\(raw) is not a raw value of \(Self.self)")
        }
        return value
    }
}
