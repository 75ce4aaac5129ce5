/// What `nearest(to:k:by:)` ranks by: a property with a vector index, a query vector (prepared as
/// the index keeps vectors), how many to keep and how widely to search. Bound to the index of the
/// file a Results reads when it runs (`index(in:)`), so a frozen, thawed or handed-over Results
/// ranks in its own Store.
struct VectorRanking {
    /// The property's index in the type's schema.
    let property: Int
    let query: [Float]
    let k: Int
    /// HNSW's ef: candidates kept while searching (at least k).
    let breadth: Int

    /// The breadth a search uses unless asked for another: enough for a recall near 0.95 at k = 10 on
    /// the default graph (Docs/Search.md: 0.974 at 100,000 vectors of 384 floats).
    static func defaultBreadth(k: Int) -> Int { Swift.max(k, 40) }

    /// The property's vector index in `binding`'s file.
    ///
    /// - Throws: `.invalidArgument` when the file has none for it.
    func index(in binding: TableBinding) throws(StoreError) -> VectorIndex {
        let column = binding.columnOfProperty[property]
        guard let index = binding.derived.vectors.first(where: { $0.column == column }) else {
            throw .invalidArgument(
                "\(binding.name).\(binding.schema.properties[property].name) has no vector index in this file")
        }
        return index
    }
}

extension QueryEngine {
    /// Where a filtered search's answers may come from: the rows the conditions before it matched (an
    /// index read them, or a stage before made them), or the conditions, tested on each object met.
    enum NearestCandidates {
        case rows([(key: RowKey, row: RowView)])
        case matching(BoundCondition)
    }

    /// The `ranking.k` objects nearest its vector, nearest first (equal distances: in document
    /// order), among `candidates` when given (else every object with a vector).
    ///
    /// A filtered search keeps its recall. Candidates found beforehand (an index read them): when few
    /// (at most 1/16 of the vectors, or under `VectorIndex.exactBelow`) each is compared (exact);
    /// otherwise the graph is walked through every node with only candidates kept as answers, until
    /// `ef` of them are met. Conditions no index serves are tested on each node the walk meets (its
    /// row read by key), the walk again going on until `ef` answers are met: the cost grows as the
    /// filter gets more selective, the recall does not fall.
    ///
    /// - Throws: `.corrupted` naming a damaged index or row, `.storage`.
    func nearestRows(_ ranking: VectorRanking, among candidates: NearestCandidates?) throws(StoreError)
        -> [(key: RowKey, row: RowView)]
    {
        let index = try ranking.index(in: binding)
        let found = try nearestDocuments(ranking, index: index, among: candidates)
        var rows: [(key: RowKey, row: RowView)] = []
        rows.reserveCapacity(found.count)
        for entry in found {
            let key = try rowKey(of: entry.document, in: index)
            guard let row = try core.rows.fetchRow(binding, key: key) else {
                throw index.damage("it names a missing row \(binding.describe(key))")
            }
            rows.append((key, row))
        }
        return rows
    }

    /// The nearest documents with their comparable distances (`nearestRows`).
    private func nearestDocuments(_ ranking: VectorRanking, index: VectorIndex, among candidates: NearestCandidates?)
        throws(StoreError) -> [DistanceHeap.Entry]
    {
        let graph = VectorGraph(index: index, storage: core, addresses: core.vectorAddresses(for: index))
        switch candidates {
        case nil:
            return try graph.nearest(to: ranking.query, k: ranking.k, ef: ranking.breadth)
        case .rows(let rows)?:
            let allowed = try documents(of: rows.map(\.key), in: index)
            let count = try core.header(of: index).count
            if allowed.count <= VectorIndex.exactBelow || UInt64(allowed.count) * 16 <= count {
                return try graph.exact(ranking.query, k: ranking.k, allowed: .documents(allowed))
            }
            return try graph.nearest(to: ranking.query, k: ranking.k, ef: ranking.breadth, allowed: .documents(allowed))
        case .matching(let condition)?:
            let evaluator = BoundEvaluator(condition, binding: binding, rows: core.rows)
            let test = { (document: UInt64) throws(StoreError) -> Bool in
                let key = try rowKey(of: document, in: index)
                guard let row = try core.rows.fetchRow(binding, key: key) else { return false }
                return try evaluator.matches(row, .key(key))
            }
            return try graph.nearest(to: ranking.query, k: ranking.k, ef: ranking.breadth, allowed: .test(test))
        }
    }

    private func rowKey(of document: UInt64, in index: VectorIndex) throws(StoreError) -> RowKey {
        if index.numbering == nil { return .integer(document) }
        let stored = try core.rowKey(of: document, in: index)
        return try stored.withBytes { (raw) throws(StoreError) in try core.rows.decodeRowKey(raw, binding: binding) }
    }

    /// The document numbers the rows of `keys` have in `index` (rows without a vector have none).
    private func documents(of keys: [RowKey], in index: VectorIndex) throws(StoreError) -> Set<UInt64> {
        var documents = Set<UInt64>(minimumCapacity: keys.count)
        for key in keys {
            if let document = try key.withBytes({ (raw) throws(StoreError) in try core.document(ofRow: raw, in: index) }
            ) {
                documents.insert(document)
            }
        }
        return documents
    }

    /// The metric's distance from `ranking`'s vector to each object `keys` name (nil: it has no vector).
    func distances(of keys: [RowKey], by ranking: VectorRanking) throws(StoreError) -> [Float?] {
        let index = try ranking.index(in: binding)
        let graph = VectorGraph(index: index, storage: core)
        var distances: [Float?] = []
        distances.reserveCapacity(keys.count)
        for key in keys {
            let document = try key.withBytes { (raw) throws(StoreError) in try core.document(ofRow: raw, in: index) }
            let distance = try document.flatMap { (document) throws(StoreError) in
                try ranking.query.withBytes { (raw) throws(StoreError) in
                    try graph.distance(raw.baseAddress!, to: document)
                }
            }
            distances.append(distance.map(index.settings.metric.reported))
        }
        return distances
    }
}

extension Results {
    /// The `k` objects whose vector at `keyPath` is nearest `vector`, nearest first, from the
    /// property's vector index (`@Persisted(indexed: .vector(…))`): an approximate search (HNSW)
    /// whose recall `ef` trades for speed; exact below 1,000 vectors.
    ///
    /// ```swift
    /// let similar = try notes.nearest(to: embedding, k: 10, by: \.embedding)
    /// for (note, distance) in try similar.distances() { print(distance, note.title) }
    /// let pinned = try notes.where { $0.pinned }.nearest(to: embedding, k: 10, by: \.embedding)
    /// ```
    /// Conditions before `nearest` choose the objects ranked: few of them (at most 1/16 of the
    /// vectors) are compared one by one (exact); more are found by walking the graph with only them
    /// kept as answers and `ef` grown by the inverse of their share. Objects whose vector is empty
    /// are not indexed and never found. The Results is live like any other: notifications,
    /// `freeze()`, handover.
    ///
    /// - Parameters:
    ///   - vector: the query, of the index's dimensions (scaled to length 1 for the cosine metric).
    ///   - k: how many objects to find at most.
    ///   - keyPath: the `[Float]` property with the vector index.
    ///   - ef: candidates kept while searching (HNSW's ef; at least `k`; 40 by default). More: better
    ///     recall, slower queries.
    /// - Throws: `.invalidArgument` naming the property when it has no vector index, when `vector`'s
    ///   length is not the index's dimensions or it holds a NaN, or when `k` is negative.
    public func nearest(to vector: [Float], k: Int, by keyPath: KeyPath<Element, [Float]>, ef: Int? = nil)
        throws(StoreError) -> Results
    {
        guard let path = KeyPathResolver.path(keyPath, in: binding.schema), let property = path.directProperty else {
            throw .invalidArgument("\(binding.name): nearest(by: \(keyPath)) names no stored property of the type")
        }
        let name = "\(binding.name).\(binding.schema.properties[property].name)"
        guard binding.schema.properties[property].vector != nil else {
            throw .invalidArgument("\(name) has no vector index (declare it @Persisted(indexed: .vector(dimensions:)))")
        }
        guard k >= 0 else { throw .invalidArgument("\(name): nearest(k: \(k)) asks for a negative count") }
        let unprepared = VectorRanking(property: property, query: vector, k: k, breadth: 0)
        let index = try unprepared.index(in: binding)
        let query = try index.prepared(vector, what: "the query vector")
        let breadth = Swift.max(ef ?? VectorRanking.defaultBreadth(k: k), k)
        return adding(.nearest(VectorRanking(property: property, query: query, k: k, breadth: breadth)))
    }

    /// The objects with their distances to the vector `nearest(to:k:by:)` ranked them by, nearest
    /// first (the metric's distance: 1 − cosine, L2, or the negated dot product).
    ///
    /// - Throws: `.invalidArgument` when the Results was not made by `nearest(to:k:by:)`,
    ///   `.wrongThread`, `.corrupted` naming a damaged index or row, `.storage`.
    public func distances() throws(StoreError) -> [(object: Element, distance: Float)] {
        try core.checkConfined()
        if core.isFrozen { FrozenEvaluation.lock.lock() }
        defer { if core.isFrozen { FrozenEvaluation.lock.unlock() } }
        guard let ranking = stages.lazy.compactMap({ if case .nearest(let ranking) = $0 { ranking } else { nil } }).last
        else { throw .invalidArgument("distances(): this Results was not made by nearest(to:k:by:)") }
        // Read through the engine, not the collection's accessors: a damaged index throws here.
        let engine = QueryEngine<Element>(core: core, binding: binding)
        let (keys, rows) = try engine.contents(plan.route)
        let distances = try engine.distances(of: keys, by: ranking)
        return zip(zip(keys, rows), distances).map { item, distance in
            (core.materialize(Element.self, binding: binding, key: item.0, row: item.1), distance ?? .infinity)
        }
    }
}
