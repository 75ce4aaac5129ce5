import Foundation

/// The terms a write has met, numbered in the order met: their bytes in one buffer, found again by
/// an open-addressing hash table. A bulk insert then hashes each word once and allocates nothing
/// per word (a term's postings are kept by its number).
struct TermTable {
    private var bytes: [UInt8] = []
    /// Term `n` is `bytes[ends[n - 1] ..< ends[n]]` (from 0 for the first).
    private var ends: [Int] = []
    /// Each term's hash (what `grow` places them by).
    private var hashes: [UInt64] = []
    /// Per slot, 0 when empty, else a term's hash's high half over its number + 1: a lookup compares
    /// hashes without reading `hashes` (one cache miss less per word of a large write).
    private var slots = [UInt64](repeating: 0, count: 1024)
    /// Applied to every hash: all ones, but for a test that makes terms collide.
    private let hashMask: UInt64

    /// A table; `hashMask` keeps only some bits of each hash (a test's collisions).
    init(hashMask: UInt64 = .max) {
        self.hashMask = hashMask
    }

    var count: Int { ends.count }

    /// The number of `term`, given it when new.
    mutating func number(of term: UnsafeBufferPointer<UInt8>) -> Int {
        let hash = FNV1a.hash(term) & hashMask
        let tag = hash & 0xFFFF_FFFF_0000_0000
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let found = slots[slot]
            if found == 0 { break }
            if found & 0xFFFF_FFFF_0000_0000 == tag {
                let number = Int(truncatingIfNeeded: found & 0xFFFF_FFFF) - 1
                if holds(term, at: number) { return number }
            }
            slot = (slot + 1) & mask
        }
        let number = ends.count
        bytes.append(contentsOf: term)
        ends.append(bytes.count)
        hashes.append(hash)
        slots[slot] = tag | UInt64(number + 1)
        if ends.count * 2 > slots.count { grow() }
        return number
    }

    /// Whether term `number`'s bytes are `term`'s.
    private func holds(_ term: UnsafeBufferPointer<UInt8>, at number: Int) -> Bool {
        let start = number == 0 ? 0 : ends[number - 1]
        guard ends[number] - start == term.count else { return false }
        guard let other = term.baseAddress else { return true }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + start, other, term.count) == 0 }
    }

    func term(_ number: Int) -> ArraySlice<UInt8> {
        bytes[(number == 0 ? 0 : ends[number - 1])..<ends[number]]
    }

    /// The term numbers in the terms' byte order (the order of their keys).
    func numbersInOrder() -> [Int] {
        // The first eight bytes, big-endian, decide most comparisons without touching the buffer.
        let prefixes = (0..<count).map { number -> UInt64 in
            var prefix: UInt64 = 0
            for (index, byte) in term(number).prefix(8).enumerated() { prefix |= UInt64(byte) << (56 - 8 * index) }
            return prefix
        }
        return (0..<count).sorted { lhs, rhs in
            if prefixes[lhs] != prefixes[rhs] { return prefixes[lhs] < prefixes[rhs] }
            return term(lhs).lexicographicallyPrecedes(term(rhs))
        }
    }

    private mutating func grow() {
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(number + 1)
        }
    }
}
