import Foundation

/// A 128-bit decimal floating-point number (IEEE 754-2008 decimal128, in its binary integer decimal
/// encoding, as MongoDB and Realm store it): 34 significant decimal digits, exponents from -6176 to
/// 6111, signed zeros, infinities and NaN. Decimal fractions are exact (`0.1 + 0.2 == 0.3`), so money
/// adds up; arithmetic rounds to 34 digits, half to even.
///
/// ```swift
/// let price: Decimal128 = "19.99"
/// let total = price * 3                  // 59.97
/// let rate = Decimal128(0.07)            // from a Double: its shortest decimal form, 0.07
/// let asFoundation: Decimal = total.decimalValue
/// ```
/// A value keeps its exponent (`"1.50"` prints as `1.50`); `==`, `<` and queries compare the numbers
/// (`1.50 == 1.5`). NaN equals nothing, itself included, as `Double.nan`.
public struct Decimal128: Sendable {
    /// The encoding's high and low 64 bits.
    let high: UInt64
    let low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The largest coefficient plus one: 10^34.
    static let coefficientLimit = pow10[34]
    static let exponentBias = 6176
    static let minExponent = -6176
    static let maxExponent = 6111

    /// 10^0 … 10^38 (every power of ten a `UInt128` holds).
    static let pow10: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers.last! * 10) }
        return powers
    }()

    /// What the encoding holds.
    enum Parts: Equatable {
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
        case infinity(negative: Bool)
        case nan(signaling: Bool)
    }

    var parts: Parts {
        let negative = high >> 63 == 1
        switch (high >> 58) & 0x1F {
        case 0x1F: return .nan(signaling: (high >> 57) & 1 == 1)
        case 0x1E: return .infinity(negative: negative)
        default: break
        }
        if (high >> 61) & 0b11 == 0b11 {
            // The form for coefficients of 2^113 and up: all above 10^34 - 1, so non-canonical: zero.
            return .finite(negative: negative, coefficient: 0, exponent: Int((high >> 47) & 0x3FFF) - Self.exponentBias)
        }
        let coefficient = UInt128(high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(low)
        let exponent = Int((high >> 49) & 0x3FFF) - Self.exponentBias
        return .finite(
            negative: negative, coefficient: coefficient < Self.coefficientLimit ? coefficient : 0, exponent: exponent)
    }

    /// A finite value; the coefficient below 10^34 and the exponent in range (the caller's promise).
    init(negative: Bool, coefficient: UInt128, exponent: Int) {
        let biased = UInt64(exponent + Self.exponentBias)
        high = (negative ? 1 << 63 : 0) | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        low = UInt64(truncatingIfNeeded: coefficient)
    }

    /// Quiet NaN.
    public static let nan = Decimal128(high: 0x7C00_0000_0000_0000, low: 0)
    /// Signaling NaN (stored and compared as any NaN; Strata's arithmetic never signals).
    public static let signalingNaN = Decimal128(high: 0x7E00_0000_0000_0000, low: 0)
    /// Positive infinity (`-.infinity` is negative).
    public static let infinity = Decimal128(high: 0x7800_0000_0000_0000, low: 0)
    /// The largest finite value: 34 nines, exponent 6111.
    public static let max = Decimal128(negative: false, coefficient: pow10[34] - 1, exponent: maxExponent)
    /// The smallest (most negative) finite value.
    public static let min = Decimal128(negative: true, coefficient: pow10[34] - 1, exponent: maxExponent)

    /// Whether the value is NaN (quiet or signaling).
    public var isNaN: Bool { (high >> 58) & 0x1F == 0x1F }
    /// Whether the value is a signaling NaN.
    public var isSignalingNaN: Bool { isNaN && (high >> 57) & 1 == 1 }
    /// Realm's name for `isSignalingNaN`.
    public var isSignaling: Bool { isSignalingNaN }
    /// Whether the value is an infinity.
    public var isInfinite: Bool { (high >> 58) & 0x1F == 0x1E }
    /// Whether the value is neither infinite nor NaN.
    public var isFinite: Bool { (high >> 58) & 0x1E != 0x1E }
    /// Whether the value is a zero (of either sign, any exponent).
    public var isZero: Bool {
        if case .finite(_, 0, _) = parts { return true }
        return false
    }
    /// Whether the sign bit is set (also for -0 and NaN with the bit).
    public var isSignMinus: Bool { high >> 63 == 1 }

    /// The number of decimal digits of `value` (1 for 0).
    static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        while count < pow10.count, value >= pow10[count] { count += 1 }
        return count
    }
}

// MARK: Making values

extension Decimal128 {
    /// The number `value` holds, exactly (Int64's digits all fit).
    public init(_ value: Int) {
        self.init(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// The shortest decimal that reads back as `value` (Swift's own description of it): `0.1` is
    /// 0.1, not the binary fraction near it.
    public init(_ value: Double) {
        if value.isNaN {
            self = .nan
        } else if value.isInfinite {
            self = value < 0 ? -.infinity : .infinity
        } else {
            self = Self.parse("\(value)") ?? .nan
        }
    }

    /// Realm's spelling of `init(_: Double)`.
    public init(number value: Double) {
        self.init(value)
    }

    /// The value of Foundation's `Decimal` (its 38 digits round to 34; NaN stays NaN).
    public init(_ value: Decimal) {
        self = value.isNaN ? .nan : Self.parse(value.description) ?? .nan
    }

    /// The value as Foundation's `Decimal` (NaN, infinities, and exponents beyond Decimal's -128…127
    /// that its 38 digits cannot absorb, give `Decimal.nan`).
    public var decimalValue: Decimal {
        guard case .finite = parts else { return .nan }
        return Decimal(string: description, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }

    /// The nearest `Double`.
    public var doubleValue: Double {
        switch parts {
        case .nan: .nan
        case .infinity(let negative): negative ? -.infinity : .infinity
        case .finite: Double(description) ?? .nan
        }
    }

    static func parse(_ text: String) -> Decimal128? {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        switch String(decoding: bytes, as: UTF8.self).lowercased() {
        case "nan": return .nan
        case "inf", "infinity": return negative ? -.infinity : .infinity
        default: break
        }
        var coefficient: UInt128 = 0
        var significant = 0
        var exponent = 0
        var sawDigit = false
        var sawPoint = false
        var roundingDigit: UInt8?  // the first digit past 34 significant ones
        var sticky = false  // a nonzero digit after it
        while let byte = bytes.first {
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else if let digit = byte.decimalDigit {
                sawDigit = true
                if significant < 34 {
                    if coefficient != 0 || digit != 0 {
                        coefficient = coefficient * 10 + UInt128(digit)
                        significant += 1
                    }
                    if sawPoint { exponent -= 1 }
                } else {
                    if roundingDigit == nil { roundingDigit = digit } else if digit != 0 { sticky = true }
                    if !sawPoint { exponent += 1 }
                }
            } else {
                break
            }
            bytes = bytes.dropFirst()
        }
        guard sawDigit else { return nil }
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            let digits = String(decoding: bytes.dropFirst(), as: UTF8.self)
            guard let written = Int(digits), !digits.isEmpty, digits.utf8.last?.decimalDigit != nil else { return nil }
            exponent = exponent.addingReportingOverflow(Swift.max(-100_000, Swift.min(100_000, written))).partialValue
        } else if !bytes.isEmpty {
            return nil
        }
        if let roundingDigit, roundingDigit > 5 || (roundingDigit == 5 && (sticky || coefficient % 2 == 1)) {
            coefficient += 1
            if coefficient == coefficientLimit {
                coefficient /= 10
                exponent += 1
            }
        }
        return rounded(negative: negative, coefficient: Wide(coefficient), exponent: exponent, sticky: false)
    }
}

extension UInt8 {
    fileprivate var decimalDigit: UInt8? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) ? self - UInt8(ascii: "0") : nil
    }
}

extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// The integer literal's value, exactly.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// The literal as written (`0.1` is one tenth), through Swift's shortest description of it.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// The number in the literal; NaN when it is not one (`Decimal128(string:)` throws instead).
    public init(stringLiteral value: String) {
        self = Self.parse(value) ?? .nan
    }
}

// MARK: Text

extension Decimal128: CustomStringConvertible, LosslessStringConvertible {
    /// IEEE 754's scientific string, as MongoDB prints decimal128: plain digits when the exponent is
    /// at most 0 and the number is not tiny (`11.111110`, `-1.0`, `123`), else one digit, a point,
    /// and an exponent (`1.5E+3`, `1E-10`).
    public var description: String {
        switch parts {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Infinity" : "Infinity"
        case .finite(let negative, let coefficient, let exponent):
            let digits = String(coefficient)
            let adjusted = exponent + digits.count - 1
            var text = negative ? "-" : ""
            if exponent <= 0, adjusted >= -6 {
                if exponent == 0 {
                    text += digits
                } else if digits.count > -exponent {
                    let point = digits.index(digits.startIndex, offsetBy: digits.count + exponent)
                    text += digits[..<point] + "." + digits[point...]
                } else {
                    text += "0." + String(repeating: "0", count: -exponent - digits.count) + digits
                }
            } else {
                text += String(digits.prefix(1))
                if digits.count > 1 { text += "." + digits.dropFirst() }
                text += "E" + (adjusted >= 0 ? "+" : "") + String(adjusted)
            }
            return text
        }
    }

    /// `LosslessStringConvertible`: the number in `description`, or nil.
    public init?(_ description: String) {
        guard let value = Self.parse(description) else { return nil }
        self = value
    }
}

// MARK: Comparing

extension Decimal128: Comparable, Hashable {
    /// The value in a form where equal numbers are equal: sign, adjusted exponent (of the first
    /// digit), and the coefficient scaled to 34 digits. Nil for NaN; zero is (false, 0, 0).
    var normalized: (negative: Bool, adjustedExponent: Int, scaled: UInt128)? {
        switch parts {
        case .nan: return nil
        case .infinity(let negative): return (negative, Int.max, 0)
        case .finite(let negative, let coefficient, let exponent):
            if coefficient == 0 { return (false, Int.min, 0) }
            let digits = Self.digitCount(coefficient)
            return (negative, exponent + digits - 1, coefficient * Self.pow10[34 - digits])
        }
    }

    /// The numbers' order: -1, 0, 1; nil when either is NaN.
    static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        guard let a = lhs.normalized, let b = rhs.normalized else { return nil }
        let aZero = a.adjustedExponent == Int.min
        let bZero = b.adjustedExponent == Int.min
        if aZero && bZero { return 0 }
        let aSign = aZero ? 0 : a.negative ? -1 : 1
        let bSign = bZero ? 0 : b.negative ? -1 : 1
        if aSign != bSign { return aSign < bSign ? -1 : 1 }
        let magnitude: Int
        if a.adjustedExponent != b.adjustedExponent {
            magnitude = a.adjustedExponent < b.adjustedExponent ? -1 : 1
        } else {
            magnitude = a.scaled == b.scaled ? 0 : a.scaled < b.scaled ? -1 : 1
        }
        return aSign < 0 ? -magnitude : magnitude
    }

    /// Numeric equality (`1.50 == 1.5`, `-0 == 0`); NaN equals nothing.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == 0
    }

    /// Numeric order; false whenever either is NaN.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == -1
    }

    /// Equal numbers hash alike, whatever their exponents.
    public func hash(into hasher: inout Hasher) {
        guard let normal = normalized else { return hasher.combine(0x7C as UInt8) }
        hasher.combine(normal.negative)
        hasher.combine(normal.adjustedExponent)
        hasher.combine(normal.scaled)
    }
}
