#if Encryption
    /// The rows of one block of an encrypted table kept in blocks (`SealedBlockTable`), opened: its
    /// pairs in the order of their keys. A value type: a nested transaction changes its own copy.
    ///
    /// Encoded as the pair count (4 bytes), then each pair: key length (2 bytes), value length
    /// (4 bytes), key, value; all little-endian. The encoding is what one AEAD call seals.
    ///
    /// Held as one buffer (`BlockBytes`): the count, then pairs in that form in the order they came,
    /// and the offsets of the live ones in key order. A bulk insert's keys come in order, so its block
    /// is appended to and is its own encoding: no allocation per pair, no copy to seal it, and an
    /// image keeps the buffer itself instead of a copy of its pairs (`withPairs`).
    struct RowBlock {
        /// Nil until the first pair. Changed in place only while this block alone holds it.
        private var bytes: BlockBytes?
        /// The bytes of `bytes` in use: the count, then pairs (replaced and removed ones stay until
        /// `encoded`).
        private var used = 4
        /// The offsets of the live pairs among the pairs (after the count), in the order of their keys.
        private var offsets: [Int32] = []
        /// Bytes of the pairs no live pair uses.
        private var deadBytes = 0
        /// Whether every pair was put after the ones before it in key order (then, with no dead
        /// bytes, the buffer is the encoding).
        private var appendOrder = true

        static let pairHeader = 6

        var isEmpty: Bool { offsets.isEmpty }
        var count: Int { offsets.count }
        /// The length of the encoding.
        var encodedCount: Int { used - deadBytes }

        init() {}

        /// The block `encoded` holds; nil when it is not a block's encoding (lengths past its end, keys
        /// out of order, bytes left over).
        init?(decoding encoded: UnsafeRawBufferPointer) {
            guard encoded.count >= 4 else { return nil }
            let count = Int(UInt32(littleEndian: encoded.loadUnaligned(as: UInt32.self)))
            let pairs = UnsafeRawBufferPointer(rebasing: encoded[4...])
            offsets.reserveCapacity(min(count, pairs.count / Self.pairHeader))
            var offset = 0
            var previous: UnsafeRawBufferPointer?
            for _ in 0..<count {
                guard offset + Self.pairHeader <= pairs.count else { return nil }
                let (keyLength, valueLength) = Self.lengths(pairs, offset)
                guard keyLength <= pairs.count - offset - Self.pairHeader,
                    valueLength <= pairs.count - offset - Self.pairHeader - keyLength
                else { return nil }
                let key = UnsafeRawBufferPointer(rebasing: pairs[(offset + Self.pairHeader)...].prefix(keyLength))
                if let previous, SealedOrder.compare(previous, key) >= 0 { return nil }
                previous = key
                offsets.append(Int32(offset))
                offset += Self.pairHeader + keyLength + valueLength
            }
            guard offset == pairs.count else { return nil }
            if count > 0 {
                let bytes = BlockBytes(capacity: encoded.count)
                bytes.start.copyMemory(from: encoded.baseAddress!, byteCount: encoded.count)
                self.bytes = bytes
                used = encoded.count
            }
        }

        /// The encoding: the count, then the live pairs in key order.
        var encoded: [UInt8] {
            var encoded = [UInt8]()
            encoded.reserveCapacity(encodedCount)
            withUnsafeBytes(of: UInt32(offsets.count).littleEndian) { encoded.append(contentsOf: $0) }
            let pairs = self.pairs
            for offset in offsets { encoded.append(contentsOf: Self.pair(pairs, Int(offset))) }
            return encoded
        }

        /// `body` given the encoding: the buffer itself when it holds only the live pairs in key order
        /// (a bulk insert's block), else a copy made as `encoded`.
        func withEncoded<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            guard let bytes else { return withUnsafeBytes(of: UInt32(0)) { body($0) } }
            if deadBytes == 0, appendOrder {
                return withExtendedLifetime(bytes) { body(UnsafeRawBufferPointer(start: bytes.start, count: used)) }
            }
            return encoded.withUnsafeBytes(body)
        }

        /// The key of the pair at `index` (in key order).
        func key(at index: Int) -> [UInt8] { withPair(at: index) { key, _ in Array(key) } }

        /// The value of the pair at `index` (in key order).
        func value(at index: Int) -> [UInt8] { withPair(at: index) { _, value in Array(value) } }

        /// `body` given the key and value of the pair at `index` (in key order).
        func withPair<R, E: Error>(
            at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(E) -> R
        ) throws(E) -> R {
            try withExtendedLifetime(bytes) { () throws(E) -> R in
                let (key, value) = Self.split(pairs, Int(offsets[index]))
                return try body(key, value)
            }
        }

        /// `body` given the buffer that holds the block's pairs (nil for an empty block), its pairs and
        /// the offsets of the live ones in key order (`pair(in:at:)` splits one). The pairs stay where
        /// they are for as long as the buffer lives: a block changes a buffer another holds only after
        /// copying it, so an image may keep the buffer and point into it.
        func withPairs<R>(_ body: (BlockBytes?, UnsafeRawBufferPointer, [Int32]) -> R) -> R {
            withExtendedLifetime(bytes) { body(bytes, pairs, offsets) }
        }

        /// The key and value of the pair at `offset` of a buffer of pairs (`withPairs`).
        static func pair(in pairs: UnsafeRawBufferPointer, at offset: Int32)
            -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
        {
            split(pairs, Int(offset))
        }

        /// The position of `key`, or where it would go.
        func position(of key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
            withExtendedLifetime(bytes) {
                let pairs = self.pairs
                if let last = offsets.last {  // keys put in order: the end, at one comparison
                    let order = SealedOrder.compare(Self.split(pairs, Int(last)).key, key)
                    if order < 0 { return (offsets.count, false) }
                    if order == 0 { return (offsets.count - 1, true) }
                }
                var low = 0
                var high = offsets.count
                while low < high {
                    let middle = (low + high) / 2
                    let order = SealedOrder.compare(Self.split(pairs, Int(offsets[middle])).key, key)
                    if order == 0 { return (middle, true) }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return (low, false)
            }
        }

        func value(of key: UnsafeRawBufferPointer) -> [UInt8]? {
            let (index, found) = position(of: key)
            return found ? value(at: index) : nil
        }

        /// Makes room for pairs up to an encoding of `bytes`.
        mutating func reserveCapacity(_ bytes: Int) {
            makeRoom(for: bytes - used, exactly: true)
        }

        /// Puts `value` under `key`; true when the key was new.
        @discardableResult
        mutating func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool {
            let (index, found) = position(of: key)
            if found { deadBytes += pairLength(at: index) }
            let length = Self.pairHeader + key.count + value.count
            makeRoom(for: length, exactly: false)
            let buffer = bytes.unsafelyUnwrapped
            let start = buffer.start + used
            start.storeBytes(of: UInt16(key.count).littleEndian, as: UInt16.self)
            start.storeBytes(of: UInt32(value.count).littleEndian, toByteOffset: 2, as: UInt32.self)
            if !key.isEmpty { (start + Self.pairHeader).copyMemory(from: key.baseAddress!, byteCount: key.count) }
            if !value.isEmpty {
                (start + Self.pairHeader + key.count).copyMemory(from: value.baseAddress!, byteCount: value.count)
            }
            let offset = Int32(used - 4)
            used += length
            if found {
                offsets[index] = offset
            } else if index == offsets.count {
                offsets.append(offset)
            } else {
                offsets.insert(offset, at: index)
                appendOrder = false
            }
            buffer.start.storeBytes(of: UInt32(offsets.count).littleEndian, as: UInt32.self)
            if deadBytes > 4096, deadBytes * 2 > used { compact() }
            return !found
        }

        /// Removes `key`; true when it was there.
        @discardableResult
        mutating func remove(_ key: UnsafeRawBufferPointer) -> Bool {
            let (index, found) = position(of: key)
            guard found else { return false }
            deadBytes += pairLength(at: index)
            offsets.remove(at: index)
            if offsets.isEmpty { self = RowBlock() }
            return true
        }

        // MARK: Private

        /// The pairs: the bytes in use after the count.
        private var pairs: UnsafeRawBufferPointer {
            guard let bytes else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            return UnsafeRawBufferPointer(start: bytes.start + 4, count: used - 4)
        }

        /// Makes `bytes` this block's alone, with room for `extra` more bytes: a buffer another holds
        /// (a nested transaction's copy, an image) is copied, never changed.
        private mutating func makeRoom(for extra: Int, exactly: Bool) {
            let needed = used + max(extra, 0)
            if isKnownUniquelyReferenced(&bytes), let bytes, bytes.capacity >= needed { return }
            // A shared buffer is copied at its own size when that is room enough (copies of copies
            // must not double it); a full one grows by half its use at least.
            let capacity =
                exactly
                ? needed : max(needed, bytes.map { $0.capacity >= needed ? $0.capacity : used * 3 / 2 } ?? 0, 256)
            let grown = BlockBytes(capacity: capacity)
            if let bytes { grown.start.copyMemory(from: bytes.start, byteCount: used) }
            bytes = grown
        }

        /// Drops the bytes of replaced and removed pairs (a row changed again and again in one
        /// transaction must not grow its block without end).
        private mutating func compact() {
            let live = encoded
            self = live.withUnsafeBytes { RowBlock(decoding: $0)! }
        }

        private func pairLength(at index: Int) -> Int {
            withExtendedLifetime(bytes) { Self.pair(pairs, Int(offsets[index])).count }
        }

        private static func lengths(_ pairs: UnsafeRawBufferPointer, _ offset: Int) -> (key: Int, value: Int) {
            (
                Int(UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: offset, as: UInt16.self))),
                Int(UInt32(littleEndian: pairs.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            )
        }

        private static func pair(_ pairs: UnsafeRawBufferPointer, _ offset: Int) -> UnsafeRawBufferPointer {
            let (key, value) = lengths(pairs, offset)
            return UnsafeRawBufferPointer(rebasing: pairs[offset..<(offset + pairHeader + key + value)])
        }

        private static func split(_ pairs: UnsafeRawBufferPointer, _ offset: Int)
            -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
        {
            let (keyLength, valueLength) = lengths(pairs, offset)
            let start = pairs.baseAddress! + offset + pairHeader
            return (
                UnsafeRawBufferPointer(start: start, count: keyLength),
                UnsafeRawBufferPointer(start: start + keyLength, count: valueLength)
            )
        }
    }

    /// The bytes of a block (`RowBlock`): what an image keeps, instead of a copy, for as long as its
    /// entries point into them.
    final class BlockBytes: @unchecked Sendable {  // never changed once another holds it (`RowBlock`)
        let start: UnsafeMutableRawPointer
        let capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 4)
            start = .allocate(byteCount: self.capacity, alignment: 8)
        }

        deinit { start.deallocate() }
    }
#endif
