/// What a write transaction has given its full-text indexes and not written yet: per index, the
/// postings of the documents it added, per term, and the statistics. A bulk insert then writes each
/// term's blocks once per transaction (or once per `flushBytes` of postings) instead of once per
/// document.
///
/// Written (`flush`) before the transaction commits, before anything reads the index inside it, and
/// before a document this write added is removed again. Dropped when the transaction aborts. One
/// write transaction's: used by the thread that holds the writer lock only.
final class FullTextChanges {
    /// One term's postings a write added, in document order, encoded as a block's body is (the
    /// first's distance 0, from `first`) in the arena.
    struct PendingTerm {
        var stream = PostingArena.Stream()
        var postings = 0
        var first: UInt64 = 0
        var last: UInt64 = 0
    }

    /// A class: a write's every document changes it in place (a struct in the dictionary was moved
    /// out and back per document, a copy of its hundreds of bytes each way). Used by the writer's
    /// thread only (or by the pipeline's worker while that thread leaves it alone), so its hot
    /// properties skip the runtime's exclusivity checks.
    final class Pending {
        let index: FullTextIndex
        var statistics: FullTextStatistics
        var statisticsChanged = false
        @exclusivity(unchecked) var terms = TermTable()
        /// By term number.
        @exclusivity(unchecked) var postings: [PendingTerm] = []
        @exclusivity(unchecked) var arena = PostingArena()
        /// By term number: postings that came after a later document's (rare: a row re-added).
        var outOfOrder: [Int: [PostingBlock.Posting]] = [:]
        /// The documents whose postings are pending, in the order added (usually ascending).
        @exclusivity(unchecked) var documents: [UInt64] = []
        var documentsAscending = true
        var bytes = 0

        init(index: FullTextIndex, statistics: FullTextStatistics) {
            self.index = index
            self.statistics = statistics
        }

        func holds(_ document: UInt64) -> Bool {
            guard documentsAscending else { return documents.contains(document) }
            var low = 0
            var high = documents.count
            while low < high {
                let middle = (low + high) / 2
                if documents[middle] < document { low = middle + 1 } else { high = middle }
            }
            return low < documents.count && documents[low] == document
        }
    }

    /// Postings held before they are written anyway (a bulk insert of large texts stays bounded; a
    /// variable: a test makes it small, so that writes between the pipeline's turns are many).
    var flushBytes = 64 << 20

    private var pending: [Table: Pending] = [:]
    /// What indexes the documents added on this thread.
    private var builder = PostingBuilder()
    /// What indexes a large write's new documents on a second thread.
    let pipeline = FullTextPipeline()

    init() {}

    /// Forgets every change (the transaction ended).
    func reset() {
        pipeline.abandon()
        pending.removeAll(keepingCapacity: true)
    }

    var isEmpty: Bool { pending.isEmpty && !pipeline.holdsDocuments }

    /// Writes every index's pending changes.
    func flush(to storage: some FullTextWriting) throws(StoreError) {
        try settle(storage)
        for table in Array(pending.keys) { try flush(table, to: storage) }
    }

    /// Writes the pending changes of `index`, if any (what a read of the index inside the write does
    /// first).
    func flush(_ index: FullTextIndex, to storage: some FullTextWriting) throws(StoreError) {
        try settle(storage)
        try flush(index.terms, to: storage)
    }

    private func flush(_ table: Table, to storage: some FullTextWriting) throws(StoreError) {
        guard let changes = pending.removeValue(forKey: table) else { return }
        let writer = PostingWriter(index: changes.index, storage: storage)
        // Into a table without blocks (a first bulk insert), every block is appended in key order.
        let blocks = try storage.entryCount(of: table)
        let appends = storage.keysInOrder && blocks <= 1
        for number in changes.terms.numbersInOrder() where number < changes.postings.count {
            let term = Array(changes.terms.term(number))
            let postings = changes.postings[number]
            let encoded = changes.arena.bytes(of: postings.stream)
            if let outOfOrder = changes.outOfOrder[number] {
                var all: [PostingBlock.Posting] = []
                do {
                    try encoded.withBytes { (raw) throws(RowDamage) in
                        all = try PostingBlock.decodeBody(raw, count: postings.postings, first: postings.first)
                    }
                } catch {
                    throw changes.index.damage(error)
                }
                all += outOfOrder
                all.sort { $0.document < $1.document }
                try writer.merge(all, into: term)
            } else if postings.postings > 0 {
                try writer.add(
                    stream: encoded, count: postings.postings, first: postings.first, last: postings.last,
                    to: term, appending: appends)
            }
        }
        if changes.statisticsChanged {
            try storage.put(in: table, key: FullTextStatistics.key, value: changes.statistics.encoded)
        }
    }

    // MARK: Changes

    /// Indexes the text of a new row (its UTF-8 bytes; nil: null).
    func add(
        utf8 text: UnsafeRawBufferPointer?, rowKey: UnsafeRawBufferPointer, to index: FullTextIndex,
        in storage: some FullTextWriting
    ) throws(StoreError) {
        let tokenizer = try index.readingTokenizer()
        // A row whose key is its document number needs nothing from the storage to be indexed.
        if let document = index.integerDocument(ofRow: rowKey), pipeline.takesNext() {
            if pipeline.add(text, document: document, of: index, tokenizer: tokenizer) { try handOver(storage) }
            return
        }
        try settle(storage)
        try withPending(index, storage) { (changes) throws(StoreError) in
            let hasTerms = builder.read(text, tokenizer: tokenizer, into: changes)
            // Numbered first: a failed numbering put leaves the statistics as they were.
            let document =
                hasTerms ? try Self.newDocument(rowKey: rowKey, index: index, changes: changes, storage: storage) : nil
            builder.post(as: document, to: changes)
        }
        if let changes = pending[index.terms], max(changes.bytes, changes.arena.size) > flushBytes {
            try flush(index.terms, to: storage)
        }
    }

    /// Gives the pipeline's full batch to its worker once it is done with the one before. Between
    /// the two the writer's thread owns every pending change: it writes those past `flushBytes`.
    private func handOver(_ storage: some FullTextWriting) throws(StoreError) {
        pipeline.waitForWorker()
        try flushLarge(storage)
        try pipeline.startBatch { (index) throws(StoreError) in try pendingChanges(index, storage) }
    }

    /// Waits for the pipeline's worker and indexes the documents it still holds on this thread: what
    /// the writer's thread does before it reads, writes or changes any pending change itself.
    private func settle(_ storage: some FullTextWriting) throws(StoreError) {
        guard pipeline.holdsDocuments else { return }
        pipeline.waitForWorker()
        try pipeline.indexHeldDocuments { (index) throws(StoreError) in try pendingChanges(index, storage) }
        try flushLarge(storage)
    }

    /// Writes the indexes whose pending postings passed `flushBytes` (a bulk insert of large texts
    /// stays bounded).
    private func flushLarge(_ storage: some FullTextWriting) throws(StoreError) {
        for (table, changes) in pending where max(changes.bytes, changes.arena.size) > flushBytes {
            try flush(table, to: storage)
        }
    }

    /// The document number of a new row: its key's integer, or the next number (recorded both ways).
    private static func newDocument(
        rowKey: UnsafeRawBufferPointer, index: FullTextIndex, changes: Pending, storage: some FullTextWriting
    ) throws(StoreError) -> UInt64 {
        if let number = index.integerDocument(ofRow: rowKey) { return number }
        guard let numbering = index.numbering else { throw index.damage("a row key of \(rowKey.count) bytes") }
        let document = changes.statistics.nextDocument
        changes.statistics.nextDocument += 1
        let documentKey = FullTextIndex.documentKey(document)
        try storage.put(in: numbering.documents, key: documentKey, value: Array(rowKey))
        try storage.put(in: numbering.rows, key: Array(rowKey), value: documentKey)
        return document
    }

    /// Removes the text of a row being deleted (the text the row held).
    func remove(
        _ text: String?, rowKey: UnsafeRawBufferPointer, from index: FullTextIndex, in storage: some FullTextWriting
    ) throws(StoreError) {
        try remove(
            DocumentTerms(text, tokenizer: try index.readingTokenizer()), rowKey: rowKey, from: index, in: storage)
    }

    /// Replaces the text of a row whose property changed.
    func replace(
        _ old: String?, with new: String?, rowKey: UnsafeRawBufferPointer, in index: FullTextIndex,
        storage: some FullTextWriting
    ) throws(StoreError) {
        guard old != new else { return }
        try remove(old, rowKey: rowKey, from: index, in: storage)
        if let new {
            try Array(new.utf8).withBytes { (bytes) throws(StoreError) in
                try add(utf8: bytes, rowKey: rowKey, to: index, in: storage)
            }
        } else {
            try add(utf8: nil, rowKey: rowKey, to: index, in: storage)
        }
    }

    private func remove(
        _ terms: DocumentTerms, rowKey: UnsafeRawBufferPointer, from index: FullTextIndex,
        in storage: some FullTextWriting
    ) throws(StoreError) {
        try settle(storage)
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
            if let document, pending[index.terms]?.holds(document) == true {
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
        _ index: FullTextIndex, _ storage: some FullTextWriting, _ body: (Pending) throws(StoreError) -> Void
    ) throws(StoreError) {
        try body(try pendingChanges(index, storage))
    }

    /// The changes pending for `index`, begun from its stored statistics when it has none.
    private func pendingChanges(_ index: FullTextIndex, _ storage: some FullTextWriting) throws(StoreError) -> Pending {
        if let changes = pending[index.terms] { return changes }
        let changes = Pending(index: index, statistics: try storage.statistics(of: index))
        pending[index.terms] = changes
        return changes
    }
}
