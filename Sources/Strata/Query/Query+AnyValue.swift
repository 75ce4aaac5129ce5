// Queries on a mixed value's kind: `$0.value.type == .string`.

extension Query where Value == AnyValue {
    /// The value's kind, to compare: `$0.value.type == .string`.
    public var type: Query<AnyValue.ValueType> { Query<AnyValue.ValueType>(.path(path)) }
}

extension Query where Value == AnyValue.ValueType {
    /// Whether the mixed value is of `kind`.
    public static func == (lhs: Query, rhs: AnyValue.ValueType) -> Query<Bool> {
        lhs.comparison("\(lhs.path).@type == \(rhs)", access: nil) { bytes in
            guard let first = bytes?.first else { return nil }
            return first == rhs.rawValue
        }
    }

    /// Whether the mixed value is not of `kind`.
    public static func != (lhs: Query, rhs: AnyValue.ValueType) -> Query<Bool> {
        lhs.comparison("\(lhs.path).@type != \(rhs)", access: nil) { bytes in
            guard let first = bytes?.first else { return nil }
            return first != rhs.rawValue
        }
    }
}
