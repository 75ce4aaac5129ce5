/// Turns a new document's text into postings added to its index's pending changes: its terms
/// numbered in the write's term table, each term's positions encoded as a block's body is and
/// appended to that term's stream. Its buffers are reused by every document.
///
/// Used by one thread at a time: the writer's (`FullTextChanges`), or the pipeline's worker while
/// the writer's thread leaves those changes alone (`FullTextPipeline`).
struct PostingBuilder {
    /// What the tokenizer reuses: room for a word too long for its stack buffer, the stems met.
    private var scratch = TokenizerScratch()
    /// The document's terms as `term number << 32 | position`: sorted, they group by term in order.
    private var occurrences: [UInt64] = []
    /// A posting encoded before it is copied into the arena.
    private var encoding: [UInt8] = []

    /// Reads `text` (UTF-8; nil: null) into the terms `post` adds: each term numbered in `changes`'
    /// table. Returns whether it holds any term.
    mutating func read(
        _ text: UnsafeRawBufferPointer?, tokenizer: IndexTokenizer, into changes: FullTextChanges.Pending
    ) -> Bool {
        // Moved out, not copied: each stays uniquely referenced, so it is reused, not reallocated.
        var scratch = TokenizerScratch()
        var occurrences: [UInt64] = []
        swap(&scratch, &self.scratch)
        swap(&occurrences, &self.occurrences)
        defer {
            self.scratch = scratch
            self.occurrences = occurrences
        }
        occurrences.removeAll(keepingCapacity: true)
        if let text {
            tokenizer.forEachTerm(inUTF8: text, scratch: &scratch) { term, position in
                let number = UInt64(changes.terms.number(of: DocumentTerms.key(term)))
                occurrences.append(number << 32 | UInt64(UInt32(truncatingIfNeeded: position)))
            }
        }
        return !occurrences.isEmpty
    }

    /// Reads terms already read from a text (`TermList`'s terms in `range`) into the terms `post`
    /// adds, as `read` does. Returns whether it holds any term.
    mutating func read(_ range: Range<Int>, of terms: TermList.Buffers, into changes: FullTextChanges.Pending) -> Bool {
        var occurrences: [UInt64] = []
        swap(&occurrences, &self.occurrences)
        defer { self.occurrences = occurrences }
        occurrences.removeAll(keepingCapacity: true)
        for term in range {
            let number = UInt64(changes.terms.number(of: terms.term(term)))
            occurrences.append(number << 32 | UInt64(terms.positions[term]))
        }
        return !occurrences.isEmpty
    }

    /// Counts the document `read` last in `changes`' statistics and appends its postings as
    /// `document`'s (nil: it has no terms, so no document).
    mutating func post(as document: UInt64?, to changes: FullTextChanges.Pending) {
        var occurrences: [UInt64] = []
        var encoding: [UInt8] = []
        swap(&occurrences, &self.occurrences)
        swap(&encoding, &self.encoding)
        defer {
            self.occurrences = occurrences
            self.encoding = encoding
        }
        changes.statistics.documents += 1
        changes.statistics.length += UInt64(occurrences.count)
        changes.statisticsChanged = true
        guard let document else { return }
        if let last = changes.documents.last, last >= document { changes.documentsAscending = false }
        changes.documents.append(document)
        if changes.postings.count < changes.terms.count {
            changes.postings.append(
                contentsOf: repeatElement(
                    FullTextChanges.PendingTerm(), count: changes.terms.count - changes.postings.count))
        }
        occurrences.sort()
        let length = UInt32(truncatingIfNeeded: occurrences.count)
        var start = 0
        while start < occurrences.count {
            let term = Int(occurrences[start] >> 32)
            var end = start + 1
            while end < occurrences.count, occurrences[end] >> 32 == occurrences[start] >> 32 { end += 1 }
            changes.bytes += Self.append(
                document: document, length: length, positions: occurrences[start..<end], term: term,
                to: changes, encoding: &encoding)
            start = end
        }
    }

    /// Appends a posting to a term's pending ones; returns the bytes it took.
    private static func append(
        document: UInt64, length: UInt32, positions occurrences: ArraySlice<UInt64>, term: Int,
        to changes: FullTextChanges.Pending, encoding: inout [UInt8]
    ) -> Int {
        let positions = occurrences.lazy.map { UInt32(truncatingIfNeeded: $0) }
        var pending = changes.postings[term]
        if pending.postings > 0, document <= pending.last {
            changes.outOfOrder[term, default: []].append(
                PostingBlock.Posting(
                    document: document, count: UInt32(positions.count), length: length,
                    positions: Array(positions)))
            return 24 + 4 * positions.count
        }
        encoding.removeAll(keepingCapacity: true)
        appendVarint(pending.postings == 0 ? 0 : document - pending.last, to: &encoding)
        appendVarint(UInt64(positions.count), to: &encoding)
        appendVarint(UInt64(length), to: &encoding)
        var positionBytes = 0
        var previous: UInt32 = 0
        for position in positions {
            positionBytes += varintSize(UInt64(position - previous))
            previous = position
        }
        appendVarint(UInt64(positionBytes), to: &encoding)
        previous = 0
        for position in positions {
            appendVarint(UInt64(position - previous), to: &encoding)
            previous = position
        }
        if pending.postings == 0 { pending.first = document }
        pending.last = document
        pending.postings += 1
        encoding.withUnsafeBufferPointer { changes.arena.append($0, to: &pending.stream) }
        changes.postings[term] = pending
        return encoding.count
    }
}

/// Terms read from texts, in order: their bytes (cut as index keys) one after another, where each
/// ends, and each one's position in its text.
struct TermList {
    private(set) var bytes: [UInt8] = []
    private(set) var ends: [Int] = []
    private(set) var positions: [UInt32] = []

    var count: Int { ends.count }

    /// Appends the terms of `text` as `tokenizer` reads them.
    mutating func append(
        termsOf text: UnsafeRawBufferPointer, tokenizer: IndexTokenizer, scratch: inout TokenizerScratch
    ) {
        // Moved out, not copied: each stays uniquely referenced while the closure appends.
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var positions: [UInt32] = []
        swap(&bytes, &self.bytes)
        swap(&ends, &self.ends)
        swap(&positions, &self.positions)
        defer {
            self.bytes = bytes
            self.ends = ends
            self.positions = positions
        }
        tokenizer.forEachTerm(inUTF8: text, scratch: &scratch) { term, position in
            bytes.append(contentsOf: DocumentTerms.key(term))
            ends.append(bytes.count)
            positions.append(UInt32(truncatingIfNeeded: position))
        }
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
    }

    /// The list's storage for a reader that walks it many times (valid inside `body` only).
    func withBuffers<R>(_ body: (Buffers) -> R) -> R {
        bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                positions.withUnsafeBufferPointer { positions in
                    body(Buffers(bytes: bytes, ends: ends, positions: positions))
                }
            }
        }
    }

    struct Buffers {
        let bytes: UnsafeBufferPointer<UInt8>
        let ends: UnsafeBufferPointer<Int>
        let positions: UnsafeBufferPointer<UInt32>

        @inline(__always)
        func term(_ number: Int) -> UnsafeBufferPointer<UInt8> {
            let start = number == 0 ? 0 : ends[number - 1]
            return UnsafeBufferPointer(rebasing: bytes[start..<ends[number]])
        }
    }
}
