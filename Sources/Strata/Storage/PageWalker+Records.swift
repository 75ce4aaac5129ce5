/// What LMDB's meta pages and table records say about a tree, and what a walk found.
extension PageWalker {
    /// A tree's record (LMDB's `MDB_db`): its root, depth and counts.
    struct TreeRecord: Equatable {
        let flags: UInt16
        let depth: UInt16
        let branchPages: UInt64
        let leafPages: UInt64
        let overflowPages: UInt64
        let entries: UInt64
        let root: UInt64

        init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            func load<T: FixedWidthInteger>(_ field: Int, _: T.Type) -> T {
                T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + field, as: T.self))
            }
            flags = load(4, UInt16.self)
            depth = load(6, UInt16.self)
            branchPages = load(8, UInt64.self)
            leafPages = load(16, UInt64.self)
            overflowPages = load(24, UInt64.self)
            entries = load(32, UInt64.self)
            root = load(40, UInt64.self)
        }

        init(counts: TreeCounts, flags: UInt16, root: UInt64) {
            self.flags = flags
            depth = UInt16(truncatingIfNeeded: counts.depth)
            branchPages = counts.branchPages
            leafPages = counts.leafPages
            overflowPages = counts.overflowPages
            entries = counts.entries
            self.root = root
        }
    }

    /// What a walk of one tree found.
    struct TreeCounts {
        var depth = 0
        var branchPages: UInt64 = 0
        var leafPages: UInt64 = 0
        var overflowPages: UInt64 = 0
        var entries: UInt64 = 0
    }

    /// The two core trees of a meta page, and its transaction id.
    struct Meta {
        let free: TreeRecord
        let main: TreeRecord
        let lastPage: UInt64
        let transactionID: UInt64
        var freeRoot: UInt64 { free.root }
        var mainRoot: UInt64 { main.root }
    }
}
