import Foundation
import Testing

@testable import Strata

@Suite("Row keys order as LMDB stores them", .fixtureChecks)
struct RowKeyOrderTests {
    /// LMDB's default comparison: bytewise, a prefix before its extensions.
    private func bytewise(_ a: RowKey, _ b: RowKey) -> Bool {
        a.withBytes { a in b.withBytes { b in a.lexicographicallyPrecedes(b) } }
    }

    @Test("integer, signed, string and UUID keys: < is the byte order of the stored keys")
    func lessThanIsByteOrder() {
        var generator = SystemRandomNumberGenerator()
        let integers =
            (0..<200).map { _ in RowKey.integer(UInt64.random(in: 0...UInt64.max, using: &generator)) }
            + [.integer(0), .integer(1), .integer(UInt64.max)]
        let signed =
            (0..<200).map { _ in RowKey.signed(Int64.random(in: Int64.min...Int64.max, using: &generator)) }
            + [.signed(-1), .signed(0), .signed(1), .signed(.min), .signed(.max)]
        let strings =
            ["", "a", "ab", "b", "é", "Z", "a\u{0}"].map(RowKey.string)
            + (0..<200).map { _ in RowKey.string(String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 7))
            }
        let uuids = (0..<200).map { _ in RowKey.uuid(UUID()) }
        for keys in [integers, signed, strings, uuids] {
            for a in keys {
                for b in keys {
                    #expect((a < b) == bytewise(a, b), "\(a) < \(b)")
                }
            }
        }
    }

    @Test("signed keys order as their values")
    func signedKeysOrderAsValues() {
        let values: [Int64] = [.min, -1_000, -1, 0, 1, 1_000, .max]
        for (a, b) in zip(values, values.dropFirst()) {
            #expect(RowKey.signed(a) < RowKey.signed(b))
        }
    }
}
