#if Encryption
    import Foundation
    import StrataTestSupport
    import Testing

    @testable import Strata

    @Suite struct SealedOrderTests {
        /// Keys of 0 to 12 bytes drawn from few byte values, so that many share their first 8 bytes,
        /// are prefixes of one another, or end in zeros (which the prefix pads with).
        private static func key(_ random: inout SplitMix64) -> [UInt8] {
            let length = Int.random(in: 0...12, using: &random)
            return (0..<length).map { _ in [0, 1, 2, 255][Int.random(in: 0..<4, using: &random)] }
        }

        @Test(
            "a kept order's search by key prefixes finds what a walk through the keys finds",
            arguments: [1, 2, 3] as [UInt64])
        func prefixSearchMatchesALinearOne(seed: UInt64) {
            var random = SplitMix64(state: seed)
            let arena = OpenedValues()
            let keys = Set((0..<2_000).map { _ in Self.key(&random) }).sorted { $0.lexicographicallyPrecedes($1) }
            let entries = keys.map { key in
                let kept = key.withUnsafeBytes { arena.keep($0) }
                return SealedOrder.Entry(key: kept, value: kept, storedKey: kept)
            }
            let kept = SealedOrder(sorted: entries, arenas: [arena], isShared: true)
            let plain = SealedOrder(sorted: entries, arenas: [arena], isShared: false)  // no prefixes
            for _ in 0..<3_000 {
                let probe = Bool.random(using: &random) ? keys.randomElement(using: &random)! : Self.key(&random)
                let expected = keys.firstIndex { !$0.lexicographicallyPrecedes(probe) } ?? keys.count
                probe.withUnsafeBytes { probe in
                    #expect(kept.lowerBound(probe) == expected)
                    #expect(plain.lowerBound(probe) == expected)
                    #expect(kept.position(of: probe) == (keys.contains(Array(probe)) ? expected : nil))
                }
            }
            // A private copy (a write's) searches alike.
            #expect(
                keys.indices.allSatisfy { index in
                    keys[index].withUnsafeBytes { kept.privateCopy().lowerBound($0) } == index
                })
        }

        @Test(
            "pending keys tell a key above the greatest one put as memcmp's order does",
            arguments: [1, 2, 3] as [UInt64])
        func pendingKeysKnowTheGreatestKey(seed: UInt64) {
            var random = SplitMix64(state: seed)
            var keys = PendingKeys { keys in keys.map { ($0.bytes, UInt64($0.length)) } }
            var greatest: [UInt8]?
            for number in 0..<5_000 as Range<UInt64> {
                // Half near the greatest (a prefix of it, and a few bytes more): ties of prefix and length.
                var key = Self.key(&random)
                if let greatest, Bool.random(using: &random) {
                    key = Array(greatest.prefix(Int.random(in: 0...greatest.count, using: &random)))
                    key += Self.key(&random).prefix(Int.random(in: 0...2, using: &random))
                }
                key.withUnsafeBytes { plain in
                    let above = greatest.map { $0.lexicographicallyPrecedes(key) } ?? true
                    #expect(keys.isAboveGreatest(plain) == above, "\(key) after \(greatest ?? [])")
                    guard above else { return }
                    greatest = key
                    if key.count <= Sealer.shortKeyLength, Bool.random(using: &random) {
                        keys.appendUnsealed(plain, number: number)
                    } else {
                        keys.set(.long(key), plain: plain, to: number)
                    }
                }
            }
        }
    }
#endif
