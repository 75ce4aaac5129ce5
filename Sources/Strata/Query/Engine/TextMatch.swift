import Foundation  // memchr

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

    /// Looks for the needle's first byte (either case, when folded), then compares the rest.
    private func contains(_ row: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard row.count >= needle.count else { return false }
        let last = row.count - needle.count
        var start = 0
        if !foldsCase, let base = row.baseAddress {
            while start <= last {
                // libc's memchr finds the candidates (memmem is a GNU extension Glibc's module hides).
                guard let found = memchr(base + start, Int32(first), last - start + 1) else { return false }
                start = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                if hasPrefix(row, needle, at: start) { return true }
                start += 1
            }
            return false
        }
        while start <= last {
            if folded(row[start]) == first, hasPrefix(row, needle, at: start) { return true }
            start += 1
        }
        return false
    }

    /// Glob matching of `*` (any run) and `?` (one byte: here one `Character`), as `StringMatch`'s.
    private func like(_ row: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        let (star, any): (UInt8, UInt8) = (0x2A, 0x3F)
        var (s, p) = (0, 0)
        var (starAt, mark) = (-1, 0)
        while s < row.count {
            if p < pattern.count, pattern[p] == star {
                starAt = p
                mark = s
                p += 1
            } else if p < pattern.count, pattern[p] == any || pattern[p] == folded(row[s]) {
                s += 1
                p += 1
            } else if starAt >= 0 {
                p = starAt + 1
                mark += 1
                s = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }
}
