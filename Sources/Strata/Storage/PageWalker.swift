#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Walks LMDB's B-tree pages straight from the file and checks their structure: page numbers,
/// header bounds, node offsets and sizes, child and overflow page numbers, sub-databases. LMDB has no
/// checksums and trusts every pointer it reads, so a flipped byte in a branch page can send it out of
/// the map (a segfault). The walker reads with `pread` and bounds checks, so damage becomes `StorageError.damaged`.
///
/// The pages of a snapshot stay put while a read transaction pins it; callers walk a snapshot they pin
/// (`Environment.checkPages`), or the newest one, re-checking its transaction id afterwards.
struct PageWalker {
    private enum Layout {
        static let header = 16
        static let nodeHeader = 8
        static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04
        static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
        static let dbSize = 48
        static let dbRoot = 40
        static let dbFlags = 4
        static let dupSort: UInt16 = 0x04
        static let maxDepth = 32
    }

    /// A root of an empty tree.
    static let invalidPage = UInt64.max

    /// The two core trees of a meta page, and its transaction id.
    struct Meta {
        let freeRoot: UInt64
        let mainRoot: UInt64
        let lastPage: UInt64
        let transactionID: UInt64
    }

    private let fd: Int32
    private let path: String
    let pageSize: Int
    private let lastPage: UInt64
    private var visited = Set<UInt64>()
    /// Pages checked, for reports.
    private(set) var pagesChecked = 0
    /// The names of the tables the main tree lists (the keys of its leaves), as walked.
    private(set) var tableNames: [[UInt8]] = []

    init(fd: Int32, path: String, pageSize: Int, lastPage: UInt64) {
        self.fd = fd
        self.path = path
        self.pageSize = pageSize
        self.lastPage = lastPage
    }

    /// Both meta pages (the file's header must have passed `StoreFile.check`).
    static func metas(fd: Int32, pageSize: Int, path: String) throws(StorageError) -> [Meta] {
        var metas: [Meta] = []
        for index in 0..<2 {
            let page = try readBytes(fd: fd, offset: index * pageSize, count: MetaPageLayout.size, path: path)
            metas.append(
                Meta(
                    freeRoot: page.load(MetaPageLayout.roots[0], as: UInt64.self),
                    mainRoot: page.load(MetaPageLayout.roots[1], as: UInt64.self),
                    lastPage: page.load(MetaPageLayout.lastPage, as: UInt64.self),
                    transactionID: page.load(MetaPageLayout.transactionID, as: UInt64.self)))
        }
        return metas
    }

    /// Checks the main tree, which names the tables (what opening reads). With `tables`, descends into
    /// every table (and every sorted-duplicates sub-tree), and the free-page tree: the whole file.
    mutating func walk(_ meta: Meta, tables: Bool) throws(StorageError) {
        try walkTree(root: meta.mainRoot, kind: .main(descend: tables))
        if tables { try walkTree(root: meta.freeRoot, kind: .table(sortedDuplicates: false)) }
    }

    /// What a tree holds, which decides the node flags its leaves may carry (a flag LMDB does not
    /// expect there sends it to a cursor that does not exist).
    private enum TreeKind {
        /// The directory of tables: sub-database records.
        case main(descend: Bool)
        /// A table, with sorted duplicates (indexes, backlinks) or without.
        case table(sortedDuplicates: Bool)
        /// The values of one key of a sorted-duplicates table: keys only.
        case duplicates

        var name: String {
            switch self {
            case .main: "the main tree"
            case .table: "a table"
            case .duplicates: "a duplicates tree"
            }
        }
    }

    private mutating func walkTree(root: UInt64, kind: TreeKind) throws(StorageError) {
        let name = kind.name
        guard root != Self.invalidPage else { return }
        var stack: [(page: UInt64, depth: Int)] = [(root, 1)]
        let file = path
        while let (number, depth) = stack.popLast() {
            func damaged(_ what: String) -> StorageError {
                .damaged("\(file): page \(number) of \(name) \(what)")
            }
            guard depth <= Layout.maxDepth else { throw damaged("is deeper than any B-tree can be") }
            guard (2...lastPage).contains(number) else { throw damaged("is outside the used pages 2...\(lastPage)") }
            guard visited.insert(number).inserted else { throw damaged("is reached twice (a loop, or a shared page)") }
            let page = try Self.readBytes(fd: fd, offset: Int(number) * pageSize, count: pageSize, path: path)
            pagesChecked += 1
            guard page.load(0, as: UInt64.self) == number else {
                throw damaged("carries page number \(page.load(0, as: UInt64.self))")
            }
            let flags = page.load(10, as: UInt16.self)
            // Written pages carry exactly one type (LMDB clears its in-memory bits before writing).
            guard flags == Layout.branch || flags == Layout.leaf else {
                throw damaged("is neither a branch nor a leaf page (flags \(flags))")
            }
            let isBranch = flags == Layout.branch
            let nodes = try nodeOffsets(page, size: pageSize, damaged: damaged)
            for offset in nodes {
                let (low, high, nodeFlags, keySize) = node(page, at: offset)
                let dataStart = offset + Layout.nodeHeader + keySize
                guard dataStart <= pageSize else { throw damaged("has a key running past the page") }
                if isBranch {
                    stack.append((UInt64(low) | UInt64(high) << 16 | UInt64(nodeFlags) << 32, depth + 1))
                    continue
                }
                let dataSize = Int(low) | Int(high) << 16
                if case .main = kind { tableNames.append(Array(page[(offset + Layout.nodeHeader)..<dataStart])) }
                switch (kind, nodeFlags) {
                case (.main, Layout.subData), (.table(sortedDuplicates: true), Layout.subData | Layout.dupData):
                    guard dataSize == Layout.dbSize, dataStart + dataSize <= pageSize else {
                        throw damaged("has a sub-database record of \(dataSize) bytes")
                    }
                    let subRoot = page.load(dataStart + Layout.dbRoot, as: UInt64.self)
                    if case .main(let descend) = kind {
                        let sortedDuplicates =
                            page.load(dataStart + Layout.dbFlags, as: UInt16.self) & Layout.dupSort != 0
                        if descend {
                            try walkTree(root: subRoot, kind: .table(sortedDuplicates: sortedDuplicates))
                        } else if subRoot != Self.invalidPage, !(2...lastPage).contains(subRoot) {
                            throw damaged("names root page \(subRoot) for a table, outside the used pages")
                        }
                    } else {
                        try walkTree(root: subRoot, kind: .duplicates)
                    }
                case (.table(sortedDuplicates: false), Layout.bigData):
                    guard dataStart + 8 <= pageSize else {
                        throw damaged("has an overflow reference running past the page")
                    }
                    try checkOverflow(page.load(dataStart, as: UInt64.self), dataSize: dataSize, damaged: damaged)
                case (.table(sortedDuplicates: true), Layout.dupData):
                    // Sorted duplicates kept inline: a small leaf page inside the node, of keys only.
                    guard dataSize >= Layout.header, dataStart + dataSize <= pageSize else {
                        throw damaged("has an inline duplicates page of \(dataSize) bytes")
                    }
                    let subPage = Array(page[dataStart..<(dataStart + dataSize)])
                    // A sub-page is written as it was in memory: P_SUBP, and often P_DIRTY, beside P_LEAF.
                    guard subPage.load(10, as: UInt16.self) & ~UInt16(0x40 | 0x10) == Layout.leaf else {
                        throw damaged(
                            "has an inline duplicates page that is not a leaf (flags \(subPage.load(10, as: UInt16.self)))"
                        )
                    }
                    for subOffset in try nodeOffsets(subPage, size: dataSize, damaged: damaged) {
                        let (subLow, subHigh, subFlags, subKeySize) = node(subPage, at: subOffset)
                        guard subFlags == 0, subLow == 0, subHigh == 0,
                            subOffset + Layout.nodeHeader + subKeySize <= dataSize
                        else {
                            throw damaged("has a damaged inline duplicate")
                        }
                    }
                case (.table, 0), (.duplicates, 0), (.main, 0):
                    guard dataStart + dataSize <= pageSize else { throw damaged("has a value running past the page") }
                    if case .duplicates = kind, dataSize != 0 { throw damaged("has a value in a duplicates tree") }
                default:
                    throw damaged("has a node with flags \(nodeFlags), which \(name) cannot hold")
                }
            }
        }
    }

    /// The free pages numbered `from` or higher, read from the free-page tree under `root`. LMDB may
    /// allocate pages past the file's end and free them in the same transaction (loose pages): they
    /// are counted in the meta page's last page but never written, and only the free tree says so.
    mutating func freePages(root: UInt64, atLeast from: UInt64) throws(StorageError) -> Set<UInt64> {
        var free = Set<UInt64>()
        guard root != Self.invalidPage else { return free }
        var stack: [(page: UInt64, depth: Int)] = [(root, 1)]
        let file = path
        while let (number, depth) = stack.popLast() {
            func damaged(_ what: String) -> StorageError {
                .damaged("\(file): page \(number) of the free-page tree \(what)")
            }
            guard depth <= Layout.maxDepth else { throw damaged("is deeper than any B-tree can be") }
            guard (2...lastPage).contains(number), visited.insert(number).inserted else {
                throw damaged("is outside the used pages, or reached twice")
            }
            let page = try Self.readBytes(fd: fd, offset: Int(number) * pageSize, count: pageSize, path: path)
            guard page.load(0, as: UInt64.self) == number else { throw damaged("carries another page number") }
            let flags = page.load(10, as: UInt16.self)
            guard flags == Layout.branch || flags == Layout.leaf else {
                throw damaged("is neither a branch nor a leaf page")
            }
            for offset in try nodeOffsets(page, size: pageSize, damaged: damaged) {
                let (low, high, nodeFlags, keySize) = node(page, at: offset)
                let dataStart = offset + Layout.nodeHeader + keySize
                guard dataStart <= pageSize else { throw damaged("has a key running past the page") }
                if flags == Layout.branch {
                    stack.append((UInt64(low) | UInt64(high) << 16 | UInt64(nodeFlags) << 32, depth + 1))
                    continue
                }
                let dataSize = Int(low) | Int(high) << 16
                let list: [UInt8]
                switch nodeFlags {
                case 0:
                    guard dataStart + dataSize <= pageSize else { throw damaged("has a value running past the page") }
                    list = Array(page[dataStart..<(dataStart + dataSize)])
                case Layout.bigData:
                    guard dataStart + 8 <= pageSize else {
                        throw damaged("has an overflow reference running past the page")
                    }
                    let overflow = page.load(dataStart, as: UInt64.self)
                    try checkOverflow(overflow, dataSize: dataSize, damaged: damaged)
                    list = try Self.readBytes(
                        fd: fd, offset: Int(overflow) * pageSize + Layout.header, count: dataSize, path: path)
                default:
                    throw damaged("has a node with flags \(nodeFlags), which the free-page tree cannot hold")
                }
                // A list of page numbers: its length, then the numbers.
                guard list.count >= 8, list.count % 8 == 0, Int(list.load(0, as: UInt64.self)) == list.count / 8 - 1
                else {
                    throw damaged("has a free-page list of \(list.count) bytes that does not hold its count")
                }
                for index in 1..<(list.count / 8) {
                    let freePage = list.load(index * 8, as: UInt64.self)
                    if freePage >= from { free.insert(freePage) }
                }
            }
        }
        return free
    }

    /// The node offsets of a page, each checked to lie between the page's free space and its end.
    private func nodeOffsets(_ page: [UInt8], size: Int, damaged: (String) -> StorageError) throws(StorageError)
        -> [Int]
    {
        let lower = Int(page.load(12, as: UInt16.self))
        let upper = Int(page.load(14, as: UInt16.self))
        guard lower >= Layout.header, lower <= upper, upper <= size, lower % 2 == 0 else {
            throw damaged("has free-space bounds \(lower)..<\(upper) outside its \(size) bytes")
        }
        return try (0..<((lower - Layout.header) / 2)).map { (index) throws(StorageError) -> Int in
            let offset = Int(page.load(Layout.header + index * 2, as: UInt16.self))
            guard offset >= upper, offset + Layout.nodeHeader <= size else {
                throw damaged("has node \(index) at offset \(offset), outside \(upper)..<\(size)")
            }
            return offset
        }
    }

    private func node(_ page: [UInt8], at offset: Int) -> (UInt16, UInt16, UInt16, Int) {
        (
            page.load(offset, as: UInt16.self), page.load(offset + 2, as: UInt16.self),
            page.load(offset + 4, as: UInt16.self), Int(page.load(offset + 6, as: UInt16.self))
        )
    }

    private mutating func checkOverflow(_ number: UInt64, dataSize: Int, damaged: (String) -> StorageError)
        throws(StorageError)
    {
        guard (2...lastPage).contains(number) else {
            throw damaged("names overflow page \(number), outside the used pages")
        }
        guard visited.insert(number).inserted else { throw damaged("names overflow page \(number), reached twice") }
        let header = try Self.readBytes(fd: fd, offset: Int(number) * pageSize, count: Layout.header, path: path)
        pagesChecked += 1
        let pages = UInt64(header.load(12, as: UInt32.self))
        guard header.load(0, as: UInt64.self) == number, header.load(10, as: UInt16.self) & Layout.overflow != 0,
            pages >= 1, number + pages - 1 <= lastPage, dataSize <= Int(pages) * pageSize - Layout.header
        else {
            throw damaged(
                "names overflow page \(number), which is not a valid run of \(pages) pages for \(dataSize) bytes")
        }
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
