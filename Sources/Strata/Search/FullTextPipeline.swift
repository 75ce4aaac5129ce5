import Dispatch
import Foundation

/// Indexes a large write's new documents on a second thread while the writer's thread encodes and
/// puts their rows: numbering a text's terms and appending its postings costs more than storing its
/// row, and needs nothing from the transaction when the row's key is its document number.
///
/// The writer's thread reads each text's terms into a batch (the tokenizer's work, which balances
/// the two threads' shares); a full batch goes to the worker once the
/// worker is done with the one before, so the two take turns on the pending changes: while the
/// worker indexes a batch, the writer's thread fills the next and touches no pending change. Before
/// anything else reads or changes them (a flush, a removal, a query inside the write, a row whose
/// document is numbered, the commit) it waits for the worker and indexes what the batch holds itself
/// (`FullTextChanges.settle`). Documents are indexed in the order they were added, whichever thread
/// indexes them. The worker never calls LMDB: the transaction stays on the writer's thread.
///
/// Starts after `startAfter` such documents in one transaction (a small write never waits for a
/// thread), and only on a machine with more than one processor.
final class FullTextPipeline: @unchecked Sendable {  // the writer and the worker take turns (`finished`)
    /// Documents added to a write before their indexing moves to the worker.
    var startAfter = 1_024
    /// A batch is handed over at this many documents or bytes of text, whichever comes first
    /// (variables: a test makes batches small).
    var batchDocuments = 1_024
    var batchBytes = 256 << 10

    /// Documents and their texts' terms, copied: a row's bytes last only as long as the call that adds
    /// it.
    fileprivate final class Batch: @unchecked Sendable {  // filled by the writer, then read by the worker
        struct Entry {
            var index: Int
            var document: UInt64
            /// Where its terms end in `terms`.
            var termsEnd: Int
        }

        var terms = TermList()
        var entries: [Entry] = []
        /// The indexes the entries name, and (given when the batch starts) their pending changes.
        var indexes: [FullTextIndex] = []
        var tokenizers: [IndexTokenizer] = []
        var changes: [FullTextChanges.Pending] = []

        func clear() {
            terms.removeAll()
            entries.removeAll(keepingCapacity: true)
            indexes.removeAll(keepingCapacity: true)
            tokenizers.removeAll(keepingCapacity: true)
            changes.removeAll(keepingCapacity: true)
        }
    }

    /// The batch the writer's thread fills.
    private var filling = Batch()
    /// The batch the worker indexes (or last indexed): the next one filled, once it is done.
    private var other = Batch()
    /// The worker has a batch and has not signalled `finished` for it yet.
    private var working = false
    private let finished = DispatchSemaphore(value: 0)
    /// The worker's (and, while it waits for none, the writer's thread's through `indexHeldDocuments`).
    private var builder = PostingBuilder()
    /// The writer's thread's tokenizer reuses: room for a word longer than its stack buffer, the stems met.
    private var scratch = TokenizerScratch()
    private lazy var worker = DispatchQueue(label: "Strata.FullTextPipeline")
    /// Documents the transaction added that the pipeline could take.
    private var seen = 0
    let enabled = ProcessInfo.processInfo.activeProcessorCount > 1
    /// Batches given to the worker since the pipeline was made (what tests see it by).
    private(set) var batchesStarted = 0

    /// Whether documents wait in the batch being filled or with the worker.
    var holdsDocuments: Bool { working || !filling.entries.isEmpty }

    /// Whether the pipeline takes the next new document whose row key is its number.
    func takesNext() -> Bool {
        guard enabled else { return false }
        seen += 1
        return seen > startAfter
    }

    /// Reads a document's terms into the batch being filled; returns whether the batch is full (the caller
    /// then hands it over: `waitForWorker`, then `startBatch`).
    func add(
        _ text: UnsafeRawBufferPointer?, document: UInt64, of index: FullTextIndex, tokenizer: IndexTokenizer
    ) -> Bool {
        let batch = filling
        let slot: Int
        if let last = batch.indexes.indices.last, batch.indexes[last].terms == index.terms {
            slot = last
        } else if let found = batch.indexes.firstIndex(where: { $0.terms == index.terms }) {
            slot = found
        } else {
            slot = batch.indexes.count
            batch.indexes.append(index)
            batch.tokenizers.append(tokenizer)
        }
        if let text { batch.terms.append(termsOf: text, tokenizer: batch.tokenizers[slot], scratch: &scratch) }
        batch.entries.append(Batch.Entry(index: slot, document: document, termsEnd: batch.terms.count))
        return batch.entries.count >= batchDocuments || batch.terms.bytes.count >= batchBytes
    }

    /// Waits until the worker is done with its batch: the writer's thread then owns every pending
    /// change again.
    func waitForWorker() {
        guard working else { return }
        finished.wait()
        working = false
    }

    /// Gives the batch being filled to the worker (which must be idle: `waitForWorker`).
    ///
    /// - Parameter changes: the pending changes of an index (asked on this thread: they may have to
    ///   be begun from the stored statistics).
    /// - Throws: what `changes` throws; the batch then stays, whole, to be given again.
    func startBatch(_ changes: (FullTextIndex) throws(StoreError) -> FullTextChanges.Pending) throws(StoreError) {
        precondition(!working, "a batch handed to a busy worker")
        guard !filling.entries.isEmpty else { return }
        let batch = filling
        try resolve(batch, changes)
        swap(&filling, &other)
        filling.clear()
        working = true
        batchesStarted += 1
        worker.async { [self] in
            index(batch)
            finished.signal()
        }
    }

    /// Indexes the batch being filled on the calling thread (the worker must be idle).
    ///
    /// - Throws: what `changes` throws; the batch then stays, whole.
    func indexHeldDocuments(_ changes: (FullTextIndex) throws(StoreError) -> FullTextChanges.Pending)
        throws(StoreError)
    {
        precondition(!working, "held documents indexed beside a busy worker")
        guard !filling.entries.isEmpty else { return }
        try resolve(filling, changes)
        index(filling)
        filling.clear()
    }

    /// Drops every document held (the transaction ended); waits for the worker first.
    func abandon() {
        waitForWorker()
        filling.clear()
        other.clear()
        seen = 0
    }

    private func resolve(
        _ batch: Batch, _ changes: (FullTextIndex) throws(StoreError) -> FullTextChanges.Pending
    ) throws(StoreError) {
        var resolved: [FullTextChanges.Pending] = []
        for index in batch.indexes { resolved.append(try changes(index)) }
        batch.changes = resolved
    }

    private func index(_ batch: Batch) {
        batch.terms.withBuffers { terms in
            var start = 0
            for entry in batch.entries {
                let changes = batch.changes[entry.index]
                let hasTerms = builder.read(start..<entry.termsEnd, of: terms, into: changes)
                builder.post(as: hasTerms ? entry.document : nil, to: changes)
                start = entry.termsEnd
            }
        }
    }
}
