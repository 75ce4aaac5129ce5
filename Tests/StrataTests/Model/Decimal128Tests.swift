import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Realm's Decimal128Tests (RealmSwift/Tests/Decimal128Tests.swift), re-expressed, then IEEE
/// 754-2008 decimal128 behaviour (rounding, exponents, specials, the BID encoding) and Decimal128 as a
/// stored value (index order across exponents, queries, sums, damaged bytes).
@Suite("Decimal128", .fixtureChecks)
struct Decimal128Tests {
    @Test("Realm testDecimal128Initialization: float, integer and string literals, init(number:), init(exactly:)")
    func initialization() {
        let d1: Decimal128 = 3.14159
        let d2 = Decimal128(number: 3.14159)
        let d3: Decimal128 = 123
        let d4: Decimal128 = "9.876543"
        let d5 = Decimal128(exactly: 0b00000101)
        #expect(d1 == 3.14159)
        #expect(d2 == 3.14159)
        #expect(d3 == 123)
        #expect(d4 == "9.876543")
        #expect(d5 == 5)
        #expect(d1.description == "3.14159")
    }

    @Test("Realm testDecimal128Addition (exactly: 3.144444 + 3.144444 is 6.288888, see ComingFromRealm.md)")
    func addition() {
        let d1: Decimal128 = 3.144444
        let d3: Decimal128 = "1.234567"
        let d4: Decimal128 = "9.876543"
        #expect(d1 + d1 == "6.288888")
        #expect((d3 + d4).description == "11.111110")
        #expect(d3.description == "1.234567")
        #expect(d4.description == "9.876543")
        #expect(Decimal128(exactly: 2)! + Decimal128(exactly: 1)! == 3.0)
        #expect((Decimal128(0.1) + 0.2) == 0.3)
    }

    @Test("Realm testDecimal128Subtraction: the smaller exponent is kept (-1.0)")
    func subtraction() {
        let d1: Decimal128 = 2.5
        let d2: Decimal128 = 3.5
        #expect(d1 - d2 == -1.0)
        #expect((Decimal128("2.5") - "3.5").description == "-1.0")
        #expect(Decimal128(exactly: 2)! - Decimal128(exactly: 1)! == 1.0)
    }

    @Test("Realm testDecimal128Division and testDecimal128Multiplication")
    func divisionAndMultiplication() {
        #expect(Decimal128(7) / 3.5 == 2)
        #expect(Decimal128("0.21") / "0.7" == 0.3)
        #expect(Decimal128(2) / 1 == 2)
        #expect(Decimal128(7) * 3.5 == 24.5)
        #expect(Decimal128("0.21") * "0.7" == 0.147)
        #expect((Decimal128("0.21") * "0.7").description == "0.147")
        #expect(Decimal128(2) * 2 == 4)
        #expect((Decimal128(1) / 3).description == "0.3333333333333333333333333333333333")
        #expect((Decimal128(2) / 3).description == "0.6666666666666666666666666666666667")
        #expect((Decimal128(10) / 4).description == "2.5")
        #expect((Decimal128("1.00") / 1).description == "1.00")
    }

    @Test("Realm testDecimal128Comparision*: numeric, across exponents")
    func comparisons() {
        #expect(Decimal128(3.14159) == Decimal128(number: 3.14159))
        #expect(Decimal128(123) == "123")
        #expect(Decimal128(exactly: 0b101)! == 5)
        #expect(!(Decimal128(123) != "123"))
        #expect(Decimal128(3.14160) > 3.14159)
        #expect(Decimal128(124) > "123")
        #expect(!(Decimal128(1) > 5))
        #expect(Decimal128(3.14159) >= 3.14159)
        #expect(!(Decimal128(1) >= 5))
        #expect(Decimal128(3.14159) < 3.14160)
        #expect(Decimal128(122) < "123")
        #expect(!(Decimal128(2) < 1))
        #expect(Decimal128(3.14160) <= 3.14160)
        #expect(!(Decimal128(2) <= 1))
        #expect(Decimal128("1.50") == "1.5")
        #expect(Decimal128("1.50").description == "1.50")
        #expect(Set([Decimal128("1.50"), "1.5", "1.500", "-0", "0", "0E+10"]).count == 2)
        #expect(Decimal128("-0") == 0)
        #expect(Decimal128("-1E+2") < Decimal128("-99"))
    }

    @Test("Realm testIsNaN, testMinMax, testMagnitude, testNegate, testAdvance, testDistance")
    func miscellaneous() {
        #expect(Decimal128.nan.isNaN)
        #expect(!Decimal128.nan.isSignaling)
        #expect(Decimal128.signalingNaN.isSignalingNaN)
        #expect(Decimal128.nan != .nan)
        #expect(!(Decimal128.nan < 1))
        #expect(!(Decimal128.nan > 1))
        #expect(Decimal128.max > .min)
        #expect(Decimal128.min < .max)
        #expect(Decimal128(-123.321).magnitude == 123.321)
        #expect(Decimal128(456.321).magnitude == 456.321)
        var d1: Decimal128 = -123.321
        var d2: Decimal128 = 456.321
        d1.negate()
        d2.negate()
        #expect(d1 == 123.321)
        #expect(d2 == -456.321)
        #expect(Decimal128(-123.321).advanced(by: -123.321) == -246.642)
        #expect(Decimal128(-150.0).advanced(by: 300.0) == 150.0)
        #expect(Decimal128(10.0).distance(to: 5.0) == -5.0)
        #expect(Decimal128(10.0).distance(to: 15.0) == 5.0)
    }

    @Test("text: IEEE's scientific string, parsing with rounding to 34 digits, bad text refused")
    func text() throws {
        let cases: [(String, String)] = [
            ("0", "0"), ("-0", "-0"), ("0.00", "0.00"), ("1E+3", "1E+3"), ("1000", "1000"), ("0.000001", "0.000001"),
            ("0.0000001", "1E-7"), ("123.456e2", "12345.6"), ("1.5e-10", "1.5E-10"), ("nan", "NaN"),
            ("-Infinity", "-Infinity"), ("inf", "Infinity"),
            ("1234567890123456789012345678901234", "1234567890123456789012345678901234"),
            ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
            ("12345678901234567890123456789012355", "1.234567890123456789012345678901236E+34"),
            ("1.0000000000000000000000000000000005", "1.000000000000000000000000000000000"),
            ("1.00000000000000000000000000000000051", "1.000000000000000000000000000000001"),
            ("9.9999999999999999999999999999999999", "10.00000000000000000000000000000000"),
            ("1E+6112", "1.0E+6112"), ("1E+6144", "1.000000000000000000000000000000000E+6144"), ("1E+6145", "Infinity"),
            ("1E+6200", "Infinity"), ("1E-6176", "1E-6176"), ("1E-6200", "0E-6176"),
        ]
        for (input, printed) in cases {
            #expect(try Decimal128(string: input).description == printed, "\(input)")
        }
        for bad in ["", "-", ".", "1..2", "1e", "e5", "1e+", "12a", " 1", "0x10"] {
            #expect(throws: StoreError.self, "\(bad)") { try Decimal128(string: bad) }
        }
        #expect(Decimal128(1e-5).description == "0.00001")
    }

    @Test("the BID encoding matches the IEEE/BSON bytes of known values")
    func encoding() throws {
        // BSON corpus (decimal128-1.json): 1 is 0x3040000000000000_0000000000000001, -1.0 is
        // 0xB03E000000000000_000000000000000A, 0.1 is 0x303E000000000000_0000000000000001.
        let one = try Decimal128(string: "1")
        #expect(one.high == 0x3040_0000_0000_0000)
        #expect(one.low == 1)
        let minusOnePointZero = try Decimal128(string: "-1.0")
        #expect(minusOnePointZero.high == 0xB03E_0000_0000_0000)
        #expect(minusOnePointZero.low == 10)
        #expect(Decimal128.nan.high == 0x7C00_0000_0000_0000)
        #expect(Decimal128.infinity.high == 0x7800_0000_0000_0000)
        // A coefficient past 10^34 - 1 is non-canonical: zero.
        let noncanonical = Decimal128(high: 0x3041_ED09_BEAD_87C0, low: 0x378D_8E64_0000_0000)
        #expect(noncanonical.isZero)
    }

    @Test("Foundation's Decimal converts both ways")
    func foundationDecimal() {
        #expect(Decimal128(Decimal(string: "12.345")!) == "12.345")
        #expect(Decimal128("12.345").decimalValue == Decimal(string: "12.345")!)
        #expect(Decimal128.nan.decimalValue.isNaN)
        #expect(Decimal128(Decimal.nan).isNaN)
        #expect(Decimal128("1E+200").decimalValue.isNaN)
    }

    @Test("random arithmetic agrees with Foundation's Decimal where both are exact")
    func randomArithmetic() {
        var rng = SplitMix64(state: 128)
        for _ in 0..<2_000 {
            let a = Int64.random(in: -999_999_999...999_999_999, using: &rng)
            let b = Int64.random(in: 1...999_999, using: &rng)
            let scaleA = Int.random(in: 0...6, using: &rng)
            let scaleB = Int.random(in: 0...6, using: &rng)
            let x = Decimal128(Int(a)) / Decimal128(stringLiteral: "1E\(scaleA)")
            let y = Decimal128(Int(b)) / Decimal128(stringLiteral: "1E\(scaleB)")
            let fx = Decimal(a) / pow(Decimal(10), scaleA)
            let fy = Decimal(b) / pow(Decimal(10), scaleB)
            #expect((x + y).decimalValue == fx + fy)
            #expect((x - y).decimalValue == fx - fy)
            #expect((x * y).decimalValue == fx * fy)
            #expect((x < y) == (fx < fy))
        }
    }

    @Test("stored: indexed equality finds 1.5 for 1.50, ranges and sorting in numeric order, sum, List")
    func stored() throws {
        let fixture = Fixture([Ledger.self])
        let store = try fixture.open()
        let amounts: [Decimal128] = ["1.50", "-2", "10", "0.1", "-0", "NaN", "1E+3", "-1E-3", "2.50", "Infinity"]
        try store.write {
            for amount in amounts {
                let ledger = Ledger(amount: amount, label: amount.description)
                ledger.history.append(objectsIn: [amount, 1])
                try store.add(ledger)
            }
        }
        let all = store.objects(Ledger.self)
        #expect(all.where { $0.amount == "1.5" }.map(\.label) == ["1.50"])
        #expect(all.where { $0.plainAmount == "1.5" }.map(\.label) == ["1.50"])
        #expect(all.where { $0.amount == 0 }.map(\.label) == ["-0"])
        let sorted = all.sorted(by: \.amount).map(\.label)
        #expect(sorted == ["NaN", "-2", "-0.001", "-0", "0.1", "1.50", "2.50", "10", "1E+3", "Infinity"])
        #expect(all.sorted(by: \.plainAmount).map(\.label) == sorted)
        let ranged = Set(all.where { $0.amount > "0.1" && $0.amount <= 1000 }.map(\.label))
        #expect(ranged == ["1.50", "2.50", "10", "1E+3"])
        #expect(Set(all.where { $0.plainAmount > "0.1" && $0.plainAmount <= 1000 }.map(\.label)) == ranged)
        #expect("\(all.where { $0.amount > "0.1" }.queryPlan)".contains("index"))
        #expect(all.where { $0.amount > -1 && $0.amount < 100 }.sum(of: \.amount) == "14.099")
        #expect(all.where { $0.history.contains("1.0") }.count == amounts.count)
    }

    @Test("index keys order as the numbers, equal numbers share a key")
    func indexKeyOrder() {
        var rng = SplitMix64(state: 6111)
        var values: [Decimal128] = [.infinity, -.infinity, .max, .min, "0", "-0", "1E-6176", "-1E-6176"]
        for _ in 0..<300 {
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &rng))
            let sign = Bool.random(using: &rng) ? "-" : ""
            values.append(Decimal128(stringLiteral: "\(sign)\(digits)E\(Int.random(in: -40...40, using: &rng))"))
        }
        func key(_ value: Decimal128) -> [UInt8] {
            var key: [UInt8] = []
            Decimal128.appendIndexKey(of: value, to: &key)
            return key
        }
        for a in values {
            for b in values.prefix(60) {
                let bytewise = key(a).lexicographicallyPrecedes(key(b))
                #expect(bytewise == (a < b), "\(a) < \(b)")
                #expect((key(a) == key(b)) == (a == b), "\(a) == \(b)")
            }
        }
        #expect(key("1.50") == key("1.5000"))
    }

    @Test("a damaged Decimal128 column (15 bytes) is corrupted when decoded, never a trap")
    func damagedBytes() {
        let fifteen = [UInt8](repeating: 1, count: 15)
        let outcomes = fifteen.withUnsafeBytes { raw -> (decode: Bool, index: Bool) in
            var key: [UInt8] = []
            let decode = (try? Decimal128._strataDecodeValue(raw, in: _DecodeContext(owner: nil, column: 0))) == nil
            let index = (try? KeyEncoding.indexKey(column: raw, type: .decimal128, into: &key)) == nil
            return (decode, index)
        }
        #expect(outcomes.decode)
        #expect(outcomes.index)
    }
}
