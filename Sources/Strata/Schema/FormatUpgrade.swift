/// Brings a file written by an older Strata up to the current format, in one write, the first time
/// it is opened for writing.
///
/// Format 1 stored rows without seals; format 2 (`RowSeal`) adds to each row the CRC-32C of its key
/// and bytes. Every row is checked as it is sealed (a damaged row must not be blessed with a valid
/// seal): damage leaves the file as it was and throws `.corrupted`.
enum FormatUpgrade {
    /// The oldest format this Strata upgrades.
    static let oldestUpgradable: UInt32 = 1

    /// Upgrades the file (`SchemaBinder.readStoredState` found it of an older format; this checks
    /// again under the writer lock, since another process may have upgraded it meanwhile).
    ///
    /// - Throws: `.readOnly` when the file needs upgrading but was opened read-only,
    ///   `.alreadyInWriteTransaction` when this thread holds the writer lock, `.corrupted` for a
    ///   damaged row (nothing is written), `.storage`.
    static func upgrade(_ environment: Environment) throws(StoreError) {
        guard !environment.options.readOnly else { throw .readOnly }
        guard !environment.isWriterOnCurrentThread else { throw .alreadyInWriteTransaction }
        var transaction = try StoreError.mapping { () throws(LMDBError) in try WriteTransaction(environment) }
        guard try sealAll(&transaction) else { return }  // dropped: aborts
        do throws(LMDBError) {
            try transaction.commit()
        } catch {
            throw StoreError(error)
        }
    }

    /// Seals every row and writes the new format version; false when there was nothing to do
    /// (another process upgraded the file meanwhile).
    private static func sealAll(_ transaction: inout WriteTransaction) throws(StoreError) -> Bool {
        let dbi = try StoreError.mapping { () throws(LMDBError) in
            try transaction.openTable(named: TableName.meta, flags: [], create: false)
        }
        guard let dbi else { return false }
        let meta = Table(dbi: dbi, flags: [])
        guard let format = try read(MetaKey.format, in: meta, &transaction), format.count == 4,
            format.withUnsafeBytes({ UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }) < StrataFormat.version
        else { return false }
        if let schema = try read(MetaKey.schema, in: meta, &transaction) {
            let decoded = try schema.withBytes { (bytes) throws(StoreError) in try StoredSchema(decoding: bytes) }
            for type in decoded.types { try sealRows(of: type, &transaction) }
        }
        try StoreError.mapping { () throws(LMDBError) in
            _ = try withBytes(of: StrataFormat.version.littleEndian) { (value) throws(LMDBError) in
                try Array(MetaKey.format.utf8).withBytes { (key) throws(LMDBError) in
                    try transaction.put(meta, key: key, value: value)
                }
            }
        }
        return true
    }

    private static func read(_ key: String, in meta: Table, _ transaction: inout WriteTransaction) throws(StoreError)
        -> [UInt8]?
    {
        try StoreError.mapping { () throws(LMDBError) in
            try Array(key.utf8).withBytes { (key) throws(LMDBError) in
                try transaction.get(meta, key: key).map(Array.init)
            }
        }
    }

    /// Rewrites every row of `type` with its seal, a batch of copies at a time (a cursor's pairs move
    /// when the table changes).
    private static func sealRows(of type: StoredSchema.StoredType, _ transaction: inout WriteTransaction)
        throws(StoreError)
    {
        let name = TableName.objects(type.name)
        guard
            let dbi = try StoreError.mapping({ () throws(LMDBError) in
                try transaction.openTable(named: name, flags: [], create: false)
            })
        else { throw .corrupted("the schema names table \(name), which the file lacks") }
        let table = Table(dbi: dbi, flags: [])
        var after: [UInt8]?
        while true {
            let batch = try StoreError.mapping { () throws(LMDBError) in
                try transaction.pairs(table, after: after, limit: 1024)
            }
            guard let last = batch.last else { return }
            after = last.key
            for (key, row) in batch {
                try row.withBytes { (row) throws(StoreError) in
                    do {
                        _ = try RowView(validating: row, expectedColumns: type.properties.count)
                    } catch {
                        throw .corrupted(
                            "\(type.name): a row of format 1 is damaged, the file was not upgraded: \(error)")
                    }
                    try StoreError.mapping { () throws(LMDBError) in
                        try key.withBytes { (key) throws(LMDBError) in
                            _ = try transaction.putSealedRow(table, key: key, row: row)
                        }
                    }
                }
            }
        }
    }
}
