import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Environment {
    /// Writes what the open write `transaction` of this environment sees, its uncommitted changes
    /// included, to a new file at `destination` (as Realm's `writeCopy` inside a write does). LMDB's
    /// own copy (`mdb_env_copy2`) reads the last commit only, so this copies table by table: every
    /// named table with its flags, and the unnamed table's own values, into a new environment, which
    /// is compact by construction. The file appears whole (made beside, then linked into place).
    ///
    /// `encryptionKey`: the copy's key (its values sealed anew under a salt of its own), or nil for a
    /// plain copy; a Store's own copy keeps its file's key.
    ///
    /// - Throws: `.fileAccess` (the destination exists, or cannot be created or written), `.lmdb`,
    ///   `.encryption` for a key of the wrong length or a build without the trait.
    func copy(of transaction: OpaquePointer, to destination: String, encryptionKey: [UInt8]?) throws(StorageError) {
        if fileSize(atPath: destination) != nil { throw .fileAccess(path: destination, code: EEXIST) }
        let record: [UInt8]?
        do {
            record = try encryptionKey.map { (key) throws(EncryptionFailure) in try FileSealing.newRecord(key: key) }
        } catch {
            throw .encryption(path: destination, error)
        }
        let temporary = destination + ".copying-\(getpid())"
        let files = [temporary, temporary + "-lock"]
        for file in files { unlink(file) }  // left by a crashed process with this pid
        defer { for file in files { unlink(file) } }
        do throws(LMDBError) {
            let copy = try LMDB.createEnvironment()
            defer { LMDB.closeEnvironment(copy) }
            try LMDB.setMapSize(copy, options.mapSize)
            try LMDB.setMaxTables(copy, options.maxTables)
            try LMDB.openEnvironment(
                copy, path: temporary, flags: UInt32(MDB_NOSUBDIR | MDB_NOTLS | MDB_NOSYNC), mode: options.fileMode)
            // The copy's own sealing (LMDB's user context of its handle), alive until the handle closes.
            var sealing: FileSealing?
            if let record, let encryptionKey {
                sealing = FileSealing.sealing(ofNew: copy, record: record, key: encryptionKey)
            }
            try withExtendedLifetime(sealing) { () throws(LMDBError) in
                let target = try LMDB.beginTransaction(copy, flags: 0)
                do throws(LMDBError) {
                    try copyTables(of: transaction, into: target, record: record)
                    try LMDB.commit(target)
                } catch {
                    LMDB.abort(target)
                    throw error
                }
            }
            try LMDB.syncEnvironment(copy)
        } catch {
            throw error.code > 0 ? .fileAccess(path: destination, code: error.code) : .lmdb(error)
        }
        guard link(temporary, destination) == 0 else { throw .fileAccess(path: destination, code: errno) }
    }

    /// `copy(of:to:encryptionKey:)` of the newest commit, read in a transaction of its own.
    func copyNewest(to destination: String, encryptionKey: [UInt8]?) throws(StorageError) {
        let snapshot: ReadTransaction
        do {
            snapshot = try ReadTransaction(self)
        } catch {
            throw .lmdb(error)
        }
        try copy(of: snapshot.handle, to: destination, encryptionKey: encryptionKey)
    }

    /// Copies every pair of the unnamed table of `source` into `target`: a named table's record
    /// becomes that table, with its pairs; any other value is copied as it is.
    ///
    /// Tables this process has opened are read in `source`. Others (types no Store of the process
    /// lists, which this write cannot have changed) are opened in a read transaction of their own,
    /// under the table registry's lock, as LMDB requires of `mdb_dbi_open`, and read there.
    private func copyTables(of source: OpaquePointer, into target: OpaquePointer, record: [UInt8]?)
        throws(LMDBError)
    {
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try withCursor(on: Table.main.dbi, in: source) { (cursor) throws(LMDBError) in
            var entry = try LMDB.cursorGet(cursor, key: nil, op: MDB_FIRST)
            while let (key, value) = entry {
                entries.append((Array(key), Array(value)))
                entry = try LMDB.cursorGet(cursor, key: nil, op: MDB_NEXT)
            }
        }
        try withTableRegistry { (registry) throws(LMDBError) in
            var reader: OpaquePointer?  // begun when a table needs it; committed at the end
            var opened: [String: Table] = [:]
            defer {
                if let reader {
                    LMDB.abort(reader)
                    transactionEnded()
                }
            }
            for (key, value) in entries {
                let name = String(decoding: key, as: UTF8.self)
                // Remade by the copy's puts into the type's table, when the copy is encrypted.
                if name.hasPrefix(StrataFormat.blockKeyTablePrefix) { continue }
                var table: (dbi: MDB_dbi, flags: UInt32, in: OpaquePointer)?
                if Array(name.utf8) == key {  // a table's name is UTF-8 text
                    if let known = registry[name] {
                        table = (known.dbi, known.flags.rawValue, source)
                    } else {
                        let snapshot: OpaquePointer
                        if let reader {
                            snapshot = reader
                        } else {
                            snapshot = try beginTransaction(flags: UInt32(MDB_RDONLY))
                            reader = snapshot
                        }
                        if let dbi = try openTableIfAny(named: name, in: snapshot) {
                            let flags = try LMDB.tableFlags(snapshot, dbi) & UInt32(MDB_DUPSORT)
                            opened[name] = Table(dbi: dbi, flags: TableFlags(rawValue: flags))
                            table = (dbi, flags, snapshot)
                        }
                    }
                }
                guard let table else {
                    _ = try key.withBytes { (key) throws(LMDBError) in
                        try value.withBytes { (value) throws(LMDBError) in
                            try LMDB.put(target, Table.main.dbi, key: key, value: value, flags: 0)
                        }
                    }
                    continue
                }
                let copied = try LMDB.openTable(target, name: name, flags: table.flags | UInt32(MDB_CREATE))
                // The meta table's encryption record is the file's own: the copy has its own, or none.
                let skipped: [UInt8]? = name == StrataFormat.metaTable ? Array(StrataFormat.encryptionKey.utf8) : nil
                try copyPairs(
                    of: table.dbi, in: table.in, to: copied, in: target, duplicates: table.flags != 0, skipping: skipped
                )
                if skipped != nil, let record {
                    _ = try record.withBytes { (value) throws(LMDBError) in
                        try skipped!.withBytes { (key) throws(LMDBError) in
                            try LMDB.put(target, copied, key: key, value: value, flags: 0)
                        }
                    }
                }
            }
            if let snapshot = reader.take() {
                defer { transactionEnded() }
                try LMDB.commit(snapshot)  // keeps the handles it opened, for every transaction to come
                registry.merge(opened) { published, _ in published }
            }
        }
    }

    /// The handle of the named table `name`, or nil when `name` is a plain value (or nothing) in the
    /// snapshot of `transaction`.
    private func openTableIfAny(named name: String, in transaction: OpaquePointer) throws(LMDBError) -> MDB_dbi? {
        do {
            return try LMDB.openTable(transaction, name: name, flags: 0)
        } catch .incompatible {
            return nil
        } catch .notFound {
            return nil
        }
    }

    private func withCursor(
        on table: MDB_dbi, in transaction: OpaquePointer, _ body: (OpaquePointer) throws(LMDBError) -> Void
    ) throws(LMDBError) {
        let cursor = try LMDB.openCursor(transaction, table)
        defer { LMDB.closeCursor(cursor) }
        try body(cursor)
    }

    private func copyPairs(
        of table: MDB_dbi, in source: OpaquePointer, to copied: MDB_dbi, in target: OpaquePointer, duplicates: Bool,
        skipping skipped: [UInt8]?
    ) throws(LMDBError) {
        try withCursor(on: table, in: source) { (cursor) throws(LMDBError) in
            // In key order (and value order within a key): each pair goes after the last one.
            let append = UInt32(duplicates ? MDB_APPENDDUP : MDB_APPEND)
            var entry = try LMDB.cursorGet(cursor, key: nil, op: MDB_FIRST)
            while let (key, value) = entry {
                if skipped.map({ !key.elementsEqual($0) }) ?? true {
                    _ = try LMDB.put(target, copied, key: key, value: value, flags: append)
                }
                entry = try LMDB.cursorGet(cursor, key: nil, op: MDB_NEXT)
            }
        }
    }
}
