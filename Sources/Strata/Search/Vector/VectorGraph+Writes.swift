/// Changes to an HNSW graph in a write transaction: a row's vector linked in (HNSW's INSERT) or taken
/// out (its links repaired), the header and document numbers kept with them.
///
/// Values borrowed from the map are read before each put and not after: a put may move them.
extension VectorGraph where Storage: VectorWriting {
    /// Indexes a row's vector (prepared: `VectorIndex.vector(inColumn:)`; nil: not indexed).
    ///
    /// - Throws: `.corrupted` for a damaged index, `.storage`, `.mapFull`.
    func add(_ vector: [Float]?, rowKey: UnsafeRawBufferPointer) throws(StoreError) {
        guard let prepared = vector else { return }
        var header = try storage.header(of: index)
        let document = try number(rowKey, header: &header)
        try link(document, prepared, header: &header)
        try storage.put(in: index.nodes, key: VectorGraphHeader.key, value: header.encoded)
    }

    /// Takes a row's vector out of the index (nothing when it has none).
    func remove(rowKey: UnsafeRawBufferPointer) throws(StoreError) {
        guard let document = try storage.document(ofRow: rowKey, in: index) else { return }
        var header = try storage.header(of: index)
        guard try unlink(document, header: &header) else {
            if index.numbering != nil { throw index.damage("a numbered row has no node") }
            return
        }
        if let numbering = index.numbering {
            try storage.delete(in: numbering.rows, key: Array(rowKey))
            try storage.delete(in: numbering.documents, key: VectorIndex.nodeKey(document))
        }
        try storage.put(in: index.nodes, key: VectorGraphHeader.key, value: header.encoded)
    }

    /// The document number of a new row: its key's integer, or the next number (recorded both ways).
    private func number(_ rowKey: UnsafeRawBufferPointer, header: inout VectorGraphHeader) throws(StoreError)
        -> UInt64
    {
        if let number = index.integerDocument(ofRow: rowKey) { return number }
        guard let numbering = index.numbering else { throw index.damage("a row key of \(rowKey.count) bytes") }
        if let known = try storage.document(ofRow: rowKey, in: index) { return known }
        let document = header.nextDocument
        header.nextDocument += 1
        let documentKey = VectorIndex.nodeKey(document)
        try storage.put(in: numbering.documents, key: documentKey, value: Array(rowKey))
        try storage.put(in: numbering.rows, key: Array(rowKey), value: documentKey)
        return document
    }

    /// HNSW's INSERT: the node written at its drawn level, linked at each of its levels to the
    /// neighbours the heuristic chooses among `buildCandidates` found, and each neighbour linked back
    /// (its links chosen again when over the limit).
    private func link(_ document: UInt64, _ vector: [Float], header: inout VectorGraphHeader) throws(StoreError) {
        let level = VectorNode.level(of: document, maxConnections: index.settings.maxConnections)
        if try node(document) != nil { throw index.damage("document \(document) is indexed twice") }
        try storage.put(
            in: index.nodes, key: VectorIndex.nodeKey(document), value: VectorNode.encoded(level: level, vector: vector)
        )
        header.count += 1
        guard let entry = header.entry else {
            header.entry = document
            header.topLevel = level
            return
        }
        var starts: [DistanceHeap.Entry] = try vector.withBytes { (raw) throws(StoreError) in
            let query = raw.baseAddress!
            guard let distance = try distance(query, to: entry) else {
                throw index.damage("its entry point \(entry) is no node")
            }
            var nearest = (distance: distance, document: entry)
            if header.topLevel > level {
                for upper in stride(from: header.topLevel, to: level, by: -1) {
                    nearest = try greedy(query, from: nearest, level: upper)
                }
            }
            return [nearest]
        }
        for current in stride(from: min(header.topLevel, level), through: 0, by: -1) {
            let found = try vector.withBytes { (raw) throws(StoreError) in
                try layer(raw.baseAddress!, from: starts, breadth: index.settings.buildCandidates, level: current)
            }
            // The node is written: a stale link to its number (a deleted row's) may reach it.
            let neighbours = try chosen(
                from: found.filter { $0.document != document }, limit: index.settings.maxConnections)
            try writeLinks(of: document, level: current, neighbours.map(\.document))
            for neighbour in neighbours {
                try addLink(from: neighbour.document, to: document, distance: neighbour.distance, level: current)
            }
            starts = found
        }
        if level > header.topLevel {
            header.entry = document
            header.topLevel = level
        }
    }

    /// `from` links to `to` too, its links chosen again when that puts it over the level's limit.
    private func addLink(from: UInt64, to: UInt64, distance: Float, level: Int) throws(StoreError) {
        var current = try links(of: from, level: level)
        guard !current.contains(to) else { return }
        let limit = index.settings.linkLimit(atLevel: level)
        if current.count < limit {
            current.append(to)
            return try writeLinks(of: from, level: level, current)
        }
        guard let origin = try node(from) else { return }
        var candidates: [DistanceHeap.Entry] = [(distance, to)]
        for link in current {
            guard let other = try node(link) else { continue }  // a link to a deleted node: dropped
            candidates.append((metric.comparable(origin.vector, other.vector, count: dimensions), link))
        }
        candidates.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.document < $1.document }
        try writeLinks(of: from, level: level, try chosen(from: candidates, limit: limit).map(\.document))
    }

    /// Takes a node out: each node it links to that links back gets its other links and the removed
    /// node's to choose from again; the entry point moves to the highest-level neighbour. False when
    /// the graph has no such node.
    private func unlink(_ document: UInt64, header: inout VectorGraphHeader) throws(StoreError) -> Bool {
        guard let removed = try node(document) else { return false }
        let level = removed.level
        var neighboursByLevel: [[UInt64]] = []
        for current in 0...level {
            let neighbours = try links(of: document, level: current)
            neighboursByLevel.append(neighbours)
            for neighbour in neighbours where neighbour != document {
                try repair(neighbour, without: document, offered: neighbours, level: current)
            }
            try storage.delete(in: index.links, key: VectorIndex.linksKey(document, level: current))
        }
        try storage.delete(in: index.nodes, key: VectorIndex.nodeKey(document))
        header.count -= 1
        guard header.entry == document else { return true }
        header.entry = nil
        header.topLevel = 0
        guard header.count > 0 else { return true }
        for neighbours in neighboursByLevel.reversed() {
            for neighbour in neighbours {
                guard let node = try node(neighbour) else { continue }
                if header.entry == nil || node.level > header.topLevel {
                    header.entry = neighbour
                    header.topLevel = node.level
                }
            }
            if header.entry != nil { return true }
        }
        // No neighbour left anywhere (a node cut off): the highest node of the rest.
        try StoreError.mapping { () throws(LMDBError) in
            try storage.withCursor(index.nodes) { (cursor) throws(LMDBError) in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    if key.count == 8, let level = value.first, header.entry == nil || Int(level) > header.topLevel {
                        header.entry = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                        header.topLevel = Int(level)
                    }
                    entry = try cursor.next()
                }
            }
        }
        if header.entry == nil { throw index.damage("it counts \(header.count) nodes and holds none") }
        return true
    }

    /// A neighbour's links at `level` without `removed`, chosen again among its other links and
    /// `offered` (the removed node's links), so the graph stays connected around the gap.
    private func repair(_ neighbour: UInt64, without removed: UInt64, offered: [UInt64], level: Int) throws(StoreError)
    {
        let current = try links(of: neighbour, level: level)
        guard current.contains(removed), let origin = try node(neighbour) else { return }
        var seen: Set<UInt64> = [neighbour, removed]
        var candidates: [DistanceHeap.Entry] = []
        for link in current + offered where seen.insert(link).inserted {
            guard let other = try node(link) else { continue }
            candidates.append((metric.comparable(origin.vector, other.vector, count: dimensions), link))
        }
        candidates.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.document < $1.document }
        let limit = index.settings.linkLimit(atLevel: level)
        try writeLinks(of: neighbour, level: level, try chosen(from: candidates, limit: limit).map(\.document))
    }

    private func writeLinks(of document: UInt64, level: Int, _ links: [UInt64]) throws(StoreError) {
        let key = VectorIndex.linksKey(document, level: level)
        guard !links.isEmpty else { return try storage.delete(in: index.links, key: key) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(links.count * 8)
        for link in links { withUnsafeBytes(of: link.littleEndian) { bytes += $0 } }
        try storage.put(in: index.links, key: key, value: bytes)
    }
}
