#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A read-only map of the first `length` bytes of a file, for walking its pages without a copy per
/// page. The caller makes sure the file is at least that long (a read past its end is SIGBUS).
final class MappedFile {
    let bytes: UnsafeRawBufferPointer

    /// With `populate`, every page is mapped up front (one call, where a walk that reads every page
    /// would otherwise take a fault per page; from disk, the reads are then in order).
    ///
    /// - Throws: `.fileAccess` when the file cannot be mapped.
    init(fd: Int32, length: Int, path: String, populate: Bool) throws(StorageError) {
        guard length > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, length, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0)
        guard let address, address != MAP_FAILED else { throw .fileAccess(path: path, code: errno) }
        bytes = UnsafeRawBufferPointer(start: address, count: length)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
