/// Mixed values (`AnyValue`) compared as they are stored: by their order key (`MixedFormat.orderKey`),
/// in which every number is one kind compared as a number and an object is its type's name and its
/// key. A query has no Store to make a linked object in (decoding one there gives `.none`), so a
/// comparison with `.object(x)` must not decode: it compares the stored link with x's.
enum MixedComparison {
    /// The order key of a stored mixed value (nil bytes: a null column, read as `.none`); nil when
    /// the bytes are damaged.
    static func key(_ bytes: UnsafeRawBufferPointer?) -> [UInt8]? {
        guard let bytes else { return noneKey }
        var key: [UInt8] = [KeyEncoding.valueTag]
        do {
            try MixedFormat.orderKey(bytes, into: &key)
        } catch {
            return nil
        }
        return key
    }

    private static let noneKey: [UInt8] = [KeyEncoding.valueTag, MixedFormat.Tag.none.rawValue]

    /// The order key of `value`; nil for a value no row can hold (an object not stored).
    static func key(of value: AnyValue) -> [UInt8]? {
        if case .object(let object) = value, object._binding == nil { return nil }
        return SetOrder.key(of: value)
    }

    /// The test of `op operand` on a stored mixed value, where `operand` is an order key (nil: a
    /// value no row holds, which equals nothing and orders against nothing).
    static func test(_ op: ComparisonOperator, _ operand: [UInt8]?) -> ColumnTest {
        { bytes in
            guard let stored = key(bytes) else { return nil }  // damaged: `.corrupted`
            guard let operand else { return op == .notEqual }
            return op.holds(order(stored, operand))
        }
    }

    /// Whether a stored mixed value equals one of `operands` (order keys).
    static func oneOf(_ operands: [[UInt8]?]) -> ColumnTest {
        { bytes in
            guard let stored = key(bytes) else { return nil }
            return operands.contains { $0 == stored }
        }
    }

    /// The order key of mixed-value column bytes an operand was encoded to (nil bytes: `.none`).
    static func key(ofOperand bytes: [UInt8]?) -> [UInt8]? {
        guard let bytes else { return noneKey }
        return bytes.withUnsafeBytes { key($0) }
    }

    static func order(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs == rhs ? 0 : lhs.lexicographicallyPrecedes(rhs) ? -1 : 1
    }
}

extension Query {
    /// `op value` on a mixed property, compared as stored (`MixedComparison`); nil when `value` is
    /// not an `AnyValue`.
    func mixedComparison(_ op: ComparisonOperator, _ value: Any, text: String) -> Query<Bool>? {
        guard let mixed = value as? AnyValue else { return nil }
        return comparison(text, access: nil, MixedComparison.test(op, MixedComparison.key(of: mixed)))
    }

    /// Whether a mixed property equals one of `values`; nil when they are not `AnyValue`s.
    func mixedMembership(_ values: [Any], text: String) -> Query<Bool>? {
        guard let mixed = values as? [AnyValue] else { return nil }
        return comparison(text, access: nil, MixedComparison.oneOf(mixed.map(MixedComparison.key(of:))))
    }
}
