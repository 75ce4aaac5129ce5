/// A full-text index of one `String` property (`@Persisted(indexed: .fullText)`) in one file: its
/// tables and tokenizer.
///
/// Tables:
/// - `terms`: posting blocks (`PostingBlock`) under `term ‖ 0x00 ‖ first document`, and the index's
///   statistics under the one-byte key `0x00` (`FullTextStatistics`), which sorts before every term.
/// - `documents` and `rows` (types whose keys are not integers): document number → row key and row
///   key → document number. A type with integer keys (row ids, integer primary keys) numbers each
///   document by its key's integer, and needs neither.
struct FullTextIndex: Sendable {
    let typeName: String
    let property: String
    /// The property's column in the type's rows.
    let column: Int
    let settings: FullTextSettings
    let terms: Table
    /// Document number → row key, and row key → document number; nil for integer keys.
    let numbering: (documents: Table, rows: Table)?

    /// What reads its texts and queries: nil when the file names a tokenizer this process has not
    /// declared (`readingTokenizer()` throws then).
    let tokenizer: IndexTokenizer?

    /// The tokenizer, for a write or a check of the index.
    ///
    /// - Throws: `.schemaMismatch` when the file names a tokenizer this process has not declared.
    func readingTokenizer() throws(StoreError) -> IndexTokenizer {
        // Declared since the file opened: found now.
        guard let tokenizer = tokenizer ?? settings.tokenizer else {
            throw .schemaMismatch(settings.missingTokenizer(of: name))
        }
        return tokenizer
    }

    /// The index's name in errors: `Note.body`.
    var name: String { "\(typeName).\(property)" }

    /// `.corrupted` naming the index and what is wrong with it (`salvage` rebuilds an index).
    func damage(_ detail: some CustomStringConvertible) -> StoreError {
        .corrupted("the full-text index of \(name) is damaged: \(detail)")
    }

    /// The document number of a row key of an integer-keyed type (nil for other types).
    func integerDocument(ofRow key: UnsafeRawBufferPointer) -> UInt64? {
        guard numbering == nil, key.count == 8 else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }

    static func documentKey(_ document: UInt64) -> [UInt8] {
        withUnsafeBytes(of: document.bigEndian) { Array($0) }
    }
}

/// The counts BM25 weighs by, kept in the terms table under `statisticsKey`: the documents indexed
/// (every row of the type, empty or not), their total length in terms, and the next document number
/// to give out (types whose keys are not integers).
struct FullTextStatistics: Equatable {
    var documents: UInt64 = 0
    var length: UInt64 = 0
    var nextDocument: UInt64 = 1

    static let key: [UInt8] = [0]

    init() {}

    init(_ value: UnsafeRawBufferPointer) throws(RowDamage) {
        var reader = VarintReader(value)
        documents = try reader.next()
        length = try reader.next()
        nextDocument = try reader.next()
        guard reader.remaining == 0 else { throw RowDamage("its statistics have \(value.count) bytes") }
    }

    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        appendVarint(documents, to: &bytes)
        appendVarint(length, to: &bytes)
        appendVarint(nextDocument, to: &bytes)
        return bytes
    }

    /// The mean document length (1 for an empty index, so that a ratio to it stays finite).
    var averageLength: Double { documents == 0 ? 1 : max(Double(length) / Double(documents), 1e-9) }
}

/// What a full-text index is read through: the tables of a Store's snapshot or open write.
protocol FullTextReading {
    func withIndexCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(StoreError) -> R
    /// A copy of the value under `key`, or nil.
    func value(in table: Table, at key: [UInt8]) throws(StoreError) -> [UInt8]?
}

/// What a full-text index is written through: a write transaction (a Store's, a migration's), with
/// the changes it has not written yet.
protocol FullTextWriting: FullTextReading {
    /// `appending`: the key sorts after every key of the table (`MDB_APPEND`); only when `keysInOrder`.
    func put(in table: Table, key: [UInt8], value: [UInt8], appending: Bool) throws(StoreError)
    /// Whether keys are stored in their order (not in an encrypted file), so a put may append.
    var keysInOrder: Bool { get }
    func entryCount(of table: Table) throws(StoreError) -> Int
    func delete(in table: Table, key: [UInt8]) throws(StoreError)
    var fullTextChanges: FullTextChanges { get }
}

extension FullTextWriting {
    func put(in table: Table, key: [UInt8], value: [UInt8]) throws(StoreError) {
        try put(in: table, key: key, value: value, appending: false)
    }
}

extension FullTextReading {
    func statistics(of index: FullTextIndex) throws(StoreError) -> FullTextStatistics {
        guard let stored = try value(in: index.terms, at: FullTextStatistics.key) else { return FullTextStatistics() }
        do {
            return try stored.withBytes { (raw) throws(RowDamage) in try FullTextStatistics(raw) }
        } catch {
            throw index.damage(error)
        }
    }

    /// The row key of a document.
    ///
    /// - Throws: `.corrupted` when the index names a document it has no row key for.
    func rowKey(of document: UInt64, in index: FullTextIndex) throws(StoreError) -> [UInt8] {
        guard let numbering = index.numbering else { return FullTextIndex.documentKey(document) }
        guard let key = try value(in: numbering.documents, at: FullTextIndex.documentKey(document)) else {
            throw index.damage("document \(document) has no row")
        }
        return key
    }
}
