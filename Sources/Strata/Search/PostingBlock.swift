/// The postings of one term for a run of documents, as a full-text index stores them: under the key
/// `term ‖ 0x00 ‖ first document (8 bytes, big-endian)`, so a term's blocks follow each other in
/// document order and a prefix's terms follow each other.
///
/// Value: the number of postings (2 bytes), the last document (8 bytes), both little-endian; then per
/// posting, as LEB128 varints: the document's distance from the previous one (0 for the first), the
/// term's count in it, the document's length, the byte count of its positions, and the positions
/// (each the distance from the previous one). A reader that needs no positions skips them.
struct PostingBlock {
    struct Posting: Equatable {
        var document: UInt64
        var count: UInt32
        var length: UInt32
        var positions: [UInt32]
    }

    /// A block grows to about this many bytes before a new one starts: an LMDB node stays on its
    /// leaf page (a 4 KB page holds two nodes of up to ~2 KB; a larger value takes overflow pages).
    /// (A variable so that tests can make terms span many blocks with few documents: any size
    /// from a few bytes up is valid, and readers take blocks of any size.)
    nonisolated(unsafe) static var targetBytes = 1_600
    static let headerBytes = 10
    /// The byte after the term in a key: no term holds it (the tokenizer keeps no control character).
    static let separator: UInt8 = 0

    /// The key of the block of `term` whose first document is `document`.
    static func key(term: some Collection<UInt8>, first document: UInt64) -> [UInt8] {
        var key = [UInt8]()
        key.reserveCapacity(term.count + 9)
        key.append(contentsOf: term)
        key.append(separator)
        withUnsafeBytes(of: document.bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// The term and first document of a block's key; nil when the key cannot be one.
    static func parse(key: UnsafeRawBufferPointer) -> (term: UnsafeRawBufferPointer, first: UInt64)? {
        guard key.count >= 9, key[key.count - 9] == separator else { return nil }
        let first = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))
        return (UnsafeRawBufferPointer(rebasing: key[..<(key.count - 9)]), first)
    }

    /// Encodes postings sorted by document (the first one's document is the key's).
    static func encode(_ postings: some Collection<Posting>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerBytes)
        var previous = postings.first?.document ?? 0
        for posting in postings {
            appendVarint(posting.document - previous, to: &bytes)
            previous = posting.document
            appendEncodedBody(of: posting, to: &bytes)
        }
        writeHeader(count: postings.count, last: previous, into: &bytes)
        return bytes
    }

    /// A posting's bytes after its document distance.
    static func appendEncodedBody(of posting: Posting, to bytes: inout [UInt8]) {
        appendVarint(UInt64(posting.count), to: &bytes)
        appendVarint(UInt64(posting.length), to: &bytes)
        var positions: [UInt8] = []
        var previous: UInt32 = 0
        for position in posting.positions {
            appendVarint(UInt64(position - previous), to: &positions)
            previous = position
        }
        appendVarint(UInt64(positions.count), to: &bytes)
        bytes += positions
    }

    static func writeHeader(count: Int, last: UInt64, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt16(count).littleEndian) { bytes.replaceSubrange(0..<2, with: $0) }
        withUnsafeBytes(of: last.littleEndian) { bytes.replaceSubrange(2..<10, with: $0) }
    }

    /// The number of postings and the last document a block's value holds.
    static func header(_ value: UnsafeRawBufferPointer) throws(RowDamage) -> (count: Int, last: UInt64) {
        guard value.count >= headerBytes else { throw RowDamage("a posting block has \(value.count) bytes") }
        return (
            Int(UInt16(littleEndian: value.loadUnaligned(as: UInt16.self))),
            UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
        )
    }

    /// Reads the postings of a block whose first document is `first`, each to `visit` (positions only
    /// with `positions`). Every length and distance is checked against the value's bytes.
    static func decode(
        _ value: UnsafeRawBufferPointer, first: UInt64, positions wantsPositions: Bool,
        _ visit: (Posting) throws(RowDamage) -> Void
    ) throws(RowDamage) {
        let (count, last) = try header(value)
        guard count > 0 else { throw RowDamage("an empty posting block") }
        var reader = VarintReader(value, from: headerBytes)
        var document = first
        for number in 0..<count {
            let distance = try reader.next()
            guard number == 0 ? distance == 0 : distance > 0 else {
                throw RowDamage("a posting block's documents are out of order")
            }
            let (next, overflow) = document.addingReportingOverflow(distance)
            guard !overflow else { throw RowDamage("a posting block's document is out of range") }
            document = next
            let termCount = try reader.next()
            let length = try reader.next()
            let positionBytes = try reader.next()
            guard termCount > 0, termCount <= UInt32.max, length <= UInt32.max, positionBytes <= reader.remaining
            else { throw RowDamage("a posting of a block is damaged") }
            var posting = Posting(document: document, count: UInt32(termCount), length: UInt32(length), positions: [])
            if wantsPositions {
                var positionReader = VarintReader(value, from: reader.offset, end: reader.offset + Int(positionBytes))
                var position: UInt64 = 0
                posting.positions.reserveCapacity(Int(termCount))
                for _ in 0..<termCount {
                    position += try positionReader.next()
                    guard position <= UInt32.max else { throw RowDamage("a position is out of range") }
                    posting.positions.append(UInt32(position))
                }
                guard positionReader.remaining == 0 else { throw RowDamage("a posting's positions are damaged") }
            }
            reader.offset += Int(positionBytes)
            try visit(posting)
        }
        guard reader.remaining == 0, document == last else { throw RowDamage("a posting block's end is damaged") }
    }

    /// Decodes `count` postings of a body without its header (a write's pending stream).
    static func decodeBody(_ body: UnsafeRawBufferPointer, count: Int, first: UInt64) throws(RowDamage) -> [Posting] {
        var value = [UInt8](repeating: 0, count: headerBytes)
        value.append(contentsOf: body)
        var last = first
        var reader = VarintReader(body)
        for number in 0..<count {
            last += try reader.next()
            if number == 0, last != first { throw RowDamage("a pending stream does not start at distance 0") }
            _ = try reader.next()
            _ = try reader.next()
            reader.offset += Int(try reader.next())
        }
        writeHeader(count: count, last: last, into: &value)
        return try value.withBytes { (raw) throws(RowDamage) in try decodeAll(raw, first: first) }
    }

    static func decodeAll(_ value: UnsafeRawBufferPointer, first: UInt64) throws(RowDamage) -> [Posting] {
        var postings: [Posting] = []
        try decode(value, first: first, positions: true) { postings.append($0) }
        return postings
    }
}

func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
        value >>= 7
    }
    bytes.append(UInt8(value))
}

/// Reads LEB128 varints from a buffer, checking every one ends inside it.
struct VarintReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, from offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var remaining: Int { end - offset }

    @inline(__always)
    mutating func next() throws(RowDamage) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end {
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { break }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw RowDamage("a varint runs past its bytes")
    }
}
