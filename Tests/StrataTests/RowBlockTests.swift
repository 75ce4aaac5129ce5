#if Encryption
    import Testing

    @testable import Strata
    import StrataTestSupport

    /// A block's pairs (`RowBlock`) against a plain dictionary: seeded puts (in order, anywhere,
    /// replacing), removes and reads; its encoding decodes to the same pairs, and damaged encodings are
    /// refused.
    @Suite struct RowBlockTests {
        static func pairs(_ block: RowBlock) -> [(key: [UInt8], value: [UInt8])] {
            (0..<block.count).map { (block.key(at: $0), block.value(at: $0)) }
        }

        @Test(arguments: [UInt64(1), 2, 3, 4, 5]) func seededChangesMatchAModelAndSurviveTheirEncoding(seed: UInt64)
            throws
        {
            var random = SplitMix64(state: seed)
            var block = RowBlock()
            var model: [[UInt8]: [UInt8]] = [:]
            var next: UInt64 = 0
            for step in 0..<3_000 {
                let known = Array(model.keys)
                let key: [UInt8]
                switch random.next() % 3 {
                case 0 where !known.isEmpty: key = known[Int(random.next() % UInt64(known.count))]
                case 1:  // increasing: the append path
                    next += 1 + random.next() % 4
                    key = withUnsafeBytes(of: next.bigEndian) { Array($0) }
                default: key = (0..<(random.next() % 10)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                }
                if random.next() % 4 == 0 {
                    let removed = key.withUnsafeBytes { block.remove($0) }
                    #expect(removed == (model.removeValue(forKey: key) != nil))
                } else {
                    let value = (0..<(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    let added = key.withUnsafeBytes { k in value.withUnsafeBytes { block.put(k, $0) } }
                    #expect(added == (model.updateValue(value, forKey: key) == nil))
                }
                let probe = known.isEmpty ? key : known[Int(random.next() % UInt64(known.count))]
                #expect(probe.withUnsafeBytes { block.value(of: $0) } == model[probe])
                if step % 100 == 99 {
                    let expected = model.sorted { $0.key.lexicographicallyPrecedes($1.key) }
                    let actual = Self.pairs(block)
                    #expect(actual.map(\.key) == expected.map(\.key))
                    #expect(actual.map(\.value) == expected.map(\.value))
                    let encoded = block.encoded
                    #expect(encoded.count == block.encodedCount)
                    #expect(block.withEncoded { Array($0) } == encoded)
                    let decoded = try #require(encoded.withUnsafeBytes { RowBlock(decoding: $0) })
                    #expect(Self.pairs(decoded).map(\.key) == expected.map(\.key))
                    #expect(Self.pairs(decoded).map(\.value) == expected.map(\.value))
                }
            }
        }

        /// A block's buffer is shared by its copies (a nested transaction's) and held by images that
        /// point into it: a change of one copy never shows in another, nor under a held pointer.
        @Test(arguments: [UInt64(1), 2, 3]) func copiesAndHeldBuffersNeverChange(seed: UInt64) {
            var random = SplitMix64(state: seed)
            var block = RowBlock()
            block.reserveCapacity(1 << 14)  // room to change in place: only sharing may prevent it
            var model: [[UInt8]: [UInt8]] = [:]
            var next: UInt64 = 0
            var copies: [(block: RowBlock, model: [[UInt8]: [UInt8]], encoded: [UInt8])] = []
            var held: [(buffer: BlockBytes?, pairs: [(UnsafeRawBufferPointer, [UInt8])])] = []
            for step in 0..<2_000 {
                let key: [UInt8]
                if random.next() % 4 == 0, let known = model.keys.randomElement(using: &random) {
                    key = known
                } else if random.next() % 3 == 0 {
                    key = (0..<(1 + random.next() % 8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                } else {
                    next += 1
                    key = withUnsafeBytes(of: next.bigEndian) { Array($0) }
                }
                if random.next() % 5 == 0 {
                    _ = key.withUnsafeBytes { block.remove($0) }
                    model[key] = nil
                } else {
                    let value = (0..<(random.next() % 30)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    _ = key.withUnsafeBytes { k in value.withUnsafeBytes { block.put(k, $0) } }
                    model[key] = value
                }
                if step % 50 == 0 {
                    copies.append((block, model, block.withEncoded { Array($0) }))
                    held.append(
                        block.withPairs { buffer, pairs, offsets in
                            (
                                buffer,
                                offsets.map { RowBlock.pair(in: pairs, at: $0) }.map { ($0.value, Array($0.value)) }
                            )
                        })
                }
                if step % 70 == 0, !copies.isEmpty {  // a copy changed in turn: the original keeps its pairs
                    let index = Int(random.next() % UInt64(copies.count))
                    var changed = copies[index].block
                    [0xFF, 0xFF].withUnsafeBytes { k in [1, 2, 3].withUnsafeBytes { _ = changed.put(k, $0) } }
                    _ = model.keys.first.map { key in key.withUnsafeBytes { changed.remove($0) } }
                }
            }
            for copy in copies {
                let expected = copy.model.sorted { $0.key.lexicographicallyPrecedes($1.key) }
                #expect(Self.pairs(copy.block).map(\.key) == expected.map(\.key))
                #expect(Self.pairs(copy.block).map(\.value) == expected.map(\.value))
                #expect(copy.block.withEncoded { Array($0) } == copy.encoded)
            }
            for (buffer, pairs) in held {
                withExtendedLifetime(buffer) {
                    for (bytes, expected) in pairs { #expect(Array(bytes) == expected) }
                }
            }
        }

        @Test func aRowReplacedAgainAndAgainKeepsItsBlockSmall() {
            var block = RowBlock()
            let key: [UInt8] = [1, 2, 3]
            for round in 0..<10_000 {
                let value = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: 100)
                key.withUnsafeBytes { k in value.withUnsafeBytes { _ = block.put(k, $0) } }
            }
            #expect(block.count == 1)
            #expect(block.encodedCount == 4 + RowBlock.pairHeader + 3 + 100)
            #expect(block.encoded.count == block.encodedCount)
        }

        @Test func encodingsOutOfOrderOrOfTheWrongLengthAreRefused() {
            var block = RowBlock()
            for id: UInt8 in [3, 1, 2] {
                [id].withUnsafeBytes { k in [id, id].withUnsafeBytes { _ = block.put(k, $0) } }
            }
            let encoded = block.encoded
            #expect(encoded.withUnsafeBytes { RowBlock(decoding: $0) } != nil)
            var swapped = encoded  // the first two keys (1 and 2) swapped: out of order
            swapped[4 + RowBlock.pairHeader] = 2
            swapped[4 + 2 * RowBlock.pairHeader + 3] = 1
            #expect(swapped.withUnsafeBytes { RowBlock(decoding: $0) } == nil)
            #expect(Array(encoded.dropLast()).withUnsafeBytes { RowBlock(decoding: $0) } == nil)
            #expect((encoded + [0]).withUnsafeBytes { RowBlock(decoding: $0) } == nil)
            var longer = encoded  // a count past the pairs there are
            longer[0] = 4
            #expect(longer.withUnsafeBytes { RowBlock(decoding: $0) } == nil)
        }
    }
#endif
