/// What `search(_:_:)` ranks by: a property with a full-text index, and a query read with its
/// tokenizer. Bound to the index of the file a Results reads when it runs (`index(in:)`), so a
/// frozen, thawed or handed-over Results ranks in its own Store.
struct FullTextRanking {
    /// The property's index in the type's schema.
    let property: Int
    let query: TextQuery

    /// The property's full-text index in `binding`'s file.
    ///
    /// - Throws: `.invalidArgument` when the file has none for it.
    func index(in binding: TableBinding) throws(StoreError) -> FullTextIndex {
        let column = binding.columnOfProperty[property]
        guard let index = binding.derived.fullText.first(where: { $0.column == column }) else {
            throw .invalidArgument(
                "\(binding.name).\(binding.schema.properties[property].name) has no full-text index in this file")
        }
        return index
    }
}

extension QueryEngine {
    /// The objects `ranking` finds, best first (equal scores: in key order), each tested against
    /// `filter`; the first `limit` of them.
    ///
    /// - Throws: `.corrupted` naming a damaged index or row, `.storage`.
    func rankedRows(_ ranking: FullTextRanking, filter: BoundCondition?, limit: Int?) throws(StoreError)
        -> [(key: RowKey, row: RowView)]
    {
        let index = try ranking.index(in: binding)
        let searcher = try core.searcher(for: index)
        let scored = try searcher.scored(ranking.query)
        let evaluator = filter.map { BoundEvaluator($0, binding: binding, rows: core.rows) }
        var found: [(key: RowKey, row: RowView)] = []
        var start = 0
        // A run of equal scores is put in key order (document order is key order for integer keys).
        while start < scored.count, found.count < limit ?? Int.max {
            var end = start + 1
            while end < scored.count, scored[end].score == scored[start].score { end += 1 }
            var keys: [RowKey] = []
            for entry in scored[start..<end] {
                let stored = try searcher.storage.rowKey(of: entry.document, in: index)
                keys.append(
                    try stored.withBytes { (raw) throws(StoreError) in try core.rows.decodeRowKey(raw, binding: binding)
                    })
            }
            if index.numbering != nil { keys.sort(by: <) }
            for key in keys where found.count < limit ?? Int.max {
                guard let row = try core.rows.fetchRow(binding, key: key) else {
                    throw index.damage("it names a missing row \(binding.describe(key))")
                }
                if let evaluator, !(try evaluator.matches(row, .key(key))) { continue }
                found.append((key, row))
            }
            start = end
        }
        return found
    }

    /// `items` that match `ranking`'s query, best first (equal scores: in key order).
    func ranked(_ items: [(key: RowKey, row: RowView)], by ranking: FullTextRanking) throws(StoreError)
        -> [(key: RowKey, row: RowView)]
    {
        let scores = try self.scores(of: items.map(\.key), by: ranking)
        return zip(items, scores).compactMap { item, score in score.map { (item, $0) } }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.key < $1.0.key }
            .map(\.0)
    }

    /// The score of each object `keys` name for `ranking` (nil: its text does not match).
    func scores(of keys: [RowKey], by ranking: FullTextRanking) throws(StoreError) -> [Double?] {
        let index = try ranking.index(in: binding)
        let searcher = try core.searcher(for: index)
        var byDocument: [UInt64: Double] = [:]
        for entry in try searcher.scored(ranking.query) { byDocument[entry.document] = entry.score }
        var scores: [Double?] = []
        for key in keys {
            let document = try key.withBytes { (raw) throws(StoreError) -> UInt64? in
                if let number = index.integerDocument(ofRow: raw) { return number }
                guard let numbering = index.numbering,
                    let stored = try searcher.storage.value(in: numbering.rows, at: Array(raw)), stored.count == 8
                else { return nil }
                return stored.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
            }
            scores.append(document.flatMap { byDocument[$0] })
        }
        return scores
    }
}

extension Results {
    /// The objects whose text at `keyPath` matches a full-text query, best first: ranked by BM25 (as
    /// SQLite's FTS5 ranks), from the property's full-text index (`@Persisted(indexed: .fullText)`).
    ///
    /// ```swift
    /// let best = try notes.search(\.body, "object database").prefix(20)
    /// for (note, score) in try best.scored() { print(score, note.title) }
    /// let pinned = try notes.where { $0.pinned }.search(\.body, "swift -sqlite")
    /// ```
    /// The query's syntax is the `TEXT` operator's (`matches(_:)`): every word required, `-word`
    /// excluded, `data*` a prefix, `"object database"` a phrase. Conditions before the search filter
    /// the objects ranked; `prefix(_:)` right after it keeps the best only, reading no other object.
    /// The Results is live like any other: notifications, `freeze()`, handover.
    ///
    /// - Throws: `.invalidArgument` naming the property when it has no full-text index or is no stored
    ///   String, or describing the query's syntax error (a quote not closed, no word to look for).
    public func search(_ keyPath: KeyPath<Element, String>, _ query: String) throws(StoreError) -> Results {
        try searching(keyPath, query)
    }

    /// `search(_:_:)` on an optional String property (nil matches nothing).
    public func search(_ keyPath: KeyPath<Element, String?>, _ query: String) throws(StoreError) -> Results {
        try searching(keyPath, query)
    }

    private func searching(_ keyPath: PartialKeyPath<Element>, _ text: String) throws(StoreError) -> Results {
        guard let path = KeyPathResolver.path(keyPath, in: binding.schema), let property = path.directProperty else {
            throw .invalidArgument("\(binding.name): search(\(keyPath)) names no stored property of the type")
        }
        let name = "\(binding.name).\(binding.schema.properties[property].name)"
        guard let settings = binding.schema.properties[property].fullText else {
            throw .invalidArgument("\(name) has no full-text index (declare it @Persisted(indexed: .fullText))")
        }
        guard let tokenizer = settings.tokenizer else { throw .invalidArgument(settings.missingTokenizer(of: name)) }
        let query: TextQuery
        do {
            query = try TextQuery(text, tokenizer: tokenizer)
        } catch {
            throw .invalidArgument("\(name) search: \(error)")
        }
        let ranking = FullTextRanking(property: property, query: query)
        _ = try ranking.index(in: binding)
        return adding(.ranked(ranking))
    }

    /// The objects with their BM25 scores (higher is better), in order: what `search(_:_:)` ranked
    /// them by. An object the Results holds for another reason than a search scores 0.
    ///
    /// - Throws: `.wrongThread`, `.corrupted` naming a damaged index or row, `.storage`.
    public func scored() throws(StoreError) -> [(object: Element, score: Double)] {
        try core.checkConfined()
        if core.isFrozen { FrozenEvaluation.lock.lock() }
        defer { if core.isFrozen { FrozenEvaluation.lock.unlock() } }
        // Read through the engine, not the collection's accessors: a damaged index throws here.
        let engine = QueryEngine<Element>(core: core, binding: binding)
        let (keys, rows) = try engine.contents(stages.isEmpty ? .table : plan.route)
        let objects = zip(keys, rows).map { core.materialize(Element.self, binding: binding, key: $0, row: $1) }
        guard let ranking = stages.lazy.compactMap({ if case .ranked(let ranking) = $0 { ranking } else { nil } }).last
        else { return objects.map { ($0, 0) } }
        let scores = try engine.scores(of: keys, by: ranking)
        return zip(objects, scores).map { ($0, $1 ?? 0) }
    }
}
