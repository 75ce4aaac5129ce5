import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What makes an LMDB file a Strata file: the table `strata.meta` holding, under `format`, the format
/// version (a little-endian UInt32). Every Strata file has it from its creation on; a file without it
/// belongs to another program and is never opened for writing.
enum StrataFormat {
    static let metaTable = "strata.meta"
    static let formatKey = "format"
    static let schemaKey = "schema"
    /// The record of an encrypted file: its salt and a key check (`FileSealing`), in clear.
    static let encryptionKey = "encryption"
    /// The prefix of the tables holding a type's rows (`TableName.objects`).
    static let rowTablePrefix = "type."
    /// The key table beside a type's blocks on an encrypted file (`SealedBlockTable`): its sealed keys
    /// and block numbers, written by the blocks' own calls, never copied or salvaged as a table.
    static let blockKeyTablePrefix = "keys." + rowTablePrefix
    /// The first format whose rows carry a seal (`RowSeal`).
    static let firstSealedVersion: UInt32 = 2
    /// 2: rows carry a checksum (`RowSeal`). 1: rows without (upgraded when opened for writing).
    static let version: UInt32 = 2
}

/// Checks on the file itself, made before LMDB reads anything but its header: a damaged file must end
/// in a typed error, never in LMDB following a bad page number out of the file (SIGBUS) or into
/// garbage; a file of another program must not be opened (LMDB would take a reader slot in its lock
/// file, and Strata would add its tables).
enum StoreFile {
    /// Creates a new store file so that it appears whole or not at all: LMDB writes the meta pages of
    /// a new file after creating it, so a crash in between would leave an empty file, which cannot be
    /// told apart from a store truncated to nothing. The file is made under a temporary name with its
    /// format record (`StrataFormat`), flushed, and linked into place (a concurrent creator's file
    /// wins; this one is then dropped).
    ///
    /// - Throws: `.fileAccess` when the directory cannot be written, `.lmdb`.
    static func create(at path: String, options: EnvironmentOptions) throws(StorageError) {
        let temporary = "\(path).creating-\(getpid())"
        for file in [temporary, temporary + "-lock"] { unlink(file) }  // left by a crashed process with this pid
        defer {
            for file in [temporary, temporary + "-lock"] { unlink(file) }
        }
        let encryption: [UInt8]?
        do {
            encryption = try options.encryptionKey.map { (key) throws(EncryptionFailure) in
                try FileSealing.newRecord(key: key)
            }
        } catch {
            throw .encryption(path: path, error)
        }
        do throws(LMDBError) {
            let env = try LMDB.createEnvironment()
            defer { LMDB.closeEnvironment(env) }
            try LMDB.setMapSize(env, options.mapSize)
            try LMDB.setMaxTables(env, 1)
            try LMDB.openEnvironment(env, path: temporary, flags: options.flags, mode: options.fileMode)
            try writeFormatRecord(env, encryption: encryption)
            try LMDB.syncEnvironment(env)
        } catch {
            throw error.code > 0 ? .fileAccess(path: path, code: error.code) : .lmdb(error)
        }
        guard link(temporary, path) == 0 || errno == EEXIST else { throw .fileAccess(path: path, code: errno) }
        syncDirectory(of: path)
    }

    /// The format record, and for an encrypted file its record (`FileSealing.newRecord`): a file is
    /// encrypted from its first commit, so no page of it ever held the app's data in clear.
    private static func writeFormatRecord(_ env: OpaquePointer, encryption record: [UInt8]?) throws(LMDBError) {
        let txn = try LMDB.beginTransaction(env, flags: 0)
        do throws(LMDBError) {
            let meta = try LMDB.openTable(txn, name: StrataFormat.metaTable, flags: UInt32(MDB_CREATE))
            _ = try withBytes(of: StrataFormat.version.littleEndian) { (value) throws(LMDBError) in
                try Array(StrataFormat.formatKey.utf8).withBytes { (key) throws(LMDBError) in
                    try LMDB.put(txn, meta, key: key, value: value, flags: 0)
                }
            }
            if let record {
                _ = try record.withBytes { (value) throws(LMDBError) in
                    try Array(StrataFormat.encryptionKey.utf8).withBytes { (key) throws(LMDBError) in
                        try LMDB.put(txn, meta, key: key, value: value, flags: 0)
                    }
                }
            }
        } catch {
            LMDB.abort(txn)
            throw error
        }
        try LMDB.commit(txn)
    }

    /// Makes a new directory entry durable (a crash after `link` must not lose the file).
    private static func syncDirectory(of path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    /// Removes the half-made copies `create` leaves when its process is killed in the middle
    /// (`<path>.creating-<pid>` and its lock file) of processes that no longer exist. A copy of a live
    /// process (another one creating the file right now) stays.
    static func removeAbandonedCopies(of path: String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + ".creating-"
        guard let stream = opendir(directory.isEmpty ? "/" : directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix) else { continue }
            var suffix = name.dropFirst(prefix.count)
            if suffix.hasSuffix("-lock") { suffix = suffix.dropLast("-lock".count) }
            guard let pid = Int32(suffix), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// Checks an existing file before LMDB reads it: both meta pages, then the main tree, which must
    /// list Strata's meta table.
    ///
    /// - Throws: `.damaged` naming the page and the damage, or saying that the file is not a Strata
    ///   file; `.fileAccess` when unreadable.
    static func check(at path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileAccess(path: path, code: errno) }
        defer { _ = close(fd) }
        let pageSize = try checkMetaPages(fd, path: path)
        let tables = try checkMainTree(fd, pageSize: pageSize, path: path)
        guard tables.contains(Array(StrataFormat.metaTable.utf8)) else {
            let listed = tables.prefix(3).map { "\"\(String(decoding: $0, as: UTF8.self))\"" }.joined(separator: ", ")
            throw .damaged(
                "\(path) is not a Strata file: an LMDB file without Strata's meta table "
                    + (tables.isEmpty
                        ? "(it holds no table)" : "(its tables: \(listed)\(tables.count > 3 ? ", …" : ""))")
                    + "; it was left as it is")
        }
    }

    /// Checks both meta pages against the file: page size, last page and roots within the file.
    /// Safe while another process commits: LMDB writes data pages before a meta page and never
    /// shrinks the file, so even a meta read half old, half new names only pages the file has (the
    /// size is taken after reading the pages). Returns the page size.
    private static func checkMetaPages(_ fd: Int32, path: String) throws(StorageError) -> Int {
        try checkIsLMDBFile(fd, path: path)
        let first = try read(fd, offset: 0, count: 512, path: path)
        try checkHeader(first, index: 0, path: path)
        let pageSize = Int(first.load(MetaPageLayout.pageSize, as: UInt32.self))
        guard (512...65_536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
            throw .damaged("\(path): meta page 0 names a page size of \(pageSize) bytes")
        }
        let second = try read(fd, offset: pageSize, count: 512, path: path)
        try checkHeader(second, index: 1, path: path)
        guard let size = fileSize(atPath: path) else { throw .fileAccess(path: path, code: errno) }
        let filePages = UInt64(size / pageSize)
        for (index, page) in [first, second].enumerated() {
            func damaged(_ what: String) -> StorageError { .damaged("\(path): meta page \(index) \(what)") }
            guard page.load(MetaPageLayout.pageSize, as: UInt32.self) == UInt32(pageSize) else {
                throw damaged("disagrees about the page size")
            }
            let lastPage = page.load(MetaPageLayout.lastPage, as: UInt64.self)
            guard lastPage >= 1, lastPage < 1 << 48 else { throw damaged("names an impossible last page \(lastPage)") }
            if lastPage >= filePages {
                try checkPagesPastTheEnd(
                    fd, pageSize: pageSize, filePages: filePages, lastPage: lastPage,
                    freeRoot: page.load(MetaPageLayout.roots[0], as: UInt64.self), path: path, damaged: damaged)
            }
            // LMDB converts the newer page's id to a signed transaction id; a flipped high bit would
            // turn it negative. 2^48 commits would take centuries.
            guard page.load(MetaPageLayout.transactionID, as: UInt64.self) < 1 << 48 else {
                throw damaged("names an impossible transaction id")
            }
            for (root, depth) in zip(MetaPageLayout.roots, MetaPageLayout.depths) {
                let rootPage = page.load(root, as: UInt64.self)
                guard rootPage == PageWalker.invalidPage || (2..<filePages).contains(rootPage) else {
                    throw damaged("names page \(rootPage) as a root, outside the file's pages 2..<\(filePages)")
                }
                guard page.load(depth, as: UInt16.self) <= 32 else { throw damaged("names an impossible tree depth") }
            }
        }
        try checkTransactionIDs(fd, pageSize: pageSize, path: path)
        return pageSize
    }

    /// LMDB writes the meta page of transaction N to page N % 2, so the two pages name consecutive
    /// transactions, each of its page's parity (a new file: both 0). Anything else is damage: LMDB
    /// would open whichever names the larger id, so a damaged id would open an older version of the
    /// data in silence. Another process's commits between the two reads can make them look apart:
    /// the pages are read again before the file is judged damaged.
    private static func checkTransactionIDs(_ fd: Int32, pageSize: Int, path: String) throws(StorageError) {
        var ids: (UInt64, UInt64) = (0, 0)
        for _ in 0..<4 {
            let page0 = try read(fd, offset: 0, count: 512, path: path)
            let page1 = try read(fd, offset: pageSize, count: 512, path: path)
            ids = (
                page0.load(MetaPageLayout.transactionID, as: UInt64.self),
                page1.load(MetaPageLayout.transactionID, as: UInt64.self)
            )
            if areConsecutiveMetaIDs(ids.0, ids.1) { return }
        }
        throw .damaged(
            "\(path): the meta pages name transactions \(ids.0) and \(ids.1); LMDB writes transaction N's to page "
                + "N % 2, so they must be consecutive: one of them is damaged (opening would fall back to an older "
                + "version of the data)")
    }

    /// Whether meta pages 0 and 1 naming these transaction ids can be what LMDB wrote.
    static func areConsecutiveMetaIDs(_ page0: UInt64, _ page1: UInt64) -> Bool {
        if page0 == 0, page1 == 0 { return true }  // created, never committed
        return page0 % 2 == 0 && page1 % 2 == 1 && (page0 &+ 1 == page1 || page1 &+ 1 == page0)
    }

    /// A meta page may count pages past the file's end only when they are free: LMDB allocated them
    /// and freed them in the same transaction, so it never wrote them. Any other page past the end
    /// was cut off: the file is truncated, and reading that page would fault.
    private static func checkPagesPastTheEnd(
        _ fd: Int32, pageSize: Int, filePages: UInt64, lastPage: UInt64, freeRoot: UInt64, path: String,
        damaged: (String) -> StorageError
    ) throws(StorageError) {
        let truncated = damaged(
            "names page \(lastPage) as the last used, but the file has \(filePages) pages (truncated?)")
        guard lastPage - filePages < 1 << 20, filePages > 2 else { throw truncated }
        var walker = PageWalker(fd: fd, path: path, pageSize: pageSize, lastPage: lastPage)  // maps only the file
        let free: Set<UInt64>
        do {
            free = try walker.freePages(root: freeRoot, atLeast: filePages)
        } catch {
            throw truncated  // the free tree itself lies past the end, or is damaged
        }
        guard (filePages...lastPage).allSatisfy(free.contains) else { throw truncated }
    }

    /// A file too short to hold a meta page header, or whose first bytes are not one, is another kind
    /// of file (a 24-byte text file is not a store truncated inside its meta pages).
    private static func checkIsLMDBFile(_ fd: Int32, path: String) throws(StorageError) {
        var header = [UInt8](repeating: 0, count: MetaPageLayout.magic.offset + 4)
        let got = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard got >= 0 else { throw .fileAccess(path: path, code: errno) }
        guard got == header.count,
            header.load(MetaPageLayout.magic.offset, as: UInt32.self) == MetaPageLayout.magic.value
        else { throw .damaged("\(path) is not a Strata file (it does not begin with an LMDB meta page)") }
    }

    private static func checkHeader(_ page: [UInt8], index: Int, path: String) throws(StorageError) {
        guard page.load(MetaPageLayout.flagsOffset, as: UInt16.self) & MetaPageLayout.metaFlag != 0,
            page.load(MetaPageLayout.magic.offset, as: UInt32.self) == MetaPageLayout.magic.value
        else { throw .damaged("\(path) is not a Strata file (meta page \(index) is not an LMDB meta page)") }
        guard page.load(MetaPageLayout.version.offset, as: UInt32.self) == MetaPageLayout.version.value else {
            throw .damaged("\(path): meta page \(index) has an unknown LMDB format version")
        }
    }

    private static func read(_ fd: Int32, offset: Int, count: Int, path: String) throws(StorageError) -> [UInt8] {
        do {
            return try PageWalker.readBytes(fd: fd, offset: offset, count: count, path: path)
        } catch .damaged {
            throw .damaged("\(path) is truncated inside its meta pages")
        }
    }

    /// Checks the pages of the main tree (the table directory, which opening reads) of the newest
    /// snapshot, and returns the names of the tables it lists. The walk reads pages without holding a
    /// snapshot, so a commit of another process may reuse them meanwhile: a walk counts only when no
    /// commit landed during it, and runs again on the new snapshot otherwise. A concurrent writer is
    /// then never mistaken for damage, nor its rows for table names.
    private static func checkMainTree(_ fd: Int32, pageSize: Int, path: String) throws(StorageError) -> [[UInt8]] {
        let attempts = 50
        for attempt in 1...attempts {
            let metas = try PageWalker.metas(fd: fd, pageSize: pageSize, path: path)
            guard let newest = metas.max(by: { $0.transactionID < $1.transactionID }) else { return [] }
            var walker = PageWalker(fd: fd, path: path, pageSize: pageSize, lastPage: newest.lastPage)
            var damage: StorageError?
            do {
                try walker.walk(newest, tables: false)
            } catch {
                damage = error
            }
            let now = try PageWalker.metas(fd: fd, pageSize: pageSize, path: path).map(\.transactionID).max()
            if now == newest.transactionID {
                if let damage { throw damage }
                return walker.tableNames
            }
            if attempt == attempts { throw damage ?? .lmdb(LMDBError(code: EAGAIN)) }
            if attempt > 10 { usleep(UInt32(attempt) * 100) }  // a writer committing without pause
        }
        return []
    }
}

/// LMDB's meta page (0.9.x layout, 64-bit): each of the two names the page size, the last page used,
/// the roots of the two core B-trees and its transaction id. LMDB itself only checks the magic number
/// and version, then trusts the rest of the newer page.
enum MetaPageLayout {
    static let pageHeader = 16
    static let magic = (offset: pageHeader, value: UInt32(0xBEEF_C0DE))
    static let version = (offset: pageHeader + 4, value: UInt32(1))
    static let pageSize = pageHeader + 24  // mm_dbs[FREE_DBI].md_pad
    /// The records (`MDB_db`) of FREE_DBI and MAIN_DBI.
    static let records = [pageHeader + 24, pageHeader + 24 + 48]
    static let roots = [pageHeader + 24 + 40, pageHeader + 24 + 48 + 40]  // md_root of FREE_DBI, MAIN_DBI
    static let depths = [pageHeader + 24 + 6, pageHeader + 24 + 48 + 6]
    static let lastPage = pageHeader + 24 + 96
    static let transactionID = pageHeader + 24 + 104
    /// The bytes holding every field above.
    static let size = transactionID + 8
    static let flagsOffset = 10
    static let metaFlag: UInt16 = 0x08
}
