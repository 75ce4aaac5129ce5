/// The transactions and tables of a schema change: the write that makes it, and (when rows are
/// converted or a migration block runs) a read of the file as it was, for old values.
final class MigrationContext {
    var write: WriteTransaction?
    var read: ReadTransaction?
    var tables: [String: Table]
    let old: StoredSchema?
    let new: StoredSchema
    let code: [String: ObjectSchema]
    /// The first failure of a call that cannot throw (a `MigrationObject` subscript): the migration is
    /// abandoned with it once the block returns.
    private(set) var failure: StoreError?
    /// Types whose primary key changes: their rows keep their old keys until the block has run, then
    /// are keyed anew (`rekeyRows`), so the block may set the new key's property.
    var rekeyed: Set<String> = []
    /// Per type, the keys of the objects `Migration.create` made: no old object's, even when one had
    /// the same key (enumeration visits old objects only).
    var created: [String: Set<[UInt8]>] = [:]
    /// What rebuilding the full-text indexes gave them and did not write yet (written before the commit).
    let fullTextChanges = FullTextChanges()

    init(
        write: consuming WriteTransaction, tables: [String: Table], old: StoredSchema?, new: StoredSchema,
        code: [ObjectSchema]
    ) {
        self.write = .some(write)
        self.tables = tables
        self.old = old
        self.new = new
        self.code = Dictionary(uniqueKeysWithValues: code.map { ($0.name, $0) })
    }

    /// Records `error` as the migration's failure (the first one wins) and returns it.
    @discardableResult
    func fail(_ error: StoreError) -> StoreError {
        if failure == nil { failure = error }
        return failure!
    }

    /// - Throws: the recorded failure, so that work stops once the migration is doomed.
    func checkNotFailed() throws(StoreError) {
        if let failure { throw failure }
    }

    func table(_ name: String) throws(StoreError) -> Table {
        guard let table = tables[name] else { throw .corrupted("the file lacks the table \(name)") }
        return table
    }

    // MARK: Write transaction

    func get(_ table: Table, key: [UInt8]) throws(StoreError) -> [UInt8]? {
        return try StoreError.mapping {
            try key.withBytes { (key) throws(LMDBError) in try write!.get(table, key: key).map { Array($0) } }
        }
    }

    /// Every value stored under `key` in a table with duplicates (an index: the row keys holding one
    /// index key), copied.
    func duplicates(_ table: Table, key: [UInt8]) throws(StoreError) -> [[UInt8]] {
        try StoreError.mapping { () throws(LMDBError) -> [[UInt8]] in
            try key.withBytes { (needle) throws(LMDBError) -> [[UInt8]] in
                try write!.withCursor(table) { (cursor) throws(LMDBError) -> [[UInt8]] in
                    var values: [[UInt8]] = []
                    _ = try cursor.walk(from: cursor.seek(atLeast: needle), while: { $0.elementsEqual(needle) }) {
                        (entry) throws(Never) in values.append(Array(entry.value))
                    }
                    return values
                }
            }
        }
    }

    @discardableResult
    /// Stores `row` sealed (`RowSeal`) under `key`; false when `.noOverwrite` found the key.
    func putRow(_ table: Table, key: [UInt8], row: UnsafeRawBufferPointer, options: PutOptions = []) throws(StoreError)
        -> Bool
    {
        return try StoreError.mapping {
            try key.withBytes { (key) throws(LMDBError) in
                try write!.putSealedRow(table, key: key, row: row, options: options)
            }
        }
    }

    func delete(_ table: Table, key: [UInt8]) throws(StoreError) {
        _ = try StoreError.mapping {
            try key.withBytes { (key) throws(LMDBError) in try write!.delete(table, key: key) }
        }
    }

    /// Empties a table (tables are never deleted: LMDB closes a deleted table's handle at once, even
    /// if the write is then abandoned).
    func empty(_ table: Table) throws(StoreError) {
        try StoreError.mapping { try write!.drop(table) }
    }

    /// Up to `limit` pairs of a table after `after` (from the start when nil), copied.
    func pairs(_ table: Table, after: [UInt8]?, limit: Int) throws(StoreError) -> [(key: [UInt8], value: [UInt8])] {
        try StoreError.mapping { () throws(LMDBError) in try write!.pairs(table, after: after, limit: limit) }
    }

    // MARK: The file as it was

    /// Visits every pair of an old table, as the file was before the change.
    func forEachOld(
        _ table: Table, _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(StoreError) -> Void
    ) throws(StoreError) {
        let failure: StoreError?
        failure = try StoreError.mapping { () throws(LMDBError) in
            try read!.withCursor(table) { (cursor) throws(LMDBError) -> StoreError? in
                try cursor.walk(from: cursor.first()) { (entry) throws(StoreError) in try visit(entry.key, entry.value)
                }
            }
        }
        if let failure { throw failure }
    }

    func getOld(_ table: Table, key: [UInt8]) throws(StoreError) -> [UInt8]? {
        return try StoreError.mapping {
            try key.withBytes { (key) throws(LMDBError) in try read!.get(table, key: key).map { Array($0) } }
        }
    }
}

extension StoredSchema.StoredType {
    func column(named name: String) -> Int? {
        properties.firstIndex { $0.name == name }
    }
}

extension MigrationContext: FullTextWriting {
    func withIndexCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(StoreError) -> R {
        try StoreError.mapping { () throws(LMDBError) in try write!.withCursor(table, body) }
    }

    func value(in table: Table, at key: [UInt8]) throws(StoreError) -> [UInt8]? {
        try get(table, key: key)
    }

    func put(in table: Table, key: [UInt8], value: [UInt8], appending: Bool) throws(StoreError) {
        _ = try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in
                try value.withBytes { (value) throws(LMDBError) in try write!.put(table, key: key, value: value) }
            }
        }
    }

    /// Never appends (a rebuild's puts search their place: one code path, whatever the file).
    var keysInOrder: Bool { false }

    func entryCount(of table: Table) throws(StoreError) -> Int {
        try StoreError.mapping { () throws(LMDBError) in try write!.count(table) }
    }

    func delete(in table: Table, key: [UInt8]) throws(StoreError) {
        try delete(table, key: key)
    }
}

extension MigrationContext: DerivedEntryWriting {
    func putEntry(_ table: Table, key: UnsafeRawBufferPointer, rowKey: UnsafeRawBufferPointer) throws(StoreError) {
        _ = try StoreError.mapping { () throws(LMDBError) in try write!.put(table, key: key, value: rowKey) }
    }

    @discardableResult
    func deleteEntry(_ table: Table, key: UnsafeRawBufferPointer, rowKey: UnsafeRawBufferPointer) throws(StoreError)
        -> Bool
    {
        try StoreError.mapping { () throws(LMDBError) in try write!.delete(table, key: key, value: rowKey) }
    }
}

/// A row's bytes checked against a type's column count.
func checkedRow(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, _ type: StoredSchema.StoredType)
    throws(StoreError) -> RowView
{
    do {
        return try RowView(validatingStored: stored, key: key, expectedColumns: type.properties.count)
    } catch {
        throw .corrupted("a row of \(type.name): \(error)")
    }
}

func column(_ row: RowView, _ index: Int, of type: StoredSchema.StoredType) throws(StoreError)
    -> UnsafeRawBufferPointer?
{
    do {
        return try row.column(index)
    } catch {
        throw .corrupted("\(type.name).\(type.properties[index].name): \(error)")
    }
}

extension MigrationContext: VectorWriting {
    func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try write!.get(table, key: key)
    }

    func withCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(LMDBError) -> R {
        try write!.withCursor(table, body)
    }
}
