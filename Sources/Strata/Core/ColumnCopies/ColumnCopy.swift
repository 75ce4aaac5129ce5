/// One numeric column of a table held in memory (`ColumnCopies`): each row's sort key (its value
/// mapped to an unsigned number that orders as the values do) and the row's stored key, in key
/// order, as of the change stamp it was made at. Immutable once made: Stores on any thread read it.
///
/// Held in chunks, the key ranges of the walk that made it in key order: a split walk's ranges are
/// kept as they were read, never copied into one array (fresh memory costs a page fault per 4 KB).
final class ColumnCopy: Sendable {
    /// The rows of one key range.
    struct Chunk: Sendable {
        /// Per row, in key order, the value's sort key (0 for a null).
        var sortKeys: [UInt64] = []
        /// The rows whose value is null, in key order.
        var nullPositions: [Int] = []
        /// The rows' stored keys.
        var keys = Keys()

        var byteCount: Int {
            sortKeys.count * MemoryLayout<UInt64>.stride + nullPositions.count * MemoryLayout<Int>.stride
                + keys.byteCount
        }
    }

    let stamp: ChangeStamp
    let chunks: [Chunk]

    init(stamp: ChangeStamp, chunks: [Chunk]) {
        precondition(chunks.allSatisfy { $0.sortKeys.count == $0.keys.count })
        self.stamp = stamp
        self.chunks = chunks
    }

    /// The memory the copy holds.
    var byteCount: Int { chunks.reduce(0) { $0 + $1.byteCount } }

    /// Stored keys one after another: of one width (integer keys, ObjectIds, UUIDs) with no offsets,
    /// else each with where it ends.
    struct Keys: Sendable {
        private var bytes: [UInt8] = []
        /// The width of every key so far; nil before the first, or once widths differ.
        private var width: Int?
        /// Where each key ends, once widths differ (empty while they are one).
        private var ends: [Int] = []
        private(set) var count = 0

        var byteCount: Int { bytes.count + ends.count * MemoryLayout<Int>.stride }

        @inline(__always)
        mutating func append(_ key: UnsafeRawBufferPointer) {
            if width != key.count, count == 0 || width != nil {
                if count == 0 { width = key.count } else { spreadEnds() }
            }
            bytes.append(
                contentsOf: UnsafeBufferPointer(start: key.bindMemory(to: UInt8.self).baseAddress, count: key.count))
            count += 1
            if width == nil { ends.append(bytes.count) }
        }

        /// Keys of one width so far, given ends: the next key has another width.
        private mutating func spreadEnds() {
            guard let width else { return }
            ends = (0..<count).map { ($0 + 1) * width }
            self.width = nil
        }

        /// The stored key of row `index`.
        func key(at index: Int) -> [UInt8] {
            if let width { return Array(bytes[(index * width)..<((index + 1) * width)]) }
            return Array(bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
        }
    }
}
