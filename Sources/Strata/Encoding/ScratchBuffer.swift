/// A growable byte buffer with a stable address: a copy of LMDB's bytes that stays valid while the
/// transaction changes pages (a `RowView` over it needs no closure scope). Reused, never shrunk.
final class ScratchBuffer {
    private var storage: UnsafeMutableRawBufferPointer

    init(capacity: Int = 256) {
        storage = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit {
        storage.deallocate()
    }

    /// Copies `bytes` in and returns the copy, valid until the next `copy`.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if bytes.count > storage.count {
            storage.deallocate()
            storage = .allocate(byteCount: max(bytes.count, storage.count * 2), alignment: 8)
        }
        if let base = bytes.baseAddress, bytes.count > 0 {
            storage.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
        }
        return UnsafeRawBufferPointer(rebasing: storage[0..<bytes.count])
    }
}
