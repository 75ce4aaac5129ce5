import Foundation

/// The operator of a comparison of a property with a value.
enum ComparisonOperator: CaseIterable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    /// Whether the operator holds for an order of the property's value against the operand (-1, 0, 1).
    @inline(__always)
    func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    var isEquality: Bool { self == .equal || self == .notEqual }
}

/// The test of a comparison on a column's stored bytes (nil: null); nil when the bytes are damaged.
typealias ColumnTest = (UnsafeRawBufferPointer?) -> Bool?

/// A comparison compiled once for the column's type (`ColumnOrder`): each row's bytes are read in
/// place, with no value decoded through its Swift type, and no closure called (the scan loop inlines
/// `evaluate`). Nil semantics are the query's (`Query`): nil equals only nil; an ordered comparison
/// never matches nil, except for `String?` (`ordersNil`), where nil sorts before every string.
struct ColumnPredicate {
    enum Operand {
        case signed(width: Int, Int64)
        case unsigned(width: Int, UInt64)
        case float(Float)
        case double(Double)
        case bool(UInt8)
        case bytes(OperandBytes)
        /// The operand is nil: only the nullness of the column counts.
        case null
        /// Any of these (`IN`).
        case oneOf([ColumnPredicate])
        /// A string match (`CONTAINS`, `LIKE`, `==[c]`…).
        case text(TextPredicate)
    }

    let operand: Operand
    let `operator`: ComparisonOperator
    /// The outcome for a null column (and, for a nil operand, `nullOutcome` for null and
    /// `valueOutcome` for any value).
    let nullOutcome: Bool
    let valueOutcome: Bool

    /// The test of `operator` against `operand` (a column's bytes, nil for nil) on a column of `order`;
    /// nil when the operand does not have the order's width.
    init?(_ operator: ComparisonOperator, operand: [UInt8]?, order: ColumnOrder, ordersNil: Bool) {
        self.operator = `operator`
        guard let operand else {
            self.operand = .null
            if `operator`.isEquality {
                (nullOutcome, valueOutcome) = (`operator` == .equal, `operator` == .notEqual)
            } else {
                (nullOutcome, valueOutcome) = ordersNil ? (`operator`.holds(0), `operator`.holds(1)) : (false, false)
            }
            return
        }
        nullOutcome = `operator`.isEquality ? `operator` == .notEqual : ordersNil && `operator`.holds(-1)
        valueOutcome = false
        switch order {
        case .signed(let width):
            guard operand.count == width else { return nil }
            self.operand = .signed(width: width, operand.withUnsafeBytes { ColumnOrder.signedValue($0, width: width) })
        case .unsigned(let width):
            guard operand.count == width else { return nil }
            self.operand = .unsigned(
                width: width, operand.withUnsafeBytes { ColumnOrder.unsignedValue($0, width: width) })
        case .float:
            guard operand.count == 4 else { return nil }
            self.operand = .float(operand.withUnsafeBytes { Float(bitPattern: $0.loadUnaligned(as: UInt32.self)) })
        case .double:
            guard operand.count == 8 else { return nil }
            self.operand = .double(operand.withUnsafeBytes { Double(bitPattern: $0.loadUnaligned(as: UInt64.self)) })
        case .bool:
            guard operand.count == 1 else { return nil }
            self.operand = .bool(operand[0])
        case .bytes:
            self.operand = .bytes(OperandBytes(operand))
        }
    }

    /// A string match on the column's UTF-8 (`TextPredicate`); a null string matches only when
    /// `negated` (`!=[c]`).
    init(text match: StringMatch, negated: Bool = false) {
        operand = .text(TextPredicate(match, negated: negated))
        self.operator = .equal
        nullOutcome = negated
        valueOutcome = false
    }

    /// `IN operands`: an equality with any of them.
    init?(oneOf operands: [[UInt8]?], order: ColumnOrder) {
        var tests: [ColumnPredicate] = []
        for operand in operands {
            guard let test = ColumnPredicate(.equal, operand: operand, order: order, ordersNil: false) else {
                return nil
            }
            tests.append(test)
        }
        operand = .oneOf(tests)
        self.operator = .equal
        nullOutcome = tests.contains { $0.nullOutcome }
        valueOutcome = false
    }

    /// Whether the column's bytes (nil: null) satisfy the comparison; nil when they are damaged (a
    /// wrong length for the type).
    @inline(__always)
    func evaluate(_ bytes: UnsafeRawBufferPointer?) -> Bool? {
        guard let bytes else { return nullOutcome }
        switch operand {
        case .double(let value):
            guard bytes.count == 8 else { return nil }
            return `operator`.holds(ColumnOrder.order(Double(bitPattern: bytes.loadUnaligned(as: UInt64.self)), value))
        case .signed(let width, let value):
            guard bytes.count == width else { return nil }
            return `operator`.holds(ColumnOrder.order(ColumnOrder.signedValue(bytes, width: width), value))
        case .unsigned(let width, let value):
            guard bytes.count == width else { return nil }
            return `operator`.holds(ColumnOrder.order(ColumnOrder.unsignedValue(bytes, width: width), value))
        case .float(let value):
            guard bytes.count == 4 else { return nil }
            return `operator`.holds(ColumnOrder.order(Float(bitPattern: bytes.loadUnaligned(as: UInt32.self)), value))
        case .bool(let value):
            guard bytes.count == 1, bytes[0] <= 1 else { return nil }
            return `operator`.holds(ColumnOrder.order(bytes[0], value))
        case .bytes(let value):
            return `operator`.holds(ColumnOrder.byteOrder(bytes, value.bytes))
        case .null:
            return valueOutcome
        case .oneOf(let tests):
            return Self.evaluateAny(tests, bytes)
        case .text(let match):
            return match.evaluate(bytes)
        }
    }

    /// `IN`: out of line, so that `evaluate` is not recursive and inlines into the scan loops.
    @inline(never)
    private static func evaluateAny(_ tests: [ColumnPredicate], _ bytes: UnsafeRawBufferPointer) -> Bool? {
        for test in tests {
            guard let outcome = test.evaluate(bytes) else { return nil }
            if outcome { return true }
        }
        return false
    }

    /// The same test as a closure, for the comparisons evaluated through links and counts.
    var test: ColumnTest {
        let predicate = self
        return { predicate.evaluate($0) }
    }
}

/// An operand's bytes in memory of their own, for the life of the test that reads them.
final class OperandBytes {
    let bytes: UnsafeRawBufferPointer

    init(_ array: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(array.count, 1), alignment: 8)
        array.withUnsafeBytes {
            if $0.count > 0 { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: array.count)
    }

    deinit {
        UnsafeMutableRawPointer(mutating: bytes.baseAddress!).deallocate()
    }
}

/// The stored types whose query order is the order of their stored bytes as `ColumnOrder` reads them
/// (a `PersistableEnum` or a `CustomPersistable` type may define its own: they are decoded).
protocol ColumnOrderedValue {}

extension Int: ColumnOrderedValue {}
extension Int8: ColumnOrderedValue {}
extension Int16: ColumnOrderedValue {}
extension Int32: ColumnOrderedValue {}
extension Int64: ColumnOrderedValue {}
extension UInt8: ColumnOrderedValue {}
extension UInt16: ColumnOrderedValue {}
extension UInt32: ColumnOrderedValue {}
extension UInt64: ColumnOrderedValue {}
extension Float: ColumnOrderedValue {}
extension Double: ColumnOrderedValue {}
extension Date: ColumnOrderedValue {}
extension Bool: ColumnOrderedValue {}
extension String: ColumnOrderedValue {}
extension Data: ColumnOrderedValue {}
extension UUID: ColumnOrderedValue {}
extension Optional: ColumnOrderedValue where Wrapped: ColumnOrderedValue {}

extension PropertyPath {
    /// The stored type a comparison at the end of the path reads: the property's, a Map's value
    /// type under `map["key"]`, an Int64 for a collection's count.
    var comparedType: PropertyType? {
        guard let last = steps.last else { return nil }
        if countsList { return .int64 }
        let type = last.schema.properties[last.property].type
        guard mapKey != nil else { return type }
        if case .map(let value) = type { return value }
        return nil
    }
}
