import Foundation

extension Store {
    /// Copies every intact row of every type of the damaged file at `damaged` into a new file at
    /// `destination`, and reports per type how many rows were saved and which were lost. The new file
    /// has the damaged one's schema, passes `verify()`, and has its indexes and backlinks rebuilt;
    /// links to lost rows are cleared. The damaged file is only read.
    ///
    /// Works without the app's classes (from the schema stored in the file), like SQLite's `.recover`:
    ///
    /// ```swift
    /// let report = try Store.salvage(from: damagedURL, to: recoveredURL)
    /// print(report)  // "Person: 2,998 saved, 2 lost (17, 18)"
    /// ```
    ///
    /// Rows are read by walking the B-trees of the newest readable snapshot around damaged pages: a
    /// row whose checksum does not match is lost (its key reported); a damaged page is left out with
    /// the rows under it (the keys it covered reported).
    ///
    /// An encrypted file is salvaged with its `encryptionKey` into a new file encrypted with the same
    /// key; a row that does not open is lost like one whose checksum does not match. (Rows of pages
    /// cut off from their tree are not adopted in an encrypted file: which table's key opens them
    /// is not known.)
    ///
    /// - Throws: `.invalidArgument` when `destination` exists, `.fileAccess` when a file cannot be
    ///   read or written, `.corrupted` when nothing can be salvaged (no readable meta page, table
    ///   directory or schema), `.encryption` for a missing or wrong key.
    public static func salvage(from damaged: URL, to destination: URL, encryptionKey: Data? = nil) throws(StoreError)
        -> SalvageReport
    {
        let key = encryptionKey.map(Array.init)
        let found = try SalvagedFile(path: damaged.path, encryptionKey: key)
        let path = try StoreError.mapping { try EnvironmentRegistry.canonicalPath(destination.path) }
        guard fileSize(atPath: path) == nil else { throw .invalidArgument("\(path) exists: salvage writes a new file") }
        do {
            try found.write(to: path, encryptionKey: key)
            // What salvage promises: the new file verifies.
            try DynamicStore(path: path, encryptionKey: encryptionKey).verify()
        } catch {
            for file in [path, path + "-lock"] { unlink(file) }
            throw error
        }
        unlink(path + "-lock")
        return found.report
    }
}

/// The rows of a damaged file that can be read, found by a salvaging walk (`PageWalker.salvage`).
private struct SalvagedFile {
    let schema: StoredSchema
    let schemaBytes: [UInt8]
    /// Intact rows by table name: the key and the row without its seal.
    let rows: [String: [(key: [UInt8], row: [UInt8])]]
    let report: SalvageReport

    init(path: String, encryptionKey: [UInt8]?) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileAccess(path: path, code: errno) }
        defer { close(fd) }
        var failures: [String] = []
        for (pageSize, meta) in Self.metaPages(fd: fd, path: path) {
            var rows: [String: [(key: [UInt8], row: [UInt8])]] = [:]
            var lostKeys: [String: [[UInt8]]] = [:]
            var lostRanges: [String: [([UInt8]?, [UInt8]?)]] = [:]
            var orphans: [(key: [UInt8], value: [UInt8])] = []
            var walker = PageWalker(fd: fd, path: path, pageSize: pageSize, lastPage: meta.lastPage)
            walker.salvageKey = encryptionKey
            let visitor = PageWalker.SalvageVisitor(
                row: { table, key, value, sealed in
                    switch sealed {
                    case true?: rows[table, default: []].append((Array(key), Array(value.dropLast(RowSeal.size))))
                    case nil: rows[table, default: []].append((Array(key), Array(value)))
                    case false?: lostKeys[table, default: []].append(Array(key))
                    }
                },
                skipped: { table, _, lower, upper in
                    lostRanges[table, default: []].append((lower.map(Array.init), upper.map(Array.init)))
                },
                orphan: { key, value in orphans.append((Array(key), Array(value))) })
            do {
                try walker.salvage(meta, visitor: visitor)
            } catch .encryption(let path, let failure) {
                throw .encryption(path: path, failure)  // no other snapshot has another key
            } catch {
                failures.append("transaction \(meta.transactionID): \(error)")
                continue
            }
            guard let schemaBytes = walker.schema else {
                failures.append("transaction \(meta.transactionID): its meta table holds no readable schema")
                continue
            }
            let schema = try schemaBytes.withBytes { (bytes) throws(StoreError) in try StoredSchema(decoding: bytes) }
            let sealed = (walker.formatVersion ?? 0) >= StrataFormat.firstSealedVersion
            if walker.sealing == nil {
                Self.adopt(orphans, into: &rows, ranges: lostRanges, schema: schema, sealed: sealed)
            }
            var kept: [String: [(key: [UInt8], row: [UInt8])]] = [:]
            var types: [SalvageReport.TypeReport] = []
            for type in schema.types {
                let table = TableName.objects(type.name)
                var saved: [(key: [UInt8], row: [UInt8])] = []
                var lost = lostKeys[table] ?? []
                for (key, row) in rows[table] ?? [] {
                    // A row that does not decode as its type (possible in a file without seals) is lost too.
                    let intact = row.withUnsafeBytes { bytes in
                        (try? RowView(validating: bytes, expectedColumns: type.properties.count)) != nil
                    }
                    if intact { saved.append((key, row)) } else { lost.append(key) }
                }
                kept[table] = saved
                types.append(
                    SalvageReport.TypeReport(
                        typeName: type.name, saved: saved.count, lostKeys: lost.map { Self.describe($0, of: type) },
                        lostRanges: (lostRanges[table] ?? []).map { lower, upper in
                            "keys from \(lower.map { Self.describe($0, of: type) } ?? "the first") "
                                + "to before \(upper.map { Self.describe($0, of: type) } ?? "the last")"
                        }))
            }
            self.schema = schema
            self.schemaBytes = schemaBytes
            self.rows = kept
            report = SalvageReport(transactionID: Int(meta.transactionID), types: types)
            return
        }
        throw .corrupted("\(path): nothing can be salvaged: \(failures.joined(separator: "; "))")
    }

    /// Gives each row of a page cut off by damage to the table whose damaged page covered its key:
    /// the one table whose lost key range holds the key and whose rows it decodes as, with its seal
    /// matching. A key the table's walk already found keeps the walk's row.
    private static func adopt(
        _ orphans: [(key: [UInt8], value: [UInt8])], into rows: inout [String: [(key: [UInt8], row: [UInt8])]],
        ranges: [String: [([UInt8]?, [UInt8]?)]], schema: StoredSchema, sealed: Bool
    ) {
        guard !orphans.isEmpty else { return }
        var known: [String: Set<[UInt8]>] = [:]
        for (table, tableRows) in rows { known[table] = Set(tableRows.map(\.key)) }
        for (key, value) in orphans {
            let row: [UInt8]
            if sealed {
                let matches = key.withUnsafeBytes { key in
                    value.withUnsafeBytes { (try? RowSeal.open($0, key: key)) != nil }
                }
                guard matches else { continue }
                row = Array(value.dropLast(RowSeal.size))
            } else {
                row = value
            }
            let owners = schema.types.filter { type in
                let inRange = (ranges[TableName.objects(type.name)] ?? []).contains { lower, upper in
                    (lower.map { !key.lexicographicallyPrecedes($0) } ?? true)
                        && (upper.map { key.lexicographicallyPrecedes($0) } ?? true)
                }
                return inRange
                    && row.withUnsafeBytes {
                        (try? RowView(validating: $0, expectedColumns: type.properties.count)) != nil
                    }
            }
            guard owners.count == 1, let owner = owners.first else { continue }
            let table = TableName.objects(owner.name)
            guard known[table, default: []].insert(key).inserted else { continue }
            rows[table, default: []].append((key, row))
        }
    }

    /// The meta pages that look like LMDB's, newest transaction first, each with its page size.
    private static func metaPages(fd: Int32, path: String) -> [(Int, PageWalker.Meta)] {
        var found: [(Int, PageWalker.Meta)] = []
        for pageSize in [4096, 8192, 16384, 65536] {
            guard let metas = try? PageWalker.metas(fd: fd, pageSize: pageSize, path: path) else { continue }
            for (index, meta) in metas.enumerated() {
                guard let header = try? PageWalker.readBytes(fd: fd, offset: index * pageSize, count: 64, path: path),
                    header.load(MetaPageLayout.magic.offset, as: UInt32.self) == MetaPageLayout.magic.value,
                    header.load(MetaPageLayout.pageSize, as: UInt32.self) == UInt32(pageSize),
                    meta.lastPage < 1 << 40, meta.transactionID < 1 << 48  // as `StoreFile` checks them
                else { continue }
                found.append((pageSize, meta))
            }
            if !found.isEmpty { break }
        }
        return found.sorted { $0.1.transactionID > $1.1.transactionID }
    }

    private static func describe(_ key: [UInt8], of type: StoredSchema.StoredType) -> String {
        let primaryKey = type.properties.first(where: \.isPrimaryKey)?.type
        return key.withUnsafeBytes { bytes in
            guard let rowKey = try? RowKey(stored: bytes, kind: primaryKey?.keyKind ?? .integer) else {
                return bytes.map { String($0, radix: 16) }.joined()
            }
            return rowKey.describe(as: primaryKey?.keyKind ?? .integer, signed: primaryKey?.isSignedInteger ?? false)
        }
    }

    /// Writes a new store at `path`: the schema, every kept row (sealed), rebuilt indexes and
    /// backlinks, links to lost rows cleared; in one write.
    func write(to path: String, encryptionKey: [UInt8]?) throws(StoreError) {
        let size = rows.values.reduce(0) { total, rows in total + rows.reduce(0) { $0 + $1.key.count + $1.row.count } }
        let options = EnvironmentOptions(
            mapSize: max(Store.Configuration.defaultMaximumSize, size * 4), maxTables: 4096,
            encryptionKey: encryptionKey)
        let lease = try StoreError.mapping { try EnvironmentRegistry.shared.lease(path: path, options: options) }
        let environment = lease.environment
        var transaction: WriteTransaction? = try StoreError.mapping { () throws(LMDBError) in
            try WriteTransaction(environment)
        }
        var tables: [String: Table] = [:]
        do throws(LMDBError) {
            for (name, flags) in [(TableName.meta, TableFlags())] + schema.types.flatMap(SchemaBinder.tableNames(of:)) {
                guard let dbi = try transaction!.openTable(named: name, flags: flags, create: true) else {
                    throw LMDBError.notFound
                }
                tables[name] = Table(dbi: dbi, flags: flags)
            }
            _ = try schemaBytes.withBytes { (value) throws(LMDBError) in
                try Array(MetaKey.schema.utf8).withBytes { (key) throws(LMDBError) in
                    try transaction!.put(tables[TableName.meta]!, key: key, value: value)
                }
            }
            for (name, tableRows) in rows {
                for (key, row) in tableRows {
                    try key.withBytes { (key) throws(LMDBError) in
                        try row.withBytes { (row) throws(LMDBError) in
                            _ = try transaction!.putSealedRow(tables[name]!, key: key, row: row)
                        }
                    }
                }
            }
        } catch {
            throw StoreError(error)
        }
        let context = MigrationContext(write: transaction.take()!, tables: tables, old: nil, new: schema, code: [])
        try context.rebuildDerivedTables(of: schema.types, previous: nil, repairingLinks: true)
        do throws(LMDBError) {
            try context.write.take()!.commit()
        } catch {
            throw StoreError(error)
        }
    }
}
