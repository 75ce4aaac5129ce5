import Foundation

/// A vector index of one `[Float]` property (`@Persisted(indexed: .vector(…))`) in one file: an HNSW
/// graph (Malkov & Yashunin, 2016) kept in LMDB tables, so it is as durable, crash-safe and shared
/// between processes as the rows, and bounded by the map, not the heap.
///
/// Tables:
/// - `nodes`: per document (8-byte big-endian number), its level and its vector (`VectorNode`); and
///   the graph's header under the one-byte key `0x00` (`VectorGraphHeader`), which sorts first.
/// - `links`: per document and level (9-byte key), the documents it links to (8 bytes each).
/// - `documents` and `rows` (types whose keys are not integers): document number → row key and row
///   key → document number, as a full-text index numbers them.
struct VectorIndex: Sendable {
    let typeName: String
    let property: String
    /// The property's column in the type's rows.
    let column: Int
    let settings: VectorSettings
    let nodes: Table
    let links: Table
    /// Document number → row key, and row key → document number; nil for integer keys.
    let numbering: (documents: Table, rows: Table)?

    /// Below this many vectors a query compares every vector (faster than walking a graph, and exact).
    static let exactBelow = 1_000

    /// The index's name in errors: `Note.embedding`.
    var name: String { "\(typeName).\(property)" }

    /// `.corrupted` naming the index and what is wrong with it (`salvage` rebuilds an index).
    func damage(_ detail: some CustomStringConvertible) -> StoreError {
        .corrupted("the vector index of \(name) is damaged: \(detail)")
    }

    /// `.invalidArgument` for a vector of the wrong length.
    func wrongDimensions(_ count: Int, what: String) -> StoreError {
        .invalidArgument("\(name) holds vectors of \(settings.dimensions) floats; \(what) has \(count)")
    }

    /// The vector as the index keeps and compares it: scaled to length 1 for the cosine metric.
    ///
    /// - Throws: `.invalidArgument` when its length is not the index's dimensions, or it holds a NaN or
    ///   an infinity (no distance to it would mean anything).
    func prepared(_ vector: [Float], what: String) throws(StoreError) -> [Float] {
        guard vector.count == settings.dimensions else { throw wrongDimensions(vector.count, what: what) }
        guard vector.allSatisfy(\.isFinite) else {
            throw .invalidArgument("\(name): \(what) holds a NaN or an infinity")
        }
        guard settings.metric == .cosine else { return vector }
        let length = vector.withUnsafeBytes { VectorMath.dot($0.baseAddress!, $0.baseAddress!, count: vector.count) }
            .squareRoot()
        return length > 0 ? vector.map { $0 / length } : vector
    }

    /// The vector a `[Float]` column holds, prepared (`prepared`), or nil for a null or empty column
    /// (a row without a vector is not indexed).
    ///
    /// - Throws: `.invalidArgument` as `prepared`; `.corrupted` for bytes that are no list of floats.
    func vector(inColumn column: UnsafeRawBufferPointer?) throws(StoreError) -> [Float]? {
        guard let column else { return nil }
        let floats: [Float]
        do {
            floats = try FloatVectorFormat.floats(column)
        } catch {
            throw .corrupted("\(name): \(error)")
        }
        return floats.isEmpty ? nil : try prepared(floats, what: "the vector written")
    }

    /// The document number of a row key of an integer-keyed type (nil for other types).
    func integerDocument(ofRow key: UnsafeRawBufferPointer) -> UInt64? {
        guard numbering == nil, key.count == 8 else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }

    static func nodeKey(_ document: UInt64) -> [UInt8] {
        withUnsafeBytes(of: document.bigEndian) { Array($0) }
    }

    static func linksKey(_ document: UInt64, level: Int) -> [UInt8] {
        nodeKey(document) + [UInt8(truncatingIfNeeded: level)]
    }
}

/// The graph's header, in the nodes table under `key`: its entry point and top level, how many
/// vectors it holds, and the next document number to give out (types whose keys are not integers).
struct VectorGraphHeader: Equatable {
    var entry: UInt64?
    var topLevel = 0
    var count: UInt64 = 0
    var nextDocument: UInt64 = 1

    static let key: [UInt8] = [0]
    static let size = 26

    init() {}

    init(_ value: UnsafeRawBufferPointer) throws(RowDamage) {
        guard value.count == Self.size else { throw RowDamage("its header has \(value.count) bytes") }
        let hasEntry = value[0] == 1
        topLevel = Int(value[1])
        let entry = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
        self.entry = hasEntry ? entry : nil
        count = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 10, as: UInt64.self))
        nextDocument = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 18, as: UInt64.self))
        guard hasEntry == (count > 0), value[0] <= 1 else { throw RowDamage("its header names no entry point") }
    }

    var encoded: [UInt8] {
        var bytes: [UInt8] = [entry == nil ? 0 : 1, UInt8(truncatingIfNeeded: topLevel)]
        for word in [entry ?? 0, count, nextDocument] { withUnsafeBytes(of: word.littleEndian) { bytes += $0 } }
        return bytes
    }
}

/// One node's stored value: its level (1 byte, then 3 zero bytes), then its vector (floats,
/// little-endian).
enum VectorNode {
    static let headerSize = 4
    /// The most levels a node may have (a level is drawn as HNSW draws it: 1 in M reaches the next).
    static let maximumLevel = 32

    static func encoded(level: Int, vector: [Float]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(level), 0, 0, 0]
        bytes.reserveCapacity(headerSize + vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    /// The level a document's node has: drawn from its number (HNSW's exponential law, scale
    /// 1/ln M), so the graph's shape depends on nothing but the documents it holds.
    static func level(of document: UInt64, maxConnections: Int) -> Int {
        var mixed = document &+ 0x9E37_79B9_7F4A_7C15  // SplitMix64
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let uniform = (Double(mixed >> 11) + 1) / Double(1 << 53)  // (0, 1]
        let level = Int(-Foundation.log(uniform) / Foundation.log(Double(maxConnections)))
        return min(level, maximumLevel)
    }
}

/// What a vector index is read through: a transaction's tables, values borrowed from the map.
protocol VectorReading {
    /// The value under `key`, valid until the transaction ends or (in a write) its next change.
    func get(_ table: Table, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer?
    func withCursor<R>(_ table: Table, _ body: (borrowing Cursor) throws(LMDBError) -> R) throws(LMDBError) -> R
}

/// What a vector index is written through: a write transaction (a Store's, a migration's).
protocol VectorWriting: VectorReading, FullTextWriting {}

extension VectorReading {
    /// The value under `key` (borrowed, as `get`), errors as `StoreError`.
    func borrowed(_ table: Table, _ key: [UInt8]) throws(StoreError) -> UnsafeRawBufferPointer? {
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (raw) throws(LMDBError) in try get(table, key: raw) }
        }
    }

    func header(of index: VectorIndex) throws(StoreError) -> VectorGraphHeader {
        guard let stored = try borrowed(index.nodes, VectorGraphHeader.key) else { return VectorGraphHeader() }
        do {
            return try VectorGraphHeader(stored)
        } catch {
            throw index.damage(error)
        }
    }

    /// The document number a row has in the index, or nil when it has none.
    func document(ofRow rowKey: UnsafeRawBufferPointer, in index: VectorIndex) throws(StoreError) -> UInt64? {
        if let number = index.integerDocument(ofRow: rowKey) { return number }
        guard let numbering = index.numbering else { throw index.damage("a row key of \(rowKey.count) bytes") }
        guard let stored = try borrowed(numbering.rows, Array(rowKey)) else { return nil }
        guard stored.count == 8 else { throw index.damage("a document number of \(stored.count) bytes") }
        return UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
    }

    /// The row key of a document.
    ///
    /// - Throws: `.corrupted` when the index names a document it has no row key for.
    func rowKey(of document: UInt64, in index: VectorIndex) throws(StoreError) -> [UInt8] {
        guard let numbering = index.numbering else { return VectorIndex.nodeKey(document) }
        guard let key = try borrowed(numbering.documents, VectorIndex.nodeKey(document)) else {
            throw index.damage("document \(document) has no row")
        }
        return Array(key)
    }
}
