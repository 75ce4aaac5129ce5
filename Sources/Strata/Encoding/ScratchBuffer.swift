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
}
