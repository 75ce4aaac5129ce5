/// The terms a write has met, numbered in the order met: their bytes in one buffer, found again by
/// an open-addressing hash table. A bulk insert then hashes each word once and allocates nothing
/// per word (a term's postings are kept by its number).
struct TermTable {
    private var bytes: [UInt8] = []
    /// Term `n` is `bytes[ends[n - 1] ..< ends[n]]` (from 0 for the first).
    private var ends: [Int] = []
    private var hashes: [UInt64] = []
    /// Term numbers (-1: empty), at their hash's slot or after it.
    private var slots = [Int32](repeating: -1, count: 1024)

    var count: Int { ends.count }

    /// The number of `term`, given it when new.
    mutating func number(of term: UnsafeBufferPointer<UInt8>) -> Int {
        let hash = FNV1a.hash(term)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let found = slots[slot]
            if found < 0 { break }
            if hashes[Int(found)] == hash, self.term(Int(found)).elementsEqual(term) { return Int(found) }
            slot = (slot + 1) & mask
        }
        let number = ends.count
        bytes.append(contentsOf: term)
        ends.append(bytes.count)
        hashes.append(hash)
        slots[slot] = Int32(number)
        if ends.count * 2 > slots.count { grow() }
        return number
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
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(number)
        }
    }
}
