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

    /// - Throws: `.fileAccess` when the file cannot be mapped.
    init(fd: Int32, length: Int, path: String) throws(StorageError) {
        guard length > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else { throw .fileAccess(path: path, code: errno) }
        // Pages are read once, in no particular order: read ahead of the walk.
        _ = madvise(address, length, MADV_WILLNEED)
        bytes = UnsafeRawBufferPointer(start: address, count: length)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
