/// How a row is stored (file format 2): its bytes (`RowFormat`), then a seal, the CRC-32C of the
/// row's key followed by its bytes (4 bytes, little-endian).
///
/// LMDB keeps no checksum, so a flipped bit inside a row would read as another value, and one inside
/// a key would move the row to another key. The seal turns both into `RowDamage` where the row is
/// read, and the open check (`PageWalker`) finds them before any object is handed out.
enum RowSeal {
    static let size = 4

    @inline(__always)
    static func checksum(key: UnsafeRawBufferPointer, row: UnsafeRawBufferPointer) -> UInt32 {
        Checksum.rowSeal(key: key, row: row)
    }

    /// The row inside `stored`, whose seal must match `key` and the row's bytes.
    ///
    /// - Throws: `RowDamage` when the seal is missing or does not match.
    @inline(__always)
    static func open(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(RowDamage)
        -> UnsafeRawBufferPointer
    {
        let length = Checksum.sealedRowLength(key: key, stored: stored)
        guard length >= 0 else { throw damage(stored) }
        return UnsafeRawBufferPointer(start: stored.baseAddress, count: length)
    }

    /// What is wrong with `stored`, whose seal does not match.
    static func damage(_ stored: UnsafeRawBufferPointer) -> RowDamage {
        guard stored.count > size else { return RowDamage("row of \(stored.count) bytes has no room for its checksum") }
        let seal = UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: stored.count - size, as: UInt32.self))
        return RowDamage("row checksum \(seal) does not match its key and bytes: the row is damaged")
    }

    /// Writes `row` and its seal for `key` into `destination` (`row.count + size` bytes).
    static func write(
        _ row: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer
    ) {
        precondition(destination.count == row.count + size)
        destination.baseAddress!.copyMemory(from: row.baseAddress!, byteCount: row.count)
        destination.storeBytes(of: checksum(key: key, row: row).littleEndian, toByteOffset: row.count, as: UInt32.self)
    }
}

/// A row `_RowEncoder` just finished, with `RowSeal.size` bytes of room right after its bytes, so
/// that sealing it for storage writes 4 bytes instead of copying the row.
struct EncodedRow {
    let view: RowView

    /// A row whose bytes have `RowSeal.size` writable bytes after them (`_RowEncoder.withEncodedRow`).
    init(roomAfter view: RowView) { self.view = view }

    /// The row followed by its seal for `key`, written into the room after it: valid as long as the row.
    @inline(__always)
    func sealed(for key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let bytes = view.bytes
        let seal = RowSeal.checksum(key: key, row: bytes)
        UnsafeMutableRawPointer(mutating: bytes.baseAddress!).storeBytes(
            of: seal.littleEndian, toByteOffset: bytes.count, as: UInt32.self)
        return UnsafeRawBufferPointer(start: bytes.baseAddress, count: bytes.count + RowSeal.size)
    }
}

extension WriteTransaction {
    /// Stores `row` under `key`, sealed (`RowSeal`), written straight into the space LMDB reserves;
    /// false when `.noOverwrite` found the key. (The object path seals in a scratch buffer instead:
    /// `WriteSession.putRow`.)
    mutating func putSealedRow(
        _ table: Table, key: UnsafeRawBufferPointer, row: UnsafeRawBufferPointer, options: PutOptions = []
    ) throws(LMDBError) -> Bool {
        try put(table, key: key, reserving: row.count + RowSeal.size, options: options) {
            RowSeal.write(row, key: key, into: $0)
        }
    }
}
