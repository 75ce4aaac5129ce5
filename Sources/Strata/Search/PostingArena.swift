/// The pending postings of every term of one index in one buffer, each term's bytes in a chain of
/// slices (16 bytes, then twice as many, up to 4 KB; the last 4 bytes of a full slice name the next
/// one), as Lucene's byte pools keep them. A bulk insert then appends a posting with a copy, not into
/// an array of its own per term (an allocation per term, a uniqueness check and a reference count per
/// posting, and the terms' arrays all over the heap).
///
/// One write transaction's (`FullTextChanges`): dropped or read back (`bytes(of:)`) when it flushes.
struct PostingArena {
    /// Where a term's bytes are: its first slice, where the next byte goes, where its current slice's
    /// link is, how many slices it has (counted up to 9: all after the ninth are 4 KB) and its bytes.
    struct Stream {
        fileprivate var head: UInt32 = 0
        fileprivate var tail: UInt32 = 0
        fileprivate var end: UInt32 = 0
        fileprivate var slices: UInt8 = 0
        fileprivate(set) var count: UInt32 = 0

        var isEmpty: Bool { slices == 0 }
    }

    private var storage: [UInt8] = []

    /// The bytes the arena holds (its slices, used or not).
    var size: Int { storage.count }

    private static let linkSize = 4

    private static func sliceSize(_ slice: UInt8) -> Int { 16 << min(Int(slice), 8) }

    /// Appends `bytes` to a term's stream.
    ///
    /// - Precondition: the arena holds less than 4 GB (a write flushes its postings long before).
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, to stream: inout Stream) {
        var offset = 0
        while offset < bytes.count {
            if stream.tail == stream.end { startSlice(of: &stream) }
            let take = min(bytes.count - offset, Int(stream.end - stream.tail))
            let start = Int(stream.tail)
            storage.withUnsafeMutableBufferPointer { arena in
                (arena.baseAddress! + start).update(from: bytes.baseAddress! + offset, count: take)
            }
            stream.tail += UInt32(take)
            stream.count += UInt32(take)
            offset += take
        }
    }

    private mutating func startSlice(of stream: inout Stream) {
        let start = storage.count
        storage.append(contentsOf: repeatElement(0, count: Self.sliceSize(stream.slices)))
        precondition(storage.count <= Int(UInt32.max), "a write's pending postings passed 4 GB")
        if stream.slices == 0 {
            stream.head = UInt32(start)
        } else {
            withUnsafeBytes(of: UInt32(start).littleEndian) { link in
                for (offset, byte) in link.enumerated() { storage[Int(stream.end) + offset] = byte }
            }
        }
        stream.tail = UInt32(start)
        stream.end = UInt32(start + Self.sliceSize(stream.slices) - Self.linkSize)
        // Past the ninth, every slice is as large: the count need not grow (a term may take millions).
        if stream.slices < 9 { stream.slices += 1 }
    }

    /// A term's bytes, in the order appended.
    func bytes(of stream: Stream) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(Int(stream.count))
        var position = Int(stream.head)
        var slice: UInt8 = 0  // stops at 8, as slices stop growing
        var remaining = Int(stream.count)
        while remaining > 0 {
            let take = min(remaining, Self.sliceSize(slice) - Self.linkSize)
            result += storage[position..<(position + take)]
            remaining -= take
            guard remaining > 0 else { break }
            let link = position + Self.sliceSize(slice) - Self.linkSize
            position = Int(
                UInt32(storage[link]) | UInt32(storage[link + 1]) << 8 | UInt32(storage[link + 2]) << 16
                    | UInt32(storage[link + 3]) << 24)
            slice = min(slice + 1, 8)
        }
        return result
    }
}
