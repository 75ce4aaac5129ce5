#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The salvaging walk (`Store.salvage(from:to:)`): around damage instead of stopping at it.
extension PageWalker {
    /// What a salvaging walk (`salvage`) met: each row it could read, and the damage it went around.
    struct SalvageVisitor {
        /// A row of the table named `table`: its key, its stored bytes, and whether its seal matched
        /// (nil for a file whose rows carry none).
        var row:
            (_ table: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ sealed: Bool?) -> Void
        /// A page (and everything under it) left out, in the table named `table`, with the keys it
        /// would have held (nil: unbounded).
        var skipped:
            (
                _ table: String, _ damage: StorageError, _ lower: UnsafeRawBufferPointer?,
                _ upper: UnsafeRawBufferPointer?
            )
                -> Void
        /// A pair of a leaf page that no tree reaches and that is not free: a page cut off by damage
        /// above it, of a table the pair alone must tell.
        var orphan: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void
    }

    /// Walks every table of `meta`'s snapshot around damage: a page that fails a check is left out
    /// with everything under it (`visitor.skipped`), and each row that can be read goes to
    /// `visitor.row` with whether its seal matched. Only the meta pages and the main tree's root must
    /// be readable.
    ///
    /// - Throws: `.damaged` when the main tree's root page is.
    mutating func salvage(_ meta: Meta, visitor: SalvageVisitor) throws(StorageError) {
        self.visitor = visitor
        defer { self.visitor = nil }
        let file = try mapFile(populate: true)
        mainEntries = []
        currentTable = ""
        try walkTree(meta.main, kind: .main, file: file, name: "the main tree")
        let found = mainEntries
        let metaName = Array(StrataFormat.metaTable.utf8)
        for (name, record) in found where name == metaName {
            currentTable = StrataFormat.metaTable
            try walkTree(record, kind: .meta, file: file, name: "the meta table")
        }
        try openSalvagedFile()
        let rowPrefix = Array(StrataFormat.rowTablePrefix.utf8)
        let sealed = (formatVersion ?? 0) >= StrataFormat.firstSealedVersion
        for (name, record) in found where name != metaName {
            currentTable = String(decoding: name, as: UTF8.self)
            let kind: TreeKind =
                record.flags & Layout.dupSort != 0
                ? .sortedDuplicates : name.starts(with: rowPrefix) ? .rows(sealed: sealed) : .plain
            try walkTree(record, kind: kind, file: file, name: "table \(currentTable)")
        }
        // Pages cut off by damage: every page neither reached nor free. Without the whole free list,
        // a page not reached could as well be an old version of a row, freed: then none is read.
        guard pagesSkipped > 0, let free = try? walkFreeTree(root: meta.freeRoot, file: file, atLeast: 0) else {
            return
        }
        scanOrphanedPages(file: file, free: free)
    }

    /// Hands the pairs of every leaf page that no tree reached and that is not free to the visitor.
    private mutating func scanOrphanedPages(file: UnsafeRawBufferPointer, free: Set<UInt64>) {
        guard lastTreePage >= 2, let visitor else { return }
        let path = self.path
        for number in 2...lastTreePage where !isReached(number) && !free.contains(number) {
            func damaged(_ what: String) -> StorageError { .damaged("\(path): page \(number) \(what)") }
            let start = Int(number) * pageSize
            let page = UnsafeRawBufferPointer(rebasing: file[start..<(start + pageSize)])
            guard page.load(0, as: UInt64.self) == number, page.load(10, as: UInt16.self) == Layout.leaf,
                let count = try? nodeCount(page, damaged: damaged)
            else { continue }
            for index in 0..<count {
                guard let node = try? self.node(page, index, damaged: damaged) else { break }
                switch node.flags {
                case 0 where node.dataStart + node.dataSize <= page.count:
                    visitor.orphan(
                        node.key,
                        UnsafeRawBufferPointer(rebasing: page[node.dataStart..<(node.dataStart + node.dataSize)]))
                case Layout.bigData where node.dataStart + 8 <= page.count:
                    var ignored = TreeCounts()
                    if let value = try? checkOverflow(
                        page.load(node.dataStart, as: UInt64.self), dataSize: node.dataSize, file: file,
                        counts: &ignored, damaged: damaged)
                    {
                        visitor.orphan(node.key, value)
                    }
                default:
                    continue
                }
            }
        }
    }
}
