/// Where the entries derived from rows are written: the write transaction of a Store's write
/// (`WriteSession`) or of a migration (`MigrationContext`).
protocol DerivedEntryWriting: AnyObject, VectorWriting {
    /// Adds the pair `key` → `rowKey` to a table with duplicates.
    func putEntry(_ table: Table, key: UnsafeRawBufferPointer, rowKey: UnsafeRawBufferPointer) throws(StoreError)
    /// Removes the pair `key` → `rowKey`; false when it was not there.
    @discardableResult
    func deleteEntry(_ table: Table, key: UnsafeRawBufferPointer, rowKey: UnsafeRawBufferPointer) throws(StoreError)
        -> Bool
}

/// The entries a row implies in the tables derived from its type's rows: per index, its index key →
/// the row key; per link, each distinct target key → the row key (in the link's backlink table).
/// Every row change changes them with it, through these functions only: Store writes (Core) and
/// migrations (rebuilding a type's indexes and backlinks) share them.
struct DerivedEntries: Sendable {
    let indexes: [IndexBinding]
    let links: [LinkBinding]
    /// Full-text indexes: their postings change with the text (`FullTextChanges`).
    var fullText: [FullTextIndex] = []
    /// Vector indexes: their graphs change with the vector (`VectorGraph`).
    var vectors: [VectorIndex] = []

    var isEmpty: Bool { indexes.isEmpty && links.isEmpty && fullText.isEmpty && vectors.isEmpty }

    /// Adds the entries of a new row.
    func insert(
        of row: RowView, rowKey: UnsafeRawBufferPointer, into writer: some DerivedEntryWriting, buffer: inout [UInt8],
        at location: @autoclosure () -> String
    ) throws(StoreError) {
        for index in indexes {
            try indexKey(of: row, index, into: &buffer, at: location())
            try buffer.withBytes { (indexKey) throws(StoreError) in
                try writer.putEntry(index.table, key: indexKey, rowKey: rowKey)
            }
        }
        for link in links {
            for target in try link.targets(in: row, at: location()) {
                try target.withBytes { (target) throws(StoreError) in
                    try writer.putEntry(link.table, key: target, rowKey: rowKey)
                }
            }
        }
        for index in fullText {
            let text: UnsafeRawBufferPointer?
            do {
                text = try row.column(index.column)
            } catch {
                throw .damaged(at: "\(location()).\(index.property)", error)
            }
            try writer.fullTextChanges.add(utf8: text, rowKey: rowKey, to: index, in: writer)
        }
        for index in vectors {
            let vector = try index.vector(inColumn: try Self.column(of: row, index, at: location()))
            try VectorGraph(index: index, storage: writer).add(vector, rowKey: rowKey)
        }
    }

    /// Removes the entries of a row being deleted.
    func delete(
        of row: RowView, rowKey: UnsafeRawBufferPointer, from writer: some DerivedEntryWriting, buffer: inout [UInt8],
        at location: @autoclosure () -> String
    ) throws(StoreError) {
        try checkIndexKeys(of: row, buffer: &buffer, at: location())
        for index in indexes {
            try indexKey(of: row, index, into: &buffer, at: location())
            try buffer.withBytes { (indexKey) throws(StoreError) in
                _ = try writer.deleteEntry(index.table, key: indexKey, rowKey: rowKey)
            }
        }
        for link in links {
            for target in try link.targets(in: row, at: location()) {
                try target.withBytes { (target) throws(StoreError) in
                    _ = try writer.deleteEntry(link.table, key: target, rowKey: rowKey)
                }
            }
        }
        for index in fullText {
            let text = try Self.text(of: row, index, at: location())
            try writer.fullTextChanges.remove(text, rowKey: rowKey, from: index, in: writer)
        }
        for index in vectors {
            try VectorGraph(index: index, storage: writer).remove(rowKey: rowKey)
        }
    }

    /// Moves the entries of the columns that differ between `old` and `new` (a replaced row).
    func move(
        from old: RowView, to new: RowView, rowKey: UnsafeRawBufferPointer, in writer: some DerivedEntryWriting,
        buffers: inout (old: [UInt8], new: [UInt8]), at location: @autoclosure () -> String
    ) throws(StoreError) {
        try checkIndexKeys(of: old, buffer: &buffers.old, at: location())
        for index in indexes where try !Self.columnEquals(old, new, index.column, at: location()) {
            try indexKey(of: old, index, into: &buffers.old, at: location())
            try indexKey(of: new, index, into: &buffers.new, at: location())
            guard buffers.old != buffers.new else { continue }
            try buffers.old.withBytes { (indexKey) throws(StoreError) in
                _ = try writer.deleteEntry(index.table, key: indexKey, rowKey: rowKey)
            }
            try buffers.new.withBytes { (indexKey) throws(StoreError) in
                try writer.putEntry(index.table, key: indexKey, rowKey: rowKey)
            }
        }
        for link in links where try !Self.columnEquals(old, new, link.column, at: location()) {
            let before = try link.targets(in: old, at: location())
            let after = try link.targets(in: new, at: location())
            for target in before.subtracting(after) {
                try target.withBytes { (target) throws(StoreError) in
                    _ = try writer.deleteEntry(link.table, key: target, rowKey: rowKey)
                }
            }
            for target in after.subtracting(before) {
                try target.withBytes { (target) throws(StoreError) in
                    try writer.putEntry(link.table, key: target, rowKey: rowKey)
                }
            }
        }
        for index in fullText where try !Self.columnEquals(old, new, index.column, at: location()) {
            let oldText = try Self.text(of: old, index, at: location())
            let newText = try Self.text(of: new, index, at: location())
            try writer.fullTextChanges.replace(oldText, with: newText, rowKey: rowKey, in: index, storage: writer)
        }
        for index in vectors where try !Self.columnEquals(old, new, index.column, at: location()) {
            let vector = try index.vector(inColumn: try Self.column(of: new, index, at: location()))
            let graph = VectorGraph(index: index, storage: writer)
            try graph.remove(rowKey: rowKey)
            try graph.add(vector, rowKey: rowKey)
        }
    }

    /// Throws `.invalidArgument` when a row's vector cannot be indexed (its length is not the
    /// index's, it holds a NaN): checked before the row is written, so a refused write changes nothing.
    func checkVectors(of row: RowView, at location: @autoclosure () -> String) throws(StoreError) {
        for index in vectors { _ = try index.vector(inColumn: try Self.column(of: row, index, at: location())) }
    }

    /// A vector indexed column's bytes (nil: null).
    private static func column(of row: RowView, _ index: VectorIndex, at location: @autoclosure () -> String)
        throws(StoreError) -> UnsafeRawBufferPointer?
    {
        do {
            return try row.column(index.column)
        } catch {
            throw .damaged(at: "\(location()).\(index.property)", error)
        }
    }

    /// The text a full-text indexed column holds (nil: null).
    ///
    /// - Throws: `.corrupted` naming the property when its bytes are not UTF-8.
    private static func text(of row: RowView, _ index: FullTextIndex, at location: @autoclosure () -> String)
        throws(StoreError) -> String?
    {
        do throws(RowDamage) {
            guard let bytes = try row.column(index.column) else { return nil }
            guard let text = UTF8Text.string(bytes) else { throw RowDamage("a string is not UTF-8") }
            return text
        } catch {
            throw .damaged(at: "\(location()).\(index.property)", error)
        }
    }

    /// Throws `.corrupted` if an index key of a stored row cannot be computed: checked before the
    /// first change, so that a damaged row never leaves its indexes half updated.
    private func checkIndexKeys(of row: RowView, buffer: inout [UInt8], at location: @autoclosure () -> String)
        throws(StoreError)
    {
        for index in indexes { try indexKey(of: row, index, into: &buffer, at: location()) }
        for index in fullText { _ = try Self.text(of: row, index, at: location()) }
    }

    private func indexKey(
        of row: RowView, _ index: IndexBinding, into buffer: inout [UInt8], at location: @autoclosure () -> String
    ) throws(StoreError) {
        do throws(RowDamage) {
            try KeyEncoding.indexKey(column: row.column(index.column), type: index.type, into: &buffer)
        } catch {
            throw .damaged(at: "\(location()).\(index.property)", error)
        }
    }

    /// Whether a column holds the same bytes in both rows.
    static func columnEquals(_ old: RowView, _ new: RowView, _ column: Int, at location: @autoclosure () -> String)
        throws(StoreError) -> Bool
    {
        do {
            return try old.columnEquals(column, new, column)
        } catch {
            throw .damaged(at: location(), error)
        }
    }
}

extension LinkBinding {
    /// The distinct target keys a row's link or collection column holds (stored key bytes).
    func targets(in row: RowView, at location: @autoclosure () -> String) throws(StoreError) -> Set<[UInt8]> {
        do throws(RowDamage) {
            guard let bytes = try row.column(column) else { return [] }
            guard isCollection else { return [Array(bytes)] }
            return Set(try CollectionLinks.targets(bytes, type: type).map { Array($0) })
        } catch {
            throw .damaged(at: "\(location()).\(property)", error)
        }
    }
}
