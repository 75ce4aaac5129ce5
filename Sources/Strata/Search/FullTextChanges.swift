/// What a write transaction has given its full-text indexes and not written yet: per index, the
/// postings of the documents it added, per term, and the statistics. A bulk insert then writes each
/// term's blocks once per transaction (or once per `flushBytes` of postings) instead of once per
/// document.
///
/// Written (`flush`) before the transaction commits, before anything reads the index inside it, and
/// before a document this write added is removed again. Dropped when the transaction aborts. One
/// write transaction's: used by the thread that holds the writer lock only.
final class FullTextChanges {
    fileprivate struct Pending {
        let index: FullTextIndex
        var statistics: FullTextStatistics
        var statisticsChanged = false
        var terms: [[UInt8]: [PostingBlock.Posting]] = [:]
        /// The documents whose postings are pending.
        var documents: Set<UInt64> = []
        var bytes = 0
    }

    /// Postings held before they are written anyway (a bulk insert of large texts stays bounded).
    static let flushBytes = 64 << 20

    private var pending: [Table: Pending] = [:]

    init() {}

    /// Forgets every change (the transaction ended).
    func reset() {
        pending.removeAll(keepingCapacity: true)
    }

    var isEmpty: Bool { pending.isEmpty }

    /// Writes every index's pending changes.
    func flush(to storage: some FullTextWriting) throws(StoreError) {
        for table in Array(pending.keys) { try flush(table, to: storage) }
    }

    /// Writes the pending changes of `index`, if any (what a read of the index inside the write does
    /// first).
    func flush(_ index: FullTextIndex, to storage: some FullTextWriting) throws(StoreError) {
        try flush(index.terms, to: storage)
    }

    private func flush(_ table: Table, to storage: some FullTextWriting) throws(StoreError) {
        guard let changes = pending.removeValue(forKey: table) else { return }
        let writer = PostingWriter(index: changes.index, storage: storage)
        for term in changes.terms.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            var postings = changes.terms[term]!
            if !zip(postings, postings.dropFirst()).allSatisfy({ $0.document < $1.document }) {
                postings.sort { $0.document < $1.document }
            }
            try writer.merge(postings, into: term)
        }
        if changes.statisticsChanged {
            try storage.put(in: table, key: FullTextStatistics.key, value: changes.statistics.encoded)
        }
    }

    // MARK: Changes

    /// Indexes the text of a new row.
    func add(_ text: String?, rowKey: UnsafeRawBufferPointer, to index: FullTextIndex, in storage: some FullTextWriting)
        throws(StoreError)
    {
        try add(DocumentTerms(text, tokenizer: index.tokenizer), rowKey: rowKey, to: index, in: storage)
    }

    /// Removes the text of a row being deleted (the text the row held).
    func remove(
        _ text: String?, rowKey: UnsafeRawBufferPointer, from index: FullTextIndex, in storage: some FullTextWriting
    ) throws(StoreError) {
        try remove(DocumentTerms(text, tokenizer: index.tokenizer), rowKey: rowKey, from: index, in: storage)
    }

    /// Replaces the text of a row whose property changed.
    func replace(
        _ old: String?, with new: String?, rowKey: UnsafeRawBufferPointer, in index: FullTextIndex,
        storage: some FullTextWriting
    ) throws(StoreError) {
        guard old != new else { return }
        try remove(old, rowKey: rowKey, from: index, in: storage)
        try add(new, rowKey: rowKey, to: index, in: storage)
    }

    private func add(
        _ terms: DocumentTerms, rowKey: UnsafeRawBufferPointer, to index: FullTextIndex,
        in storage: some FullTextWriting
    ) throws(StoreError) {
        try withPending(index, storage) { (changes) throws(StoreError) in
            changes.statistics.documents += 1
            changes.statistics.length += UInt64(terms.length)
            changes.statisticsChanged = true
            guard !terms.isEmpty else { return }
            let document: UInt64
            if let number = index.integerDocument(ofRow: rowKey) {
                document = number
            } else {
                guard let numbering = index.numbering else { throw index.damage("a row key of \(rowKey.count) bytes") }
                document = changes.statistics.nextDocument
                changes.statistics.nextDocument += 1
                let documentKey = FullTextIndex.documentKey(document)
                try storage.put(in: numbering.documents, key: documentKey, value: Array(rowKey))
                try storage.put(in: numbering.rows, key: Array(rowKey), value: documentKey)
            }
            changes.documents.insert(document)
            let length = UInt32(truncatingIfNeeded: terms.length)
            for (term, positions) in terms.positions {
                changes.terms[term, default: []].append(
                    PostingBlock.Posting(
                        document: document, count: UInt32(positions.count), length: length, positions: positions))
                changes.bytes += term.count + 8 + 4 * positions.count
            }
        }
        if let changes = pending[index.terms], changes.bytes > Self.flushBytes { try flush(index, to: storage) }
    }

    private func remove(
        _ terms: DocumentTerms, rowKey: UnsafeRawBufferPointer, from index: FullTextIndex,
        in storage: some FullTextWriting
    ) throws(StoreError) {
        var document: UInt64?
        if !terms.isEmpty {
            if let number = index.integerDocument(ofRow: rowKey) {
                document = number
            } else if let numbering = index.numbering {
                guard let stored = try storage.value(in: numbering.rows, at: Array(rowKey)), stored.count == 8 else {
                    throw index.damage("a row it should hold has no document")
                }
                document = stored.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
            }
            // A document this write added is still pending: written first, then removed.
            if let document, pending[index.terms]?.documents.contains(document) == true {
                try flush(index, to: storage)
            }
        }
        try withPending(index, storage) { (changes) throws(StoreError) in
            guard changes.statistics.documents > 0, changes.statistics.length >= UInt64(terms.length) else {
                throw index.damage("its statistics count fewer documents or terms than it holds")
            }
            changes.statistics.documents -= 1
            changes.statistics.length -= UInt64(terms.length)
            changes.statisticsChanged = true
        }
        guard let document else { return }
        let writer = PostingWriter(index: index, storage: storage)
        for term in terms.positions.keys { try writer.remove(document, from: term) }
        if let numbering = index.numbering {
            try storage.delete(in: numbering.rows, key: Array(rowKey))
            try storage.delete(in: numbering.documents, key: FullTextIndex.documentKey(document))
        }
    }

    private func withPending(
        _ index: FullTextIndex, _ storage: some FullTextWriting, _ body: (inout Pending) throws(StoreError) -> Void
    ) throws(StoreError) {
        if pending[index.terms] == nil {
            pending[index.terms] = Pending(index: index, statistics: try storage.statistics(of: index))
        }
        try body(&pending[index.terms]!)
    }
}

/// Changes the posting blocks of one index in a write transaction.
struct PostingWriter<Storage: FullTextWriting> {
    let index: FullTextIndex
    let storage: Storage

    /// A block of `term`: its key, first document and value.
    private typealias Block = (key: [UInt8], first: UInt64, value: [UInt8])

    /// The block of `term` that holds `document` or would (the last whose first document is at most
    /// `document`, else the term's first), and the first document of the block after it.
    private func block(of term: [UInt8], for document: UInt64) throws(StoreError) -> (Block?, next: UInt64?) {
        let key = PostingBlock.key(term: term, first: document)
        return try storage.withIndexCursor(index.terms) { (cursor) throws(LMDBError) -> (Block?, next: UInt64?) in
            func block(_ entry: Cursor.Entry?) -> Block? {
                guard let entry, let (found, first) = PostingBlock.parse(key: entry.key), found.elementsEqual(term)
                else { return nil }
                return (Array(entry.key), first, Array(entry.value))
            }
            let atOrAfter = try key.withBytes { (raw) throws(LMDBError) in try cursor.seek(atLeast: raw) }
            if let exact = block(atOrAfter), exact.first == document {
                return (exact, try block(cursor.next())?.first)
            }
            let after = block(atOrAfter)
            if let before = block(atOrAfter == nil ? try cursor.last() : try cursor.previous()) {
                return (before, after?.first)
            }
            // Before the term's first block (or the term has none): that block grows at its front.
            guard let after else { return (nil, nil) }
            _ = try after.key.withBytes { (raw) throws(LMDBError) in try cursor.seek(atLeast: raw) }
            return (after, try block(cursor.next())?.first)
        }
    }

    private func decode(_ block: Block) throws(StoreError) -> [PostingBlock.Posting] {
        do {
            return try block.value.withBytes { (raw) throws(RowDamage) in
                try PostingBlock.decodeAll(raw, first: block.first)
            }
        } catch {
            throw index.damage(error)
        }
    }

    /// Adds postings (sorted by document, none already in the index) to `term`'s blocks.
    func merge(_ postings: [PostingBlock.Posting], into term: [UInt8]) throws(StoreError) {
        var start = 0
        while start < postings.count {
            let (existing, next) = try block(of: term, for: postings[start].document)
            var end = start + 1
            while end < postings.count, next.map({ postings[end].document < $0 }) ?? true { end += 1 }
            var merged = postings[start..<end]
            if let existing {
                var old = try decode(existing)
                old.append(contentsOf: merged)
                old.sort { $0.document < $1.document }
                merged = old[...]
                try storage.delete(in: index.terms, key: existing.key)
            }
            try write(merged, of: term)
            start = end
        }
    }

    /// Removes `document` from `term`'s blocks.
    ///
    /// - Throws: `.corrupted` when the term has no posting for it.
    func remove(_ document: UInt64, from term: [UInt8]) throws(StoreError) {
        guard case (let found?, _) = try block(of: term, for: document) else {
            throw index.damage("a document's term has no postings")
        }
        var postings = try decode(found)
        guard let position = postings.firstIndex(where: { $0.document == document }) else {
            throw index.damage("a document is missing from a term's postings")
        }
        postings.remove(at: position)
        try storage.delete(in: index.terms, key: found.key)
        try write(postings[...], of: term)
    }

    /// Writes postings as blocks of about `PostingBlock.targetBytes`, each under its first document.
    private func write(_ postings: ArraySlice<PostingBlock.Posting>, of term: [UInt8]) throws(StoreError) {
        var chunkStart = postings.startIndex
        var bytes = 0
        for position in postings.indices {
            var body: [UInt8] = []
            PostingBlock.appendEncodedBody(of: postings[position], to: &body)
            if bytes > 0, bytes + body.count + 10 > PostingBlock.targetBytes || position - chunkStart == Int(UInt16.max)
            {
                try put(postings[chunkStart..<position], of: term)
                chunkStart = position
                bytes = 0
            }
            bytes += body.count + 10
        }
        if chunkStart < postings.endIndex { try put(postings[chunkStart...], of: term) }
    }

    private func put(_ chunk: ArraySlice<PostingBlock.Posting>, of term: [UInt8]) throws(StoreError) {
        try storage.put(
            in: index.terms, key: PostingBlock.key(term: term, first: chunk.first!.document),
            value: PostingBlock.encode(chunk))
    }
}
