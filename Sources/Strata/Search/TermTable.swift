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
    /// Per slot, two words: 0 when empty, else a term's hash's high half over its number + 1; and a
    /// term of up to 7 bytes itself (its bytes, its length in the top byte; `long` for a longer
    /// one). A lookup of a short term then reads one cache line, not the term's bytes elsewhere.
    private var slots = [UInt64](repeating: 0, count: 2 * 1024)
    /// Applied to every hash: all ones, but for a test that makes terms collide.
    private let hashMask: UInt64
    private static let long: UInt64 = 0xFF << 56

    /// A table; `hashMask` keeps only some bits of each hash (a test's collisions).
    init(hashMask: UInt64 = .max) {
        self.hashMask = hashMask
    }

    var count: Int { ends.count }

    @inline(__always)
    private static func packed(_ term: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard term.count <= 7 else { return long }
        var packed = UInt64(term.count) << 56
        for index in 0..<term.count { packed |= UInt64(term[index]) << (8 * index) }
        return packed
    }

    /// The number of `term`, given it when new.
    mutating func number(of term: UnsafeBufferPointer<UInt8>) -> Int {
        let hash = FNV1a.hash(term) & hashMask
        let tag = hash & 0xFFFF_FFFF_0000_0000
        let packed = Self.packed(term)
        let mask = slots.count / 2 - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let found = slots[2 * slot]
            if found == 0 { break }
            if found & 0xFFFF_FFFF_0000_0000 == tag {
                let number = Int(truncatingIfNeeded: found & 0xFFFF_FFFF) - 1
                if packed != Self.long {
                    if slots[2 * slot + 1] == packed { return number }
                } else if holds(term, at: number) {
                    return number
                }
            }
            slot = (slot + 1) & mask
        }
        let number = ends.count
        bytes.append(contentsOf: term)
        ends.append(bytes.count)
        hashes.append(hash)
        slots[2 * slot] = tag | UInt64(number + 1)
        slots[2 * slot + 1] = packed
        if ends.count * 4 > slots.count { grow() }
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
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        let mask = slots.count / 2 - 1
        for index in stride(from: 0, to: old.count, by: 2) where old[index] != 0 {
            let number = Int(truncatingIfNeeded: old[index] & 0xFFFF_FFFF) - 1
            var slot = Int(truncatingIfNeeded: hashes[number]) & mask
            while slots[2 * slot] != 0 { slot = (slot + 1) & mask }
            slots[2 * slot] = old[index]
            slots[2 * slot + 1] = old[index + 1]
        }
    }
}
