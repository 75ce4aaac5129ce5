/// Reads an HNSW graph (`VectorIndex`) in one transaction: the nearest documents to a vector, by the
/// graph (approximate) or by comparing every vector (exact).
///
/// A link may name a document no longer in the graph (a node that linked to a deleted one without
/// being linked back: HNSW's links are not all mutual); such a link is skipped, and dropped the next
/// time its node's links are rewritten.
struct VectorGraph<Storage: VectorReading> {
    let index: VectorIndex
    let storage: Storage
    /// Addresses met before in the same snapshot (reads outside a write only).
    var addresses: VectorAddresses?

    init(index: VectorIndex, storage: Storage, addresses: VectorAddresses? = nil) {
        self.index = index
        self.storage = storage
        self.addresses = addresses
    }

    var dimensions: Int { index.settings.dimensions }
    var metric: VectorMetric { index.settings.metric }

    /// A node's stored vector (borrowed), or nil when the graph has no such node.
    ///
    /// - Throws: `.corrupted` when the node's value is not a level and a vector of the index's length.
    func node(_ document: UInt64) throws(StoreError) -> (level: Int, vector: UnsafeRawPointer)? {
        guard let vector = try vector(of: document) else { return nil }
        let level = Int(vector.load(fromByteOffset: -VectorNode.headerSize, as: UInt8.self))
        guard level <= VectorNode.maximumLevel else { throw index.damage("node \(document) has level \(level)") }
        return (level, vector)
    }

    /// A node's vector (borrowed), or nil when the graph has no such node, without reading the node's
    /// level: what a search compares. Reading the level would wait on memory for each node before its
    /// vector is asked for (`layer` asks for all of a node's links' vectors at once); `verify` checks
    /// levels.
    ///
    /// - Throws: `.corrupted` when the node's value is not a level and a vector of the index's length.
    func vector(of document: UInt64) throws(StoreError) -> UnsafeRawPointer? {
        if let addresses {
            switch addresses.vector(of: document) {
            case .known(let vector): return vector
            case .absent: return nil
            case .unknown: break
            }
        }
        guard
            let value = try withBytes(
                of: document.bigEndian,
                { (key) throws(StoreError) in
                    try StoreError.mapping { () throws(LMDBError) in try storage.get(index.nodes, key: key) }
                })
        else {
            addresses?.metNothing()
            return nil
        }
        guard value.count == VectorNode.headerSize + index.settings.vectorBytes else {
            throw index.damage("node \(document) holds \(value.count) bytes")
        }
        let vector = value.baseAddress! + VectorNode.headerSize
        addresses?.met(vector: vector, of: document)
        return vector
    }

    static func node(_ value: UnsafeRawBufferPointer, _ document: UInt64, _ index: VectorIndex) throws(StoreError)
        -> (level: Int, vector: UnsafeRawPointer)
    {
        guard value.count == VectorNode.headerSize + index.settings.vectorBytes,
            Int(value[0]) <= VectorNode.maximumLevel
        else { throw index.damage("node \(document) holds \(value.count) bytes") }
        return (Int(value[0]), value.baseAddress! + VectorNode.headerSize)
    }

    /// The documents a node links to at `level` (none when it has no links there).
    func links(of document: UInt64, level: Int) throws(StoreError) -> [UInt64] {
        let value = try linkBytes(of: document, level: level)
        return (0..<(value.count / 8)).map {
            UInt64(littleEndian: value.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))
        }
    }

    /// A node's links at `level` as stored (8 bytes each, little-endian), borrowed.
    ///
    /// - Throws: `.corrupted` when they are not whole links or more than the level allows.
    func linkBytes(of document: UInt64, level: Int) throws(StoreError) -> UnsafeRawBufferPointer {
        if let addresses {
            switch addresses.links(of: document, level: level) {
            case .known(let links): return links
            case .absent: return UnsafeRawBufferPointer(start: nil, count: 0)
            case .unknown: break
            }
        }
        let key = VectorIndex.linksKey(document, level: level)
        let value =
            try storage.borrowed(index.links, key) ?? UnsafeRawBufferPointer(start: nil, count: 0)
        guard value.count % 8 == 0, value.count / 8 <= index.settings.linkLimit(atLevel: level) else {
            throw index.damage("node \(document) has \(value.count) bytes of links at level \(level)")
        }
        addresses?.met(links: value, of: document, level: level)
        return value
    }

    /// Every node's and links value's address, by one walk of each table (`VectorAddresses`).
    ///
    /// - Throws: `.corrupted` when a node's value is not a level and a vector of the index's length,
    ///   or a links value is not whole links or more than its level allows (what a search meeting
    ///   them would throw).
    func loadAddresses(into addresses: VectorAddresses, nodes count: Int) throws(StoreError) {
        let index = index
        let nodeBytes = VectorNode.headerSize + index.settings.vectorBytes
        let walked = try StoreError.mapping { () throws(LMDBError) -> Result<VectorAddresses.Walk, StoreError> in
            // Keys are big-endian document numbers (after the header's one byte): in order.
            let (smallest, largest) = try storage.withCursor(index.nodes) {
                (cursor) throws(LMDBError) -> (UInt64, UInt64) in
                func document(_ entry: Cursor.Entry?) -> UInt64? {
                    guard let entry, entry.key.count == 8 else { return nil }
                    return UInt64(bigEndian: entry.key.loadUnaligned(as: UInt64.self))
                }
                var first = try cursor.first()
                if let entry = first, entry.key.count != 8 { first = try cursor.next() }
                return (document(first) ?? 0, document(try cursor.last()) ?? 0)
            }
            var walk = VectorAddresses.Walk(count: count, smallest: smallest, largest: largest)
            let damage = try storage.withCursor(index.nodes) { (cursor) throws(LMDBError) -> StoreError? in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    if key.count == 8 {
                        let document = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                        guard value.count == nodeBytes else {
                            return index.damage("node \(document) holds \(value.count) bytes")
                        }
                        walk.add(vector: value.baseAddress! + VectorNode.headerSize, of: document)
                    }
                    entry = try cursor.next()
                }
                return try storage.withCursor(index.links) { (cursor) throws(LMDBError) -> StoreError? in
                    var entry = try cursor.first()
                    while let (key, value) = entry {
                        if key.count == 9 {
                            let document = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                            let level = Int(key[8])
                            guard value.count % 8 == 0, value.count / 8 <= index.settings.linkLimit(atLevel: level)
                            else {
                                return index.damage(
                                    "node \(document) has \(value.count) bytes of links at level \(level)")
                            }
                            walk.add(links: value, of: document, level: level)
                        }
                        entry = try cursor.next()
                    }
                    return nil
                }
            }
            return damage.map { .failure($0) } ?? .success(walk)
        }
        addresses.install(try walked.get())
    }

    /// The comparable distance from `query` (prepared, `dimensions` floats) to a document, or nil when
    /// the graph has no such node.
    func distance(_ query: UnsafeRawPointer, to document: UInt64) throws(StoreError) -> Float? {
        guard let vector = try vector(of: document) else { return nil }
        return metric.comparable(query, vector, count: dimensions)
    }

    /// The `k` nearest documents to `query` (prepared) with their comparable distances, nearest first:
    /// exact below `VectorIndex.exactBelow` vectors, else HNSW's search with `ef` candidates (at
    /// least k). `allowed`: only those documents are answers (the graph is still walked through the
    /// others), the walk going on until `ef` answers are met.
    func nearest(
        to query: [Float], k: Int, ef: Int, allowed: VectorFilter? = nil
    ) throws(StoreError) -> [DistanceHeap.Entry] {
        let header = try storage.header(of: index)
        guard let entry = header.entry, k > 0 else { return [] }
        if header.count <= UInt64(VectorIndex.exactBelow) { return try exact(query, k: k, allowed: allowed) }
        // About one links value per node (upper levels add 1 / (M - 1) more).
        if let addresses, addresses.walkPays(entries: 2 * header.count) {
            try loadAddresses(into: addresses, nodes: Int(clamping: header.count))
        }
        let breadth = max(ef, k)
        return try query.withBytes { (raw) throws(StoreError) in
            let query = raw.baseAddress!
            guard var nearest = try distance(query, to: entry).map({ (distance: $0, document: entry) }) else {
                throw index.damage("its entry point \(entry) is no node")
            }
            if header.topLevel > 0 {
                for level in stride(from: header.topLevel, to: 0, by: -1) {
                    nearest = try greedy(query, from: nearest, level: level)
                }
            }
            let found = try layer(query, from: [nearest], breadth: breadth, level: 0, allowed: allowed)
            return Array(found.prefix(k))
        }
    }

    /// Every node compared with `query` (or those `allowed`): the `k` nearest, nearest first.
    func exact(_ query: [Float], k: Int, allowed: VectorFilter? = nil) throws(StoreError) -> [DistanceHeap.Entry] {
        guard k > 0 else { return [] }
        var best = DistanceHeap(farthestFirst: true)
        let dimensions = dimensions
        let metric = metric
        let index = index
        func offer(_ document: UInt64, _ value: UnsafeRawBufferPointer) throws(StoreError) {
            let node = try Self.node(value, document, index)
            let distance = query.withUnsafeBytes { metric.comparable($0.baseAddress!, node.vector, count: dimensions) }
            if best.count < k {
                best.push((distance, document))
            } else if let worst = best.top,
                distance < worst.distance || (distance == worst.distance && document < worst.document)
            {
                best.pop()
                best.push((distance, document))
            }
        }
        if case .documents(let allowed)? = allowed, allowed.count < VectorIndex.exactBelow * 4 {
            for document in allowed {
                guard let value = try storage.borrowed(index.nodes, VectorIndex.nodeKey(document)) else { continue }
                try offer(document, value)
            }
            return best.ascending
        }
        let walked = try StoreError.mapping { () throws(LMDBError) in
            try storage.withCursor(index.nodes) { (cursor) throws(LMDBError) -> Result<Void, StoreError> in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    if key.count == 8 {
                        let document = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                        do throws(StoreError) {
                            if try allowed?.allows(document) ?? true { try offer(document, value) }
                        } catch {
                            return .failure(error)
                        }
                    }
                    entry = try cursor.next()
                }
                return .success(())
            }
        }
        try walked.get()
        return best.ascending
    }

    /// HNSW's greedy step at one level: from `start`, to the nearest link while one is nearer.
    func greedy(_ query: UnsafeRawPointer, from start: DistanceHeap.Entry, level: Int) throws(StoreError)
        -> DistanceHeap.Entry
    {
        var nearest = start
        var moved = true
        while moved {
            moved = false
            let links = try linkBytes(of: nearest.document, level: level)
            for offset in stride(from: 0, to: links.count, by: 8) {
                let link = UInt64(littleEndian: links.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                guard let distance = try distance(query, to: link), distance < nearest.distance else { continue }
                nearest = (distance, link)
                moved = true
            }
        }
        return nearest
    }

    /// HNSW's search of one level (SEARCH-LAYER): the `breadth` nearest nodes met walking from
    /// `starts`, nearest first; with `allowed`, only those are kept as answers.
    func layer(
        _ query: UnsafeRawPointer, from starts: [DistanceHeap.Entry], breadth: Int, level: Int,
        allowed: VectorFilter? = nil
    ) throws(StoreError) -> [DistanceHeap.Entry] {
        var visited = DocumentTable<Void>(minimumCapacity: breadth * 16)
        var candidates = DistanceHeap(farthestFirst: false)
        var found = DistanceHeap(farthestFirst: true)
        for start in starts where visited.insert(start.document, ()) {
            candidates.push(start)
            if try allowed?.allows(start.document) ?? true { found.push(start) }
        }
        var met: [(document: UInt64, vector: UnsafeRawPointer)] = []
        met.reserveCapacity(2 * index.settings.maxConnections)
        while let nearest = candidates.pop() {
            if found.count >= breadth, let worst = found.top, nearest.distance > worst.distance { break }
            // The links not visited yet, their vectors asked of the memory before the first is
            // compared (each read from the map is a cache miss otherwise, one after the other); with
            // known addresses, the addresses' slots asked for first, as they too are misses.
            met.removeAll(keepingCapacity: true)
            let links = try linkBytes(of: nearest.document, level: level)
            if let addresses {
                for offset in stride(from: 0, to: links.count, by: 8) {
                    addresses.prefetchVector(
                        of: UInt64(littleEndian: links.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                }
            }
            for offset in stride(from: 0, to: links.count, by: 8) {
                let link = UInt64(littleEndian: links.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                guard visited.insert(link, ()), let vector = try vector(of: link) else { continue }
                MemoryHint.prefetch(vector)
                MemoryHint.prefetch(vector + 64)
                met.append((link, vector))
            }
            for (link, vector) in met {
                let distance = metric.comparable(query, vector, count: dimensions)
                if found.count < breadth || distance < found.top!.distance {
                    candidates.push((distance, link))
                    guard try allowed?.allows(link) ?? true else { continue }
                    found.push((distance, link))
                    if found.count > breadth { found.pop() }
                }
            }
        }
        return found.ascending
    }

    /// HNSW's neighbour choice (its heuristic): from `candidates` (distances to the node being linked,
    /// nearest first), each one nearer to the node than to every one already chosen, up to `limit`.
    /// Fewer candidates than `limit` are all kept.
    func chosen(from candidates: [DistanceHeap.Entry], limit: Int) throws(StoreError) -> [DistanceHeap.Entry] {
        guard candidates.count > limit else { return candidates }
        // Borrowed vectors stay valid: nothing is written while choosing.
        var kept: [(entry: DistanceHeap.Entry, vector: UnsafeRawPointer)] = []
        for candidate in candidates where kept.count < limit {
            guard let vector = try vector(of: candidate.document) else { continue }
            var diverse = true
            for chosen in kept {
                if metric.comparable(chosen.vector, vector, count: dimensions) < candidate.distance {
                    diverse = false
                    break
                }
            }
            if diverse { kept.append((candidate, vector)) }
        }
        return kept.map(\.entry)
    }
}

/// Which documents a filtered search may answer: a set found beforehand (the rows an index read), or
/// a test asked of each document the search meets (a condition read row by row).
enum VectorFilter {
    case documents(Set<UInt64>)
    case test((UInt64) throws(StoreError) -> Bool)

    func allows(_ document: UInt64) throws(StoreError) -> Bool {
        switch self {
        case .documents(let documents): documents.contains(document)
        case .test(let test): try test(document)
        }
    }
}
