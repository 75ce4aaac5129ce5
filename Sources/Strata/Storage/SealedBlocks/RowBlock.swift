#if Encryption
    /// The rows of one block of an encrypted table kept in blocks (`SealedBlockTable`), opened: its
    /// pairs in the order of their keys. A value type: a nested transaction changes its own copy.
    ///
    /// Encoded as the pair count (4 bytes), then each pair: key length (2 bytes), value length
    /// (4 bytes), key, value; all little-endian. The encoding is what one AEAD call seals.
    ///
    /// Held as one byte buffer of pairs in that form, in the order they came, and the offsets of the
    /// live ones in key order: a bulk insert's keys come in order, so its block is appended to and
    /// is its own encoding (no allocation per pair).
    struct RowBlock {
        /// Pairs as encoded, in the order they were put (replaced and removed ones stay until `encoded`).
        private var storage: [UInt8] = []
        /// The offsets in `storage` of the live pairs, in the order of their keys.
        private var offsets: [Int32] = []
        /// Bytes of `storage` no live pair uses.
        private var deadBytes = 0

        static let pairHeader = 6

        var isEmpty: Bool { offsets.isEmpty }
        var count: Int { offsets.count }
        /// The length of the encoding.
        var encodedCount: Int { 4 + storage.count - deadBytes }

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
            storage = Array(pairs)
        }

        /// The encoding: the count, then the live pairs in key order.
        var encoded: [UInt8] {
            var bytes = [UInt8]()
            bytes.reserveCapacity(encodedCount)
            withUnsafeBytes(of: UInt32(offsets.count).littleEndian) { bytes.append(contentsOf: $0) }
            storage.withUnsafeBytes { pairs in
                if deadBytes == 0, isAppendOrder {
                    bytes.append(contentsOf: pairs)
                    return
                }
                for offset in offsets { bytes.append(contentsOf: Self.pair(pairs, Int(offset))) }
            }
            return bytes
        }

        /// The key of the pair at `index` (in key order).
        func key(at index: Int) -> [UInt8] { withPair(at: index) { key, _ in Array(key) } }

        /// The value of the pair at `index` (in key order).
        func value(at index: Int) -> [UInt8] { withPair(at: index) { _, value in Array(value) } }

        /// `body` given the key and value of the pair at `index` (in key order).
        func withPair<R, E: Error>(
            at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(E) -> R
        ) throws(E) -> R {
            try storage.withBytes { (pairs) throws(E) -> R in
                let (key, value) = Self.split(pairs, Int(offsets[index]))
                return try body(key, value)
            }
        }

        /// `body` given the block's buffer of pairs and the offsets of its live pairs in key order
        /// (`pair(in:at:)` splits one): what a log copies once for all the block's pairs.
        func withPairs<R>(_ body: (UnsafeRawBufferPointer, [Int32]) -> R) -> R {
            storage.withUnsafeBytes { body($0, offsets) }
        }

        /// The key and value of the pair at `offset` of a buffer of pairs (`withPairs`).
        static func pair(in pairs: UnsafeRawBufferPointer, at offset: Int32)
            -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
        {
            split(pairs, Int(offset))
        }

        /// The position of `key`, or where it would go.
        func position(of key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
            storage.withUnsafeBytes { pairs in
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
            storage.reserveCapacity(bytes)
        }

        /// Puts `value` under `key`; true when the key was new.
        @discardableResult
        mutating func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool {
            let (index, found) = position(of: key)
            if found { deadBytes += pairLength(at: index) }
            let offset = Int32(storage.count)
            withUnsafeBytes(of: (UInt16(key.count).littleEndian, UInt32(value.count).littleEndian)) { header in
                storage.append(contentsOf: header[0..<2])
                storage.append(contentsOf: header[4..<8])  // the tuple pads the UInt16 to 4 bytes
            }
            storage.append(contentsOf: key)
            storage.append(contentsOf: value)
            if found {
                offsets[index] = offset
            } else if index == offsets.count {
                offsets.append(offset)
            } else {
                offsets.insert(offset, at: index)
            }
            if deadBytes > 4096, deadBytes * 2 > storage.count { compact() }
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

        /// Drops the bytes of replaced and removed pairs (a row changed again and again in one
        /// transaction must not grow its block without end).
        private mutating func compact() {
            let live = encoded
            self = live.withUnsafeBytes { RowBlock(decoding: $0)! }
        }

        /// Whether `storage` holds the live pairs in key order and nothing else.
        private var isAppendOrder: Bool {
            var expected: Int32 = 0
            return storage.withUnsafeBytes { pairs in
                for offset in offsets {
                    guard offset == expected else { return false }
                    expected += Int32(Self.pair(pairs, Int(offset)).count)
                }
                return Int(expected) == pairs.count
            }
        }

        private func pairLength(at index: Int) -> Int {
            storage.withUnsafeBytes { Self.pair($0, Int(offsets[index])).count }
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
#endif
