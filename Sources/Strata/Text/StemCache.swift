/// The stems of short words met lately: Porter's algorithm is a function of the folded word alone,
/// and a text's common words come back again and again, so each is stemmed once while it stays in
/// the cache, not once per occurrence (in a bulk insert of short texts, stemming was a third of the
/// tokenizer's time).
///
/// Direct-mapped: a word of 3 to 15 bytes has one slot, by its hash; a word met there replaces the
/// one before. Confined to its owner's thread (`TokenizerScratch`).
struct StemCache {
    /// Per slot: the folded word packed (`Packed`), then its stem; empty slots are all zero, which
    /// no word packs to (a packed word holds its length, at least 3).
    private var slots: [UInt64] = []
    private let slotCount: Int

    /// The longest word kept (longer ones are stemmed each time).
    static let longestWord = 15

    /// A cache of `slotCount` slots (a power of two; allocated at the first word).
    init(slotCount: Int = 2_048) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "slot count not a power of two")
        self.slotCount = slotCount
    }

    /// Stems the lowercase word in `word[0..<count]` in place as `stemmer` does; returns the stem's
    /// length.
    mutating func stem(_ word: UnsafeMutablePointer<UInt8>, count: Int, by stemmer: PorterStemmer) -> Int {
        // Words of one or two letters are never stemmed.
        guard count > 2, count <= Self.longestWord else { return stemmer.stem(word, count: count) }
        if slots.isEmpty { slots = [UInt64](repeating: 0, count: 4 * slotCount) }
        let key = Packed(word, count: count)
        let hash = (key.low ^ key.high &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
        let slot = 4 * Int(truncatingIfNeeded: hash >> 32) & (4 * slotCount - 1)
        return slots.withUnsafeMutableBufferPointer { slots in
            if slots[slot] == key.low, slots[slot + 1] == key.high {
                return Packed(low: slots[slot + 2], high: slots[slot + 3]).unpack(into: word)
            }
            let stemmed = stemmer.stem(word, count: count)
            let stem = Packed(word, count: stemmed)
            slots[slot] = key.low
            slots[slot + 1] = key.high
            slots[slot + 2] = stem.low
            slots[slot + 3] = stem.high
            return stemmed
        }
    }

    /// Up to 15 bytes in two words: bytes 0–7 in `low`, bytes 8–14 in `high`, and the length in
    /// `high`'s top byte.
    private struct Packed {
        var low: UInt64
        var high: UInt64

        init(low: UInt64, high: UInt64) {
            self.low = low
            self.high = high
        }

        init(_ bytes: UnsafeMutablePointer<UInt8>, count: Int) {
            low = 0
            high = UInt64(count) << 56
            for index in 0..<Swift.min(count, 8) { low |= UInt64(bytes[index]) << (8 * index) }
            if count > 8 { for index in 8..<count { high |= UInt64(bytes[index]) << (8 * (index - 8)) } }
        }

        /// Writes the bytes to `bytes`; returns how many.
        func unpack(into bytes: UnsafeMutablePointer<UInt8>) -> Int {
            let count = Int(high >> 56)
            for index in 0..<Swift.min(count, 8) { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * index)) }
            if count > 8 {
                for index in 8..<count { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * (index - 8))) }
            }
            return count
        }
    }
}

/// What a tokenizer's byte path (`StandardTokenizer.forEachTerm`) reuses from one text to the next on
/// one thread: room for words too long for its stack buffer, and the stems met.
struct TokenizerScratch {
    var longWord: [UInt8] = []
    var stems = StemCache()

    init(stems: StemCache = StemCache()) {
        self.stems = stems
    }
}
