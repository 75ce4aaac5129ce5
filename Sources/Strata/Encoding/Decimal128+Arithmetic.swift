/// Decimal128's arithmetic: exact on a 256-bit coefficient, then rounded once to 34 digits, half to
/// even (IEEE 754's default), with the exponent IEEE prefers (the smaller operand exponent for `+`
/// and `-`, their sum for `*`, their difference for an exact `/`).
extension Decimal128: SignedNumeric, Strideable {
    /// A Decimal128 without its sign.
    public typealias Magnitude = Decimal128
    /// Distances between Decimal128s are Decimal128s.
    public typealias Stride = Decimal128

    /// The value of `source` when it has at most 34 digits.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let magnitude = UInt128(exactly: source.magnitude), magnitude < Self.coefficientLimit else { return nil }
        self.init(negative: source < 0, coefficient: magnitude, exponent: 0)
    }

    /// The value without its sign.
    public var magnitude: Decimal128 { Decimal128(high: high & ~(1 << 63), low: low) }

    /// Flips the sign (also of zeros, infinities and NaN).
    public mutating func negate() {
        self = Decimal128(high: high ^ (1 << 63), low: low)
    }

    /// The value with its sign flipped.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(high: operand.high ^ (1 << 63), low: operand.low)
    }

    /// The sum, rounded to 34 digits (half to even); the smaller exponent is kept when exact.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: false)
    }

    /// The difference, rounded as `+`.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: true)
    }

    /// The product, rounded to 34 digits (half to even).
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan): return .nan
        case (.finite(let a, let ca, let ea), .finite(let b, let cb, let eb)):
            return rounded(negative: a != b, coefficient: Wide(ca) * cb, exponent: ea + eb, sticky: false)
        default:  // an infinity: NaN times zero, else infinite
            if lhs.isZero || rhs.isZero { return .nan }
            return lhs.isSignMinus != rhs.isSignMinus ? -.infinity : .infinity
        }
    }

    /// The quotient, rounded to 34 digits (half to even); x / 0 is infinite, 0 / 0 NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let negative = lhs.isSignMinus != rhs.isSignMinus
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan), (.infinity, .infinity): return .nan
        case (.infinity, _): return negative ? -.infinity : .infinity
        case (_, .infinity):
            return rounded(negative: negative, coefficient: Wide(0), exponent: minExponent, sticky: false)
        case (.finite(_, let ca, let ea), .finite(_, let cb, let eb)):
            if cb == 0 { return ca == 0 ? .nan : negative ? -.infinity : .infinity }
            let preferred = ea - eb
            if ca == 0 { return rounded(negative: negative, coefficient: Wide(0), exponent: preferred, sticky: false) }
            // Scale the dividend so that the quotient has 35 or 36 digits: 34, a rounding digit, and
            // the remainder as sticky.
            let scale = Swift.max(0, 35 + digitCount(cb) - digitCount(ca))
            var (quotient, remainder) = Wide(ca).scaled(byPowerOfTen: scale).dividedReportingRemainder(by: cb)
            var exponent = preferred - scale
            if remainder == 0 {
                while exponent < preferred {
                    let (shorter, digit) = quotient.dividedReportingRemainder(by: 10)
                    guard digit == 0 else { break }
                    quotient = shorter
                    exponent += 1
                }
            }
            return rounded(negative: negative, coefficient: quotient, exponent: exponent, sticky: remainder != 0)
        }
    }

    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    /// Multiplies `lhs` by `rhs`.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    /// Divides `lhs` by `rhs`.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }

    private static func add(_ lhs: Decimal128, _ rhs: Decimal128, negatingRight: Bool) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan): return .nan
        case (.infinity(let a), .infinity(let b)):
            return a == (b != negatingRight) ? lhs : .nan
        case (.infinity, _): return lhs
        case (_, .infinity(let b)): return (b != negatingRight) ? -.infinity : .infinity
        case (.finite(let a, let ca, let ea), .finite(let bSign, let cb, let eb)):
            let b = bSign != negatingRight
            // The operand with the larger exponent is scaled to the other's (exactly, up to 43
            // digits more; past that the smaller one only decides rounding: truncated, with sticky).
            let (big, small) = ea >= eb ? ((a, ca, ea), (b, cb, eb)) : ((b, cb, eb), (a, ca, ea))
            let shift = big.2 - small.2
            var left: Wide
            var right: Wide
            var exponent: Int
            var sticky = false
            if shift <= 43 {
                left = Wide(big.1).scaled(byPowerOfTen: shift)
                right = Wide(small.1)
                exponent = small.2
            } else {
                left = Wide(big.1).scaled(byPowerOfTen: 43)
                exponent = big.2 - 43
                let drop = shift - 43
                if drop > 38 {
                    right = Wide(0)
                    sticky = small.1 != 0
                } else {
                    let (kept, lost) = Wide(small.1).dividedReportingRemainder(by: pow10[drop])
                    right = kept
                    sticky = lost != 0
                }
            }
            if big.0 == small.0 {
                return rounded(negative: big.0, coefficient: left + right, exponent: exponent, sticky: sticky)
            }
            if sticky { right = right + Wide(1) }  // the difference is below by less than one unit
            if left == right {
                return rounded(negative: false, coefficient: Wide(0), exponent: exponent, sticky: false)
            }
            return left > right
                ? rounded(negative: big.0, coefficient: left - right, exponent: exponent, sticky: sticky)
                : rounded(negative: small.0, coefficient: right - left, exponent: exponent, sticky: sticky)
        }
    }

    /// The decimal128 nearest `coefficient` × 10^`exponent` (plus something below its last digit
    /// when `sticky`), rounding half to even; infinite past the largest value, zero below the smallest.
    static func rounded(negative: Bool, coefficient: Wide, exponent: Int, sticky: Bool) -> Decimal128 {
        var value = coefficient
        var exponent = exponent
        var sticky = sticky
        var drop = Swift.max(0, value.digitCount - 34)
        if exponent + drop < minExponent { drop = minExponent - exponent }
        if drop > 0 {
            while drop > 38 {  // digits far below the kept ones only say whether anything was lost
                let (kept, lost) = value.dividedReportingRemainder(by: pow10[38])
                sticky = sticky || lost != 0
                value = kept
                drop -= 38
                exponent += 38
            }
            let divisor = pow10[drop]
            let (kept, lost) = value.dividedReportingRemainder(by: divisor)
            let half = divisor / 2
            let roundsUp = lost > half || (lost == half && (sticky || kept.low & 1 == 1))
            value = roundsUp ? kept + Wide(1) : kept
            exponent += drop
            if value.digitCount > 34 {  // 99…9 rounded up to 10^34
                value = value.dividedReportingRemainder(by: 10).quotient
                exponent += 1
            }
        }
        if exponent > maxExponent {
            // Clamp: a short coefficient can take trailing zeros instead of the exponent.
            let extra = exponent - maxExponent
            if value == Wide(0) {
                exponent = maxExponent
            } else if value.digitCount + extra <= 34 {
                value = value.scaled(byPowerOfTen: extra)
                exponent = maxExponent
            } else {
                return negative ? -.infinity : .infinity
            }
        }
        return Decimal128(negative: negative, coefficient: value.low, exponent: exponent)
    }
}

/// An unsigned 256-bit integer: room for a product of two coefficients, or one scaled by 10^43.
struct Wide: Equatable, Comparable {
    var high: UInt128
    var low: UInt128

    init(_ value: UInt128) {
        high = 0
        low = value
    }

    init(high: UInt128, low: UInt128) {
        self.high = high
        self.low = low
    }

    static func * (lhs: Wide, rhs: UInt128) -> Wide {
        let (carry, low) = lhs.low.multipliedFullWidth(by: rhs)
        return Wide(high: lhs.high &* rhs &+ carry, low: low)
    }

    static func + (lhs: Wide, rhs: Wide) -> Wide {
        let (low, carried) = lhs.low.addingReportingOverflow(rhs.low)
        return Wide(high: lhs.high &+ rhs.high &+ (carried ? 1 : 0), low: low)
    }

    /// `lhs - rhs` for `lhs >= rhs`.
    static func - (lhs: Wide, rhs: Wide) -> Wide {
        let (low, borrowed) = lhs.low.subtractingReportingOverflow(rhs.low)
        return Wide(high: lhs.high &- rhs.high &- (borrowed ? 1 : 0), low: low)
    }

    static func < (lhs: Wide, rhs: Wide) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    func scaled(byPowerOfTen power: Int) -> Wide {
        var value = self
        var remaining = power
        while remaining > 0 {
            let step = Swift.min(remaining, 38)
            value = value * Decimal128.pow10[step]
            remaining -= step
        }
        return value
    }

    func dividedReportingRemainder(by divisor: UInt128) -> (quotient: Wide, remainder: UInt128) {
        let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: divisor)
        let (lowQuotient, remainder) = divisor.dividingFullWidth((highRemainder, low))
        return (Wide(high: highQuotient, low: lowQuotient), remainder)
    }

    /// The number of decimal digits (1 for 0).
    var digitCount: Int {
        var value = self
        var count = 0
        while value.high != 0 {
            value = value.dividedReportingRemainder(by: Decimal128.pow10[19]).quotient
            count += 19
        }
        return count + Decimal128.digitCount(value.low)
    }
}
