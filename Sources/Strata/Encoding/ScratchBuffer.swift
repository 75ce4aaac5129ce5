/// A copy of LMDB's bytes with a stable address, valid while the transaction changes pages (a
/// `RowView` over it needs no closure scope). Reused, never shrunk.
final class ScratchBuffer {
    private let storage = ByteStorage()

    /// Copies `bytes` in and returns the copy, valid until the next `copy`.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        storage.reserve(bytes.count, keeping: 0)
        if let base = bytes.baseAddress, bytes.count > 0 {
            storage.base.copyMemory(from: base, byteCount: bytes.count)
        }
        return UnsafeRawBufferPointer(start: storage.base, count: bytes.count)
    }

    /// `row` followed by its seal for `key` (`RowSeal`), valid until the next use of the buffer.
    func sealed(_ row: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        storage.reserve(row.count + RowSeal.size, keeping: 0)
        let destination = UnsafeMutableRawBufferPointer(start: storage.base, count: row.count + RowSeal.size)
        RowSeal.write(row, key: key, into: destination)
        return UnsafeRawBufferPointer(destination)
    }
}
