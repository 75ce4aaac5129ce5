/// `StringMatch` on a row's stored UTF-8 bytes, with no `String` made: the route of every row whose
/// bytes are ASCII (its answer then is exactly `StringMatch`'s). Other rows are left to `StringMatch`,
/// whose Unicode folding this does not repeat.
///
/// Why ASCII rows can be matched byte by byte: ASCII bytes are valid UTF-8; folding diacritics leaves
/// ASCII as it is, and lowercasing an ASCII string lowercases each letter alone; so a folded ASCII row
/// is its bytes with `A`–`Z` lowered. A folded needle with a byte past ASCII cannot occur in it. Except
/// for `LIKE`, which compares `Character`s, and so canonical equivalents (the Kelvin sign is `K`): its
/// pattern past ASCII is left to `StringMatch`, and so is a row with a CR (CR LF is one `Character`
/// for its `?`, but two bytes).
struct TextMatch {
    private let op: QueryOperator
    /// The folded needle's bytes; nil when one is past ASCII (no ASCII row matches it).
    private let needle: [UInt8]?
    private let foldsCase: Bool

    init(_ match: StringMatch) {
        op = match.op
        foldsCase = match.options.contains(.caseInsensitive)
        let bytes = Array(match.needle.utf8)
        needle = bytes.allSatisfy { $0 < 0x80 } ? bytes : nil
    }

    /// The match of `bytes`, or nil when they are not an ASCII row this decides (`StringMatch` does).
    @inline(__always)
    func matches(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard UTF8Text.isASCII(bytes) else { return nil }
        guard let needle else { return op == .like ? nil : false }
        let row = UnsafeBufferPointer(
            start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return needle.withUnsafeBufferPointer { needle in
            switch op {
            case .beginsWith: return hasPrefix(row, needle, at: 0)
            case .endsWith: return row.count >= needle.count && hasPrefix(row, needle, at: row.count - needle.count)
            case .contains: return contains(row, needle)
            case .equal: return row.count == needle.count && hasPrefix(row, needle, at: 0)
            default:
                if row.contains(0x0D) { return nil }  // CR LF: one Character, see above
                return like(row, needle)
            }
        }
    }

    @inline(__always)
    private func folded(_ byte: UInt8) -> UInt8 {
        foldsCase && byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    @inline(__always)
    private func hasPrefix(_ row: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, at start: Int)
        -> Bool
    {
        guard start >= 0, row.count - start >= needle.count else { return false }
        var index = 0
        while index < needle.count {
            if folded(row[start + index]) != needle[index] { return false }
            index += 1
        }
        return true
    }

    /// Finds the needle's first byte eight row bytes at a time (each lowered when folding), then
    /// compares the rest at each candidate.
    private func contains(_ row: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard row.count >= needle.count, let base = row.baseAddress else { return false }
        let last = row.count - needle.count  // the last start the needle fits at
        let pattern = UInt64(first) &* Word.ones
        var start = 0
        while start + 7 <= last {
            var word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
            if foldsCase { word = Word.lowered(word) }
            var candidates = Word.zeroBytes(word ^ pattern)
            while candidates != 0 {
                if hasPrefix(row, needle, at: start + candidates.trailingZeroBitCount >> 3) { return true }
                candidates &= candidates &- 1
            }
            start += 8
        }
        while start <= last {
            if folded(row[start]) == first, hasPrefix(row, needle, at: start) { return true }
            start += 1
        }
        return false
    }

    /// `StringMatch.glob` on bytes: `?` takes one byte, here one `Character`.
    private func like(_ row: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        StringMatch.glob(row, pattern, star: 0x2A, any: 0x3F) { $0 == folded($1) }
    }
}

/// A string match as a scan evaluates it on a column's bytes (`ColumnPredicate.text`): in place for
/// ASCII (`TextMatch`), through a `String` otherwise; `negated` for `!=[c]`.
final class TextPredicate {
    let match: StringMatch
    private let text: TextMatch
    private let negated: Bool

    init(_ match: StringMatch, negated: Bool) {
        self.match = match
        text = TextMatch(match)
        self.negated = negated
    }

    /// The outcome for a non-null value; nil when its bytes are not UTF-8.
    @inline(__always)
    func evaluate(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard let matched = text.matches(bytes) ?? match.matches(bytes) else { return nil }
        return matched != negated
    }
}

/// Eight ASCII bytes in a word (SWAR).
private enum Word {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let high: UInt64 = 0x8080_8080_8080_8080

    /// `A`–`Z` lowered: a byte is upper case when adding 0x3F carries into its high bit (it is at
    /// least 0x41) and adding 0x25 does not (it is below 0x5B); ASCII bytes never carry out.
    @inline(__always)
    static func lowered(_ word: UInt64) -> UInt64 {
        let upper = (word &+ 0x3F &* ones) & ~(word &+ 0x25 &* ones) & high
        return word | upper >> 2
    }

    /// The high bit of each byte that is zero; above a zero byte, a byte may be flagged too (the
    /// borrow), so each is a candidate to check, and the lowest is always a zero.
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & high
    }
}
