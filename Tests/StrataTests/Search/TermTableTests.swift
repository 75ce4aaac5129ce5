import Testing

@testable import Strata

/// The write path's term numbering and pending postings against plain Swift collections, on seeded
/// random operations.
@Suite struct TermTableTests {
    /// With every hash bit, and with 4 bits only (terms collide, so their bytes decide).
    @Test(arguments: [(UInt64(1), UInt64.max), (2, .max), (3, .max), (4, 0xF000_0000_0000_0003)])
    func numbersAsADictionaryWould(seed: UInt64, hashMask: UInt64) {
        var source = VectorSource(seed: seed, dimensions: 1)
        var table = TermTable(hashMask: hashMask)
        var reference: [[UInt8]: Int] = [:]
        var terms: [[UInt8]] = []
        for _ in 0..<(hashMask == .max ? 20_000 : 3_000) {
            // Short terms over a small alphabet: many repeats, shared prefixes, the empty term.
            let term = (0..<source.int(0..<9)).map { _ in UInt8(0x61 + source.int(0..<4)) }
            let expected = reference[term] ?? terms.count
            if reference[term] == nil {
                reference[term] = terms.count
                terms.append(term)
            }
            #expect(term.withUnsafeBufferPointer { table.number(of: $0) } == expected)
        }
        #expect(table.count == terms.count)
        for (number, term) in terms.enumerated() { #expect(Array(table.term(number)) == term) }
        #expect(table.numbersInOrder().map { terms[$0] } == terms.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func arenaStreamsHoldWhatWasAppended(seed: UInt64) {
        var source = VectorSource(seed: seed, dimensions: 1)
        var arena = PostingArena()
        var streams = Array(repeating: PostingArena.Stream(), count: 40)
        var reference = Array(repeating: [UInt8](), count: 40)
        for _ in 0..<3_000 {
            let stream = source.int(0..<40)
            // Mostly a posting's few bytes; sometimes more than a slice holds.
            let count = source.int(0..<10) == 0 ? source.int(0..<9_000) : source.int(0..<12)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: source.next()) }
            bytes.withUnsafeBufferPointer { arena.append($0, to: &streams[stream]) }
            reference[stream] += bytes
        }
        for (stream, bytes) in zip(streams, reference) {
            #expect(Int(stream.count) == bytes.count)
            #expect(arena.bytes(of: stream) == bytes)
        }
        #expect(PostingArena().bytes(of: PostingArena.Stream()).isEmpty)
        // One term in every document of a large write: thousands of slices.
        var long = PostingArena.Stream()
        var longReference: [UInt8] = []
        for chunk in 0..<400 {
            let bytes = (0..<(4_000 + chunk)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ chunk) }
            bytes.withUnsafeBufferPointer { arena.append($0, to: &long) }
            longReference += bytes
        }
        #expect(arena.bytes(of: long) == longReference)
        for (stream, bytes) in zip(streams, reference) { #expect(arena.bytes(of: stream) == bytes) }
    }
}
