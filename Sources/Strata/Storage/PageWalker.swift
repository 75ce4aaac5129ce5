#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Walks LMDB's B-tree pages straight from a read-only map of the file and checks everything LMDB
/// would trust: page numbers, types and bounds, node offsets and sizes, keys in order within each
/// page and between a branch's separators, every leaf at the tree's depth, child and overflow page
/// numbers, each page reached once, each tree's record (depth, page and entry counts) against what
/// the walk found, free pages that no tree uses, and (`sealedRows`) every row's seal (`RowSeal`).
/// LMDB has no checksums and follows every pointer it reads, so a flipped byte in a branch page can
/// send it out of the map (a segfault); the walker reads with bounds checks, so damage becomes
/// `StorageError.damaged` naming the page.
///
/// The pages of a snapshot stay put while a read transaction pins it; callers walk a snapshot they pin
/// (`Environment.checkPages`), or the newest one, re-checking its transaction id afterwards.
struct PageWalker {
    enum Layout {
        static let header = 16
        static let nodeHeader = 8
        static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04
        static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
        static let recordSize = 48
        static let dupSort: UInt16 = 0x04
        static let maxDepth = 32
    }

    /// A root of an empty tree.
    static let invalidPage = UInt64.max

    private let fd: Int32
    let path: String
    let pageSize: Int
    /// The last page the meta page counts (free pages may lie up to it, past the file's end).
    private let lastPage: UInt64
    /// The last page a tree may use: the last counted, if the file holds it.
    var lastTreePage: UInt64
    private var map: MappedFile?
    /// A bit per page of the file: reached by a walk (sized by the file, never by a meta page's claim).
    private var reached: [UInt64] = []
    /// Pages checked, for reports.
    private(set) var pagesChecked = 0
    /// Pages a salvaging walk went around.
    private(set) var pagesSkipped = 0
    /// Rows whose seal was checked.
    var rowsChecked = 0  // counted by the walk here and by an encrypted file's (PageWalker+Sealing)
    /// The names of the tables the main tree lists (the keys of its leaves), as walked.
    private(set) var tableNames: [[UInt8]] = []
    /// The file's format version, read from the meta table by a walk of every table.
    private(set) var formatVersion: UInt32?
    /// The file's stored schema, read from the meta table by a walk of every table.
    var schema: [UInt8]?  // set by walks of the meta table, opened for an encrypted file (PageWalker+Sealing)

    /// Set by `salvage`: damage skips the page instead of ending the walk.
    var visitor: SalvageVisitor?
    /// A salvage of an encrypted file: the keys of each block, from the key tables (walked before
    /// their blocks), to name the rows of a block that does not open (PageWalker+Sealing).
    var blockKeys: [UInt64: [[UInt8]]] = [:]
    /// The table being walked, for the visitor.
    var currentTable = ""
    /// An encrypted file's sealing: every sealed value is opened (its tag checked) instead of
    /// trusting its bytes, and a row's seal is checked inside it.
    var sealing: FileSealing?
    /// For a salvaging walk of an encrypted file: its key, which opens the file's record once the meta
    /// table has been walked (nothing else can be trusted to hold it).
    var salvageKey: [UInt8]?
    /// The file's encryption record, read by a walk of the meta table.
    private(set) var encryptionRecord: [UInt8]?

    init(fd: Int32, path: String, pageSize: Int, lastPage: UInt64) {
        self.fd = fd
        self.path = path
        self.pageSize = pageSize
        self.lastPage = lastPage
        lastTreePage = lastPage
    }

    /// Both meta pages (the file's header must have passed `StoreFile.check`).
    static func metas(fd: Int32, pageSize: Int, path: String) throws(StorageError) -> [Meta] {
        var metas: [Meta] = []
        for index in 0..<2 {
            let page = try readBytes(fd: fd, offset: index * pageSize, count: MetaPageLayout.size, path: path)
            let meta = page.withUnsafeBytes { bytes in
                Meta(
                    free: TreeRecord(bytes, at: MetaPageLayout.records[0]),
                    main: TreeRecord(bytes, at: MetaPageLayout.records[1]),
                    lastPage: page.load(MetaPageLayout.lastPage, as: UInt64.self),
                    transactionID: page.load(MetaPageLayout.transactionID, as: UInt64.self))
            }
            metas.append(meta)
        }
        return metas
    }

    /// Maps the file's pages up to the last one counted (or its end, if shorter).
    mutating func mapFile(populate: Bool = false) throws(StorageError) -> UnsafeRawBufferPointer {
        if let map { return map.bytes }
        guard let size = fileSize(atPath: "/proc/self/fd/\(fd)") ?? fileSize(atPath: path) else {
            throw .fileAccess(path: path, code: errno)
        }
        let filePages = UInt64(size / pageSize)
        guard filePages >= 2 else { throw .damaged("\(path) ends inside its meta pages") }
        lastTreePage = min(lastPage, filePages - 1)
        reached = [UInt64](repeating: 0, count: Int(lastTreePage) / 64 + 1)
        let mapped = try MappedFile(fd: fd, length: Int(lastTreePage + 1) * pageSize, path: path, populate: populate)
        map = mapped
        return mapped.bytes
    }

    /// Checks the main tree, which names the tables (what opening reads). With `tables`, descends into
    /// every table (and every sorted-duplicates sub-tree) and the free-page tree: the whole file, and
    /// with `sealedRows`, the seal of every row of a file whose format seals them.
    mutating func walk(_ meta: Meta, tables: Bool, sealedRows: Bool = true) throws(StorageError) {
        let file = try mapFile(populate: tables)
        mainEntries = []
        try walkTree(meta.main, kind: .main, file: file, name: "the main tree")
        let found = mainEntries
        tableNames = found.map(\.name)
        guard tables else { return }
        // The meta table first: it says whether rows carry seals.
        let metaName = Array(StrataFormat.metaTable.utf8)
        currentTable = StrataFormat.metaTable
        for (name, record) in found where name == metaName {
            try walkTree(record, kind: .meta, file: file, name: "the meta table")
        }
        let rowPrefix = Array(StrataFormat.rowTablePrefix.utf8)
        let sealed = sealedRows && (formatVersion ?? 0) >= StrataFormat.firstSealedVersion
        for (name, record) in found where name != metaName {
            let label = "table \(String(decoding: name, as: UTF8.self))"
            let kind: TreeKind =
                record.flags & Layout.dupSort != 0
                ? .sortedDuplicates : name.starts(with: rowPrefix) ? .rows(sealed: sealed) : .plain
            currentTable = String(decoding: name, as: UTF8.self)
            try walkTree(record, kind: kind, file: file, name: label)
        }
        _ = try walkFreeTree(root: meta.freeRoot, file: file, atLeast: 0)
    }

    /// What a tree holds, which decides the node flags its leaves may carry (a flag LMDB does not
    /// expect there sends it to a cursor that does not exist).
    enum TreeKind {
        /// The directory of tables: sub-database records.
        case main
        /// Strata's meta table (format version, schema).
        case meta
        /// A type's rows, sealed or not.
        case rows(sealed: Bool)
        /// Another table without duplicates.
        case plain
        /// A table with sorted duplicates (indexes, backlinks).
        case sortedDuplicates
        /// The values of one key of a sorted-duplicates table: keys only.
        case duplicates
    }

    /// A page waiting to be checked, with the depth it lies at and the keys its own must lie within.
    private struct PendingPage {
        let number: UInt64
        let depth: Int
        let lower: UnsafeRawBufferPointer?
        let upper: UnsafeRawBufferPointer?
    }

    mutating func walkTree(_ record: TreeRecord, kind: TreeKind, file: UnsafeRawBufferPointer, name: String)
        throws(StorageError)
    {
        let path = self.path
        func recordDamaged(_ what: String) -> StorageError { .damaged("\(path): the record of \(name) \(what)") }
        switch kind {
        case .main, .meta, .rows, .plain:
            guard record.flags == 0 else { throw recordDamaged("has flags \(record.flags) that Strata never sets") }
        case .sortedDuplicates:
            guard record.flags == Layout.dupSort else { throw recordDamaged("has flags \(record.flags)") }
        case .duplicates:
            break  // LMDB keeps its own flags in a sub-tree's record
        }
        var counts = TreeCounts()
        if record.root != Self.invalidPage {
            var stack = [PendingPage(number: record.root, depth: 1, lower: nil, upper: nil)]
            while let pending = stack.popLast() {
                do {
                    try checkPage(
                        pending, record: record, kind: kind, file: file, name: name, counts: &counts, stack: &stack)
                } catch {
                    // Salvaging: go around the page, unless it is the main tree's root (no table is known).
                    guard let visitor, !(pending.number == record.root && currentTable.isEmpty) else { throw error }
                    pagesSkipped += 1
                    visitor.skipped(currentTable, error, pending.lower, pending.upper)
                }
            }
        }
        if visitor != nil { return }  // the counts of a tree walked around damage cannot match
        let walked = TreeRecord(counts: counts, flags: record.flags, root: record.root)
        guard walked == record else {
            throw recordDamaged(
                "says depth \(record.depth), \(record.branchPages) branch, \(record.leafPages) leaf and "
                    + "\(record.overflowPages) overflow pages, \(record.entries) entries; the tree has depth "
                    + "\(walked.depth), \(walked.branchPages), \(walked.leafPages), \(walked.overflowPages), "
                    + "\(walked.entries)")
        }
    }

    /// The tables the main tree's walk found: their names and records.
    var mainEntries: [(name: [UInt8], record: TreeRecord)] = []

    private mutating func checkPage(
        _ pending: PendingPage, record: TreeRecord, kind: TreeKind, file: UnsafeRawBufferPointer, name: String,
        counts: inout TreeCounts, stack: inout [PendingPage]
    ) throws(StorageError) {
        let number = pending.number
        let path = self.path
        func damaged(_ what: String) -> StorageError { .damaged("\(path): page \(number) of \(name) \(what)") }
        guard pending.depth <= Layout.maxDepth else { throw damaged("is deeper than any B-tree can be") }
        let page = try reach(number, file: file, damaged: damaged)
        let flags = page.load(10, as: UInt16.self)
        // Written pages carry exactly one type (LMDB clears its in-memory bits before writing).
        guard flags == Layout.branch || flags == Layout.leaf else {
            throw damaged("is neither a branch nor a leaf page (flags \(flags))")
        }
        let isBranch = flags == Layout.branch
        let count = try nodeCount(page, damaged: damaged)
        if isBranch {
            counts.branchPages += 1
            guard count >= 1 else { throw damaged("is a branch page without children") }
        } else {
            counts.leafPages += 1
            if counts.depth == 0 { counts.depth = pending.depth }
            guard pending.depth == counts.depth else {
                throw damaged(
                    "is a leaf at depth \(pending.depth), where the tree's other leaves are at \(counts.depth)")
            }
        }
        var previous: UnsafeRawBufferPointer?
        for index in 0..<count {
            let node = try self.node(page, index, damaged: damaged)
            // A branch page's first key is empty: its child holds everything below the second.
            if !(isBranch && index == 0) {
                if let previous, Self.compare(previous, node.key) >= 0 { throw damaged("has keys out of order") }
                if let lower = pending.lower, Self.compare(node.key, lower) < 0 {
                    throw damaged("has a key below its parent's separator")
                }
                if let upper = pending.upper, Self.compare(node.key, upper) >= 0 {
                    throw damaged("has a key at or above its parent's next separator")
                }
                previous = node.key
            }
            if isBranch {
                let child = UInt64(node.low) | UInt64(node.high) << 16 | UInt64(node.flags) << 32
                let upper = index + 1 < count ? try self.node(page, index + 1, damaged: damaged).key : pending.upper
                stack.append(
                    PendingPage(
                        number: child, depth: pending.depth + 1, lower: index == 0 ? pending.lower : node.key,
                        upper: upper))
                continue
            }
            try checkLeafNode(node, page: page, kind: kind, file: file, counts: &counts, damaged: damaged)
        }
    }

    struct Node {
        let low: UInt16
        let high: UInt16
        let flags: UInt16
        let key: UnsafeRawBufferPointer
        let dataStart: Int
        var dataSize: Int { Int(low) | Int(high) << 16 }
    }

    private mutating func checkLeafNode(
        _ node: Node, page: UnsafeRawBufferPointer, kind: TreeKind, file: UnsafeRawBufferPointer,
        counts: inout TreeCounts, damaged: (String) -> StorageError
    ) throws(StorageError) {
        let dataSize = node.dataSize
        let inlineFits = node.dataStart + dataSize <= page.count
        switch (kind, node.flags) {
        case (.main, Layout.subData):
            guard dataSize == Layout.recordSize, inlineFits else {
                throw damaged("has a table record of \(dataSize) bytes")
            }
            mainEntries.append((Array(node.key), TreeRecord(page, at: node.dataStart)))
            counts.entries += 1
        case (.sortedDuplicates, Layout.subData | Layout.dupData):
            guard dataSize == Layout.recordSize, inlineFits else {
                throw damaged("has a duplicates record of \(dataSize) bytes")
            }
            let record = TreeRecord(page, at: node.dataStart)
            try walkTree(record, kind: .duplicates, file: file, name: "a duplicates tree")
            counts.entries += record.entries
        case (.sortedDuplicates, Layout.dupData):
            // Sorted duplicates kept inline: a small leaf page inside the node, of keys only.
            guard dataSize >= Layout.header, inlineFits else {
                throw damaged("has an inline duplicates page of \(dataSize) bytes")
            }
            let subPage = UnsafeRawBufferPointer(rebasing: page[node.dataStart..<(node.dataStart + dataSize)])
            // A sub-page is written as it was in memory: P_SUBP, and often P_DIRTY, beside P_LEAF.
            guard subPage.load(10, as: UInt16.self) & ~UInt16(0x40 | 0x10) == Layout.leaf else {
                throw damaged(
                    "has an inline duplicates page that is not a leaf (flags \(subPage.load(10, as: UInt16.self)))")
            }
            let subCount = try nodeCount(subPage, damaged: damaged)
            guard subCount >= 1 else { throw damaged("has an empty inline duplicates page") }
            var previous: UnsafeRawBufferPointer?
            for subIndex in 0..<subCount {
                let duplicate = try self.node(subPage, subIndex, damaged: damaged)
                guard duplicate.flags == 0, duplicate.dataSize == 0 else {
                    throw damaged("has a damaged inline duplicate")
                }
                if let previous, Self.compare(previous, duplicate.key) >= 0 {
                    throw damaged("has inline duplicates out of order")
                }
                previous = duplicate.key
            }
            counts.entries += UInt64(subCount)
        case (.rows, Layout.bigData), (.meta, Layout.bigData), (.plain, Layout.bigData):
            guard node.dataStart + 8 <= page.count else {
                throw damaged("has an overflow reference running past the page")
            }
            let first = page.load(node.dataStart, as: UInt64.self)
            let value = try checkOverflow(first, dataSize: dataSize, file: file, counts: &counts, damaged: damaged)
            try checkValue(node.key, value, kind: kind, damaged: damaged)
            counts.entries += 1
        case (.main, 0), (.meta, 0), (.rows, 0), (.plain, 0), (.sortedDuplicates, 0), (.duplicates, 0):
            guard inlineFits else { throw damaged("has a value running past the page") }
            if case .duplicates = kind, dataSize != 0 { throw damaged("has a value in a duplicates tree") }
            try checkValue(
                node.key, UnsafeRawBufferPointer(rebasing: page[node.dataStart..<(node.dataStart + dataSize)]),
                kind: kind,
                damaged: damaged)
            counts.entries += 1
        default:
            throw damaged("has a node with flags \(node.flags), which its tree cannot hold")
        }
    }

    mutating func checkValue(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, kind: TreeKind,
        damaged: (String) -> StorageError, opened: Bool = false
    ) throws(StorageError) {
        if sealing != nil, !opened, try checkSealed(key, value, kind: kind, damaged: damaged) { return }
        switch kind {
        case .meta where key.elementsEqual(StrataFormat.formatKey.utf8) && value.count == 4:
            formatVersion = UInt32(littleEndian: value.loadUnaligned(as: UInt32.self))
        case .meta where key.elementsEqual(StrataFormat.encryptionKey.utf8):
            encryptionRecord = Array(value)
        case .meta where key.elementsEqual(StrataFormat.schemaKey.utf8):
            schema = Array(value)
        case .rows(let sealed) where visitor != nil:
            visitor?.row(currentTable, key, value, sealed ? Self.sealMatches(key: key, value: value) : nil)
        case .rows(sealed: true):
            rowsChecked += 1
            guard Self.sealMatches(key: key, value: value) else {
                let hex = key.map {
                    String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
                }
                throw damaged("holds a row whose checksum does not match its key and bytes (key \(hex.joined()))")
            }
        default:
            break
        }
    }

    private static func sealMatches(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        Checksum.rowSealMatches(key: key, stored: value)
    }

    /// The free-page tree of the walked snapshot: LMDB's lists of pages freed by each transaction. No
    /// page a tree uses may be free (a write would reuse it under the tree). Returns the free pages
    /// numbered `from` or higher.
    mutating func walkFreeTree(root: UInt64, file: UnsafeRawBufferPointer, atLeast from: UInt64)
        throws(StorageError) -> Set<UInt64>
    {
        var free = Set<UInt64>()
        let path = self.path
        guard root != Self.invalidPage else { return free }
        var stack = [(page: root, depth: 1)]
        while let (number, depth) = stack.popLast() {
            func damaged(_ what: String) -> StorageError {
                .damaged("\(path): page \(number) of the free-page tree \(what)")
            }
            guard depth <= Layout.maxDepth else { throw damaged("is deeper than any B-tree can be") }
            let page = try reach(number, file: file, damaged: damaged)
            let flags = page.load(10, as: UInt16.self)
            guard flags == Layout.branch || flags == Layout.leaf else {
                throw damaged("is neither a branch nor a leaf page")
            }
            var ignored = TreeCounts()
            for index in 0..<(try nodeCount(page, damaged: damaged)) {
                let node = try self.node(page, index, damaged: damaged)
                if flags == Layout.branch {
                    stack.append((UInt64(node.low) | UInt64(node.high) << 16 | UInt64(node.flags) << 32, depth + 1))
                    continue
                }
                let list: UnsafeRawBufferPointer
                switch node.flags {
                case 0:
                    guard node.dataStart + node.dataSize <= page.count else {
                        throw damaged("has a value running past the page")
                    }
                    list = UnsafeRawBufferPointer(rebasing: page[node.dataStart..<(node.dataStart + node.dataSize)])
                case Layout.bigData:
                    guard node.dataStart + 8 <= page.count else {
                        throw damaged("has an overflow reference running past the page")
                    }
                    list = try checkOverflow(
                        page.load(node.dataStart, as: UInt64.self), dataSize: node.dataSize, file: file,
                        counts: &ignored, damaged: damaged)
                default:
                    throw damaged("has a node with flags \(node.flags), which the free-page tree cannot hold")
                }
                // A list of page numbers: its length, then the numbers.
                guard list.count >= 8, list.count % 8 == 0, list.load(0, as: UInt64.self) == UInt64(list.count / 8 - 1)
                else {
                    throw damaged("has a free-page list of \(list.count) bytes that does not hold its count")
                }
                for index in 1..<(list.count / 8) {
                    let freePage = list.load(index * 8, as: UInt64.self)
                    guard (2...lastPage).contains(freePage) else {
                        throw damaged("lists page \(freePage) as free, outside the used pages 2...\(lastPage)")
                    }
                    if freePage <= lastTreePage, isReached(freePage) {
                        throw damaged("lists page \(freePage) as free, which a tree uses")
                    }
                    if freePage >= from { free.insert(freePage) }
                }
            }
        }
        return free
    }

    /// The free pages numbered `from` or higher, read from the free-page tree under `root`. LMDB may
    /// allocate pages past the file's end and free them in the same transaction (loose pages): they
    /// are counted in the meta page's last page but never written, and only the free tree says so.
    mutating func freePages(root: UInt64, atLeast from: UInt64) throws(StorageError) -> Set<UInt64> {
        let file = try mapFile()
        return try walkFreeTree(root: root, file: file, atLeast: from)
    }

    /// Marks page `number` reached and returns its bytes, after checking that it lies in the file,
    /// was not reached before, and carries its own number.
    private mutating func reach(_ number: UInt64, file: UnsafeRawBufferPointer, damaged: (String) -> StorageError)
        throws(StorageError) -> UnsafeRawBufferPointer
    {
        guard (2...lastTreePage).contains(number) else {
            throw damaged("is outside the used pages 2...\(lastTreePage)")
        }
        guard !isReached(number) else { throw damaged("is reached twice (a loop, or a shared page)") }
        markReached(number)
        pagesChecked += 1
        let page = UnsafeRawBufferPointer(rebasing: file[(Int(number) * pageSize)..<(Int(number + 1) * pageSize)])
        guard page.load(0, as: UInt64.self) == number else {
            throw damaged("carries page number \(page.load(0, as: UInt64.self))")
        }
        return page
    }

    func isReached(_ number: UInt64) -> Bool {
        reached[Int(number / 64)] & (1 << (number % 64)) != 0
    }

    private mutating func markReached(_ number: UInt64) {
        reached[Int(number / 64)] |= 1 << (number % 64)
    }

    /// The number of nodes of a page, after checking its free-space bounds.
    func nodeCount(_ page: UnsafeRawBufferPointer, damaged: (String) -> StorageError) throws(StorageError)
        -> Int
    {
        let lower = Int(page.load(12, as: UInt16.self))
        let upper = Int(page.load(14, as: UInt16.self))
        guard lower >= Layout.header, lower <= upper, upper <= page.count, lower % 2 == 0 else {
            throw damaged("has free-space bounds \(lower)..<\(upper) outside its \(page.count) bytes")
        }
        return (lower - Layout.header) / 2
    }

    /// Node `index` of a page, checked to lie between the page's free space and its end.
    func node(_ page: UnsafeRawBufferPointer, _ index: Int, damaged: (String) -> StorageError)
        throws(StorageError) -> Node
    {
        let upper = Int(page.load(14, as: UInt16.self))
        let offset = Int(page.load(Layout.header + index * 2, as: UInt16.self))
        guard offset >= upper, offset + Layout.nodeHeader <= page.count else {
            throw damaged("has node \(index) at offset \(offset), outside \(upper)..<\(page.count)")
        }
        let keySize = Int(page.load(offset + 6, as: UInt16.self))
        let dataStart = offset + Layout.nodeHeader + keySize
        guard dataStart <= page.count else { throw damaged("has a key running past the page") }
        return Node(
            low: page.load(offset, as: UInt16.self), high: page.load(offset + 2, as: UInt16.self),
            flags: page.load(offset + 4, as: UInt16.self),
            key: UnsafeRawBufferPointer(rebasing: page[(offset + Layout.nodeHeader)..<dataStart]), dataStart: dataStart)
    }

    /// Checks an overflow run and returns the value it holds.
    mutating func checkOverflow(
        _ number: UInt64, dataSize: Int, file: UnsafeRawBufferPointer, counts: inout TreeCounts,
        damaged: (String) -> StorageError
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        guard (2...lastTreePage).contains(number), !isReached(number) else {
            throw damaged("names overflow page \(number), outside the used pages or reached twice")
        }
        let start = Int(number) * pageSize
        let header = UnsafeRawBufferPointer(rebasing: file[start..<(start + Layout.header)])
        let pages = UInt64(header.load(12, as: UInt32.self))
        guard header.load(0, as: UInt64.self) == number, header.load(10, as: UInt16.self) & Layout.overflow != 0,
            pages >= 1, number + pages - 1 <= lastTreePage, dataSize <= Int(pages) * pageSize - Layout.header
        else {
            throw damaged(
                "names overflow page \(number), which is not a valid run of \(pages) pages for \(dataSize) bytes")
        }
        for page in number..<(number + pages) {
            guard !isReached(page) else { throw damaged("names an overflow run over page \(page), reached twice") }
            markReached(page)
        }
        pagesChecked += Int(pages)
        counts.overflowPages += pages
        return UnsafeRawBufferPointer(rebasing: file[(start + Layout.header)..<(start + Layout.header + dataSize)])
    }

    /// LMDB's default order of keys and of sorted duplicates: bytes, then length.
    private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    static func readBytes(fd: Int32, offset: Int, count: Int, path: String) throws(StorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { throw .fileAccess(path: path, code: errno) }
        guard got == count else { throw .damaged("\(path) ends inside page \(offset / max(count, 1))") }
        return bytes
    }
}

extension [UInt8] {
    func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
        withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}

extension UnsafeRawBufferPointer {
    func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
