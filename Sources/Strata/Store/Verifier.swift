/// What `verify()` needs to know of one type's tables, whether it comes from the app's model classes
/// (`TableBinding`) or from the schema stored in the file alone (`DynamicStore`).
struct VerifiedType {
    let name: String
    let table: Table
    let keyKind: KeyKind
    let columnNames: [String]
    let primaryKeyColumn: Int?
    let primaryKeyType: PropertyType?
    let indexes: [IndexBinding]
    let links: [LinkBinding]
    let fullText: [FullTextIndex]
    let vectors: [VectorIndex]
    /// Decodes one column as its property would be read; throws what makes it unreadable.
    let decodeColumn: (_ column: Int, _ bytes: UnsafeRawBufferPointer?) throws(StoreError) -> Void

    init(_ binding: TableBinding) {
        name = binding.name
        table = binding.table
        keyKind = binding.keyKind
        columnNames = binding.columnNames
        primaryKeyColumn = binding.primaryKeyColumn
        primaryKeyType = binding.primaryKeyType
        indexes = binding.indexes
        links = binding.links
        fullText = binding.derived.fullText
        vectors = binding.derived.vectors
        let kinds = binding.columnAccessors.map(\.kind)
        decodeColumn = { (column, bytes) throws(StoreError) in
            _ = try kinds[column].decodeForDescription(bytes, in: _DecodeContext(owner: nil, column: column))
        }
    }

    init(_ stored: StoredSchema.StoredType, tables: StoredTables) {
        name = stored.name
        table = tables.objects
        primaryKeyColumn = stored.properties.firstIndex(where: \.isPrimaryKey)
        primaryKeyType = primaryKeyColumn.map { stored.properties[$0].type }
        keyKind = primaryKeyType?.keyKind ?? .integer
        columnNames = stored.properties.map(\.name)
        indexes = tables.indexes
        links = tables.links
        fullText = tables.fullText
        vectors = tables.vectors
        let types = stored.properties.map(\.type)
        decodeColumn = { (column, bytes) throws(StoreError) in
            _ = try DynamicValue.decode(bytes, type: types[column]) { (_, _) throws(StoreError) in nil }
        }
    }

    func describe(_ key: RowKey) -> String {
        key.describe(as: keyKind, signed: primaryKeyType?.isSignedInteger ?? false)
    }
}

/// How far a verification has got, for progress bars.
public struct VerificationProgress: Sendable, Equatable {
    /// Rows checked so far, over all types.
    public let checkedRows: Int
    /// Rows of all types.
    public let totalRows: Int

    /// Progress of `checkedRows` out of `totalRows`.
    public init(checkedRows: Int, totalRows: Int) {
        self.checkedRows = checkedRows
        self.totalRows = totalRows
    }
}

/// Walks every row of every type: each row decodes, its primary key matches its key, each index
/// holds it, each link resolves and has its backlink; then counts index and backlink entries.
struct Verifier {
    let types: [VerifiedType]
    var progress: ((VerificationProgress) -> Void)?

    /// Reports progress about every this many rows.
    private static var progressStride: Int { 1024 }

    func run<Reader: SnapshotReading & ~Copyable>(on reader: borrowing Reader) throws(StoreError) {
        var totalRows = 0
        try StoreError.mapping { () throws(LMDBError) in
            for type in types { totalRows += try reader.count(type.table) }
        }
        var checked = 0
        progress?(VerificationProgress(checkedRows: 0, totalRows: totalRows))
        for type in types {
            try verifyRows(of: type, reader) { rows in
                checked += rows
                progress?(VerificationProgress(checkedRows: checked, totalRows: totalRows))
            }
        }
        progress?(VerificationProgress(checkedRows: checked, totalRows: max(checked, totalRows)))
    }

    private func verifyRows<Reader: SnapshotReading & ~Copyable>(
        of type: VerifiedType, _ reader: borrowing Reader, advanced: (Int) -> Void
    ) throws(StoreError) {
        var damage: StoreError?
        var rows = 0
        var linkCounts = Array(repeating: 0, count: type.links.count)
        var fullText = Array(repeating: FullTextFingerprint(), count: type.fullText.count)
        var vectors = Array(repeating: 0, count: type.vectors.count)
        let linkTargets = type.links.map { link in types.first { $0.name == link.target } }  // once, not per row
        do {
            try reader.withCursor(type.table) { (cursor) throws(LMDBError) in
                var entry = try cursor.first()
                while let current = entry, damage == nil {
                    rows += 1
                    if rows % Self.progressStride == 0 { advanced(Self.progressStride) }
                    do throws(StoreError) {
                        try verifyRow(
                            key: current.key, value: current.value, type: type, linkTargets: linkTargets, reader,
                            linkCounts: &linkCounts, fullText: &fullText, vectors: &vectors)
                    } catch {
                        damage = error
                    }
                    entry = try cursor.next()
                }
            }
            if let damage { throw damage }
            advanced(rows % Self.progressStride)
            for (link, expected) in zip(type.links, linkCounts) {
                let entries = try reader.count(link.table)
                guard entries == expected else {
                    throw StoreError.corrupted(
                        "backlinks of \(type.name).\(link.property) have \(entries) entries for \(expected) links")
                }
            }
            for (index, expected) in zip(type.fullText, fullText) {
                try Self.verify(index, expected: expected, rows: rows, reader)
            }
            for (index, expected) in zip(type.vectors, vectors) {
                try Self.verifyGraph(index, vectors: expected, reader)
            }
            for index in type.indexes {
                let entries = try reader.count(index.table)
                guard entries == rows else {
                    throw StoreError.corrupted(
                        "index \(type.name).\(index.property) has \(entries) entries for \(rows) rows")
                }
            }
        } catch {
            throw StoreError(wrapping: error)
        }
    }

    private func verifyRow<Reader: SnapshotReading & ~Copyable>(
        key rawKey: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, type: VerifiedType,
        linkTargets: [VerifiedType?], _ reader: borrowing Reader, linkCounts: inout [Int],
        fullText: inout [FullTextFingerprint], vectors: inout [Int]
    ) throws(StoreError) {
        let key: RowKey
        do {
            key = try RowKey(stored: rawKey, kind: type.keyKind)
        } catch {
            throw .corrupted("\(type.name): a key is damaged: \(error)")
        }
        let name = "\(type.name)[\(type.describe(key))]"
        let row: RowView
        do {
            row = try RowView(validatingStored: value, key: rawKey, expectedColumns: type.columnNames.count)
        } catch {
            throw .corrupted("\(name): \(error)")
        }
        for column in type.columnNames.indices {
            do {
                try type.decodeColumn(column, row.column(column))
            } catch {
                throw .corrupted("\(name).\(type.columnNames[column]): \(error)")
            }
        }
        if let column = type.primaryKeyColumn, let keyType = type.primaryKeyType {
            // A column that cannot be read as a key derives nothing, which the check below reports.
            let derived = (try? row.column(column)).flatMap { $0 }.flatMap {
                try? KeyEncoding.rowKey(column: $0, type: keyType)
            }
            guard derived == key else { throw .corrupted("\(name): the primary key column does not match the key") }
        }
        var indexKey: [UInt8] = []
        for index in type.indexes {
            do {
                try KeyEncoding.indexKey(column: row.column(index.column), type: index.type, into: &indexKey)
            } catch {
                throw .corrupted("\(name).\(index.property): \(error)")
            }
            guard try Self.contains(index.table, key: indexKey, value: rawKey, reader) else {
                throw .corrupted("\(name).\(index.property) is missing from its index")
            }
        }
        for (position, index) in type.fullText.enumerated() {
            try Self.addPostings(of: row, key: rawKey, index, name: name, reader, to: &fullText[position])
        }
        for (position, index) in type.vectors.enumerated()
        where try Self.checkVector(of: row, key: rawKey, index, name: name, reader) {
            vectors[position] += 1
        }
        for (position, link) in type.links.enumerated() {
            let targets = try link.targets(in: row, at: name)
            linkCounts[position] += targets.count
            guard let target = linkTargets[position] else { continue }
            for targetKey in targets {
                let present: Bool
                do {
                    present = try targetKey.withBytes { (targetKey) throws(LMDBError) in
                        try reader.get(target.table, key: targetKey) != nil
                    }
                } catch {
                    throw StoreError(error)
                }
                guard present, try Self.contains(link.table, key: targetKey, value: rawKey, reader) else {
                    throw .corrupted("\(name).\(link.property) links to a missing \(link.target) or lacks its backlink")
                }
            }
        }
    }

    /// Adds the postings a row's text implies to `fingerprint`; checks its document number maps back.
    private static func addPostings<Reader: SnapshotReading & ~Copyable>(
        of row: RowView, key rawKey: UnsafeRawBufferPointer, _ index: FullTextIndex, name: String,
        _ reader: borrowing Reader, to fingerprint: inout FullTextFingerprint
    ) throws(StoreError) {
        let text: String?
        do throws(RowDamage) {
            text = try row.column(index.column).map { (bytes) throws(RowDamage) in
                guard let text = UTF8Text.string(bytes) else { throw RowDamage("a string is not UTF-8") }
                return text
            }
        } catch {
            throw .corrupted("\(name).\(index.property): \(error)")
        }
        let terms = DocumentTerms(text, tokenizer: try index.readingTokenizer())
        guard !terms.isEmpty else { return }
        var document = index.integerDocument(ofRow: rawKey)
        if let numbering = index.numbering {
            do throws(LMDBError) {
                if let stored = try reader.get(numbering.rows, key: rawKey), stored.count == 8 {
                    let number = UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
                    let back = try FullTextIndex.documentKey(number).withBytes { (key) throws(LMDBError) in
                        try reader.get(numbering.documents, key: key).map(Array.init)
                    }
                    if back.map({ $0.elementsEqual(rawKey) }) == true { document = number }
                }
            } catch {
                throw StoreError(error)
            }
        }
        guard let document else { throw index.damage("\(name) has no document number") }
        fingerprint.add(document: document, terms)
    }

    /// Checks a full-text index's blocks and statistics against what the rows imply.
    private static func verify<Reader: SnapshotReading & ~Copyable>(
        _ index: FullTextIndex, expected: FullTextFingerprint, rows: Int, _ reader: borrowing Reader
    ) throws(StoreError) {
        let stored: (fingerprint: FullTextFingerprint, statistics: FullTextStatistics?)
        do {
            stored = try reader.withCursor(index.terms) { (cursor) throws(LMDBError) in
                Result { () throws(StoreError) in try FullTextFingerprint.stored(index, cursor) }
            }.get()
        } catch {
            throw StoreError(wrapping: error)
        }
        let statistics = stored.statistics ?? FullTextStatistics()
        guard statistics.documents == UInt64(rows), statistics.length == expected.length else {
            throw index.damage(
                "its statistics count \(statistics.documents) documents of \(statistics.length) terms, the rows "
                    + "\(rows) of \(expected.length)")
        }
        guard stored.fingerprint.postings == expected.postings, stored.fingerprint.sum == expected.sum else {
            throw index.damage(
                "it holds \(stored.fingerprint.postings) postings, the rows imply \(expected.postings)"
                    + (stored.fingerprint.postings == expected.postings ? ", and some differ" : ""))
        }
        if let numbering = index.numbering {
            do throws(LMDBError) {
                let documents = try reader.count(numbering.documents)
                let numbered = try reader.count(numbering.rows)
                guard documents == numbered, documents == expected.documents else {
                    throw LMDBError.corrupted
                }
            } catch {
                throw index.damage("its document numbers do not match its rows")
            }
        }
    }

    /// Whether a table with duplicates holds the pair.
    private static func contains<Reader: SnapshotReading & ~Copyable>(
        _ table: Table, key: [UInt8], value: UnsafeRawBufferPointer, _ reader: borrowing Reader
    ) throws(StoreError) -> Bool {
        do {
            return try reader.withCursor(table) { (cursor) throws(LMDBError) -> Bool in
                try key.withBytes { (key) throws(LMDBError) -> Bool in try cursor.find(key: key, value: value) != nil }
            }
        } catch {
            throw StoreError(error)
        }
    }
}
