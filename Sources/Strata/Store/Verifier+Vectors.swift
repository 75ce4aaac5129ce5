/// `verify()` of vector indexes: each row's vector is its node's (same level, same floats, numbered
/// both ways), and the graph holds nothing else: its header counts the nodes and names an entry
/// point at its top level, every links record belongs to a node's level and holds no more links than
/// the level allows. A link to a node no longer in the graph is not damage (`VectorGraph`).
extension Verifier {
    /// Checks that a row's vector (or its absence) is what `index` holds for it; returns whether it
    /// has one.
    static func checkVector<Reader: SnapshotReading & ~Copyable>(
        of row: RowView, key rawKey: UnsafeRawBufferPointer, _ index: VectorIndex, name: String,
        _ reader: borrowing Reader
    ) throws(StoreError) -> Bool {
        let column: UnsafeRawBufferPointer?
        do {
            column = try row.column(index.column)
        } catch {
            throw .corrupted("\(name).\(index.property): \(error)")
        }
        let vector: [Float]?
        do {
            vector = try index.vector(inColumn: column)
        } catch {
            throw index.damage("\(name) holds a vector it cannot index: \(error)")
        }
        let document: UInt64?
        let node: [UInt8]?
        do throws(LMDBError) {
            var number = index.integerDocument(ofRow: rawKey)
            if let numbering = index.numbering, let stored = try reader.get(numbering.rows, key: rawKey) {
                guard stored.count == 8 else { throw LMDBError.corrupted }
                let numbered = UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
                let back = try VectorIndex.nodeKey(numbered).withBytes { (key) throws(LMDBError) in
                    try reader.get(numbering.documents, key: key).map(Array.init)
                }
                guard back.map({ $0.elementsEqual(rawKey) }) == true else { throw LMDBError.corrupted }
                number = numbered
            }
            document = number
            node = try number.flatMap { (number) throws(LMDBError) -> [UInt8]? in
                try VectorIndex.nodeKey(number).withBytes { (key) throws(LMDBError) -> [UInt8]? in
                    try reader.get(index.nodes, key: key).map { Array($0) }
                }
            }
        } catch {
            throw index.damage("\(name)'s document number does not map back to it")
        }
        guard let vector else {
            guard node == nil, document == nil || index.numbering == nil else {
                throw index.damage("\(name) has no vector, and a node")
            }
            return false
        }
        guard let document, let node else { throw index.damage("\(name)'s vector has no node") }
        let level = VectorNode.level(of: document, maxConnections: index.settings.maxConnections)
        guard node == VectorNode.encoded(level: level, vector: vector) else {
            throw index.damage("\(name)'s vector is not its node's")
        }
        return true
    }

    /// Checks a graph's header, node count, numbering and links records against the `vectors` rows
    /// that hold one.
    static func verifyGraph<Reader: SnapshotReading & ~Copyable>(
        _ index: VectorIndex, vectors: Int, _ reader: borrowing Reader
    ) throws(StoreError) {
        let header: VectorGraphHeader
        var nodeCount = 0
        var levels: [UInt64: Int] = [:]
        do {
            header = try reader.withCursor(index.nodes) {
                (cursor) throws(LMDBError) -> Result<VectorGraphHeader, StoreError> in
                var header = VectorGraphHeader()
                var entry = try cursor.first()
                while let (key, value) = entry {
                    if key.elementsEqual(VectorGraphHeader.key) {
                        do {
                            header = try VectorGraphHeader(value)
                        } catch {
                            return .failure(index.damage("\(error)"))
                        }
                    } else {
                        guard key.count == 8, value.count == VectorNode.headerSize + index.settings.vectorBytes else {
                            return .failure(index.damage("a node entry of \(key.count) + \(value.count) bytes"))
                        }
                        nodeCount += 1
                        levels[UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))] = Int(value[0])
                    }
                    entry = try cursor.next()
                }
                return .success(header)
            }.get()
        } catch {
            throw StoreError(wrapping: error)
        }
        guard nodeCount == vectors, header.count == UInt64(vectors) else {
            throw index.damage(
                "it holds \(nodeCount) nodes and counts \(header.count), the rows hold \(vectors) vectors")
        }
        if let entry = header.entry, levels[entry] != header.topLevel {
            throw index.damage("its entry point \(entry) is not a node of level \(header.topLevel)")
        }
        let problem: String? = try StoreError.mapping { () throws(LMDBError) in
            try reader.withCursor(index.links) { (cursor) throws(LMDBError) -> String? in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    guard key.count == 9 else { return "a links key of \(key.count) bytes" }
                    let document = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                    let level = Int(key[8])
                    guard let nodeLevel = levels[document], level <= nodeLevel else {
                        return "links of document \(document) at level \(level), which it lacks"
                    }
                    guard value.count % 8 == 0, !value.isEmpty,
                        value.count / 8 <= index.settings.linkLimit(atLevel: level)
                    else { return "document \(document) has \(value.count) bytes of links at level \(level)" }
                    for offset in stride(from: 0, to: value.count, by: 8)
                    where UInt64(littleEndian: value.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) == document
                    {
                        return "document \(document) links to itself"
                    }
                    entry = try cursor.next()
                }
                return nil
            }
        }
        if let problem { throw index.damage(problem) }
        if let numbering = index.numbering {
            let counts = try StoreError.mapping { () throws(LMDBError) in
                (try reader.count(numbering.documents), try reader.count(numbering.rows))
            }
            guard counts.0 == vectors, counts.1 == vectors,
                levels.keys.allSatisfy({ $0 < header.nextDocument })
            else { throw index.damage("its document numbers do not match its rows") }
        }
    }
}
