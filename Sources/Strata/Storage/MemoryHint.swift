import CLMDB

/// Hints to the CPU about memory the caller is about to read.
enum MemoryHint {
    /// Starts loading the cache line at `address` (a row a walk reads a few steps later), so that
    /// reads in an order other than the file's (a sorted Results) wait on memory less.
    @inline(__always)
    static func prefetch(_ address: UnsafeRawPointer?) {
        strata_prefetch(address)
    }
}
