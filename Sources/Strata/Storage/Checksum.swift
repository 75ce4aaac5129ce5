import CLMDB

/// CRC-32C (Castagnoli), the checksum sealing every stored row: the CPU's crc32 instruction where
/// there is one. LMDB checks nothing of what it reads, so a flipped bit in a value would otherwise
/// read as another value.
enum Checksum {
    /// The CRC-32C of `bytes`, continuing from `crc` (0 to start).
    @inline(__always)
    static func crc32c(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        strata_crc32c(crc, bytes.baseAddress, bytes.count)
    }

    /// The seal of a stored row (`RowSeal`): the CRC-32C of its key, then of its bytes.
    @inline(__always)
    static func rowSeal(key: UnsafeRawBufferPointer, row: UnsafeRawBufferPointer) -> UInt32 {
        strata_row_seal(key.baseAddress, key.count, row.baseAddress, row.count)
    }

    /// The length of the row inside `stored` (a row followed by its seal) when it carries the seal of
    /// `key` and the row; -1 when it does not.
    @inline(__always)
    static func sealedRowLength(key: UnsafeRawBufferPointer, stored: UnsafeRawBufferPointer) -> Int {
        strata_row_open(key.baseAddress, key.count, stored.baseAddress, stored.count)
    }

    /// Whether `stored`, a row followed by its seal, carries the seal of `key` and the row.
    @inline(__always)
    static func rowSealMatches(key: UnsafeRawBufferPointer, stored: UnsafeRawBufferPointer) -> Bool {
        sealedRowLength(key: key, stored: stored) >= 0
    }

    /// Whether this machine computes it with a CPU instruction (else a table, several times slower).
    static var usesHardware: Bool { strata_crc32c_has_hardware() != 0 }
}
