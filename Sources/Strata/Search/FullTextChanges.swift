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
    fileprivate struct PendingTerm {
        var stream = PostingArena.Stream()
        var postings = 0
        var first: UInt64 = 0
        var last: UInt64 = 0
    }

    /// A class: a write's every document changes it in place (a struct in the dictionary was moved
    /// out and back per document, a copy of its hundreds of bytes each way). Used by the writer's
    /// thread only, so its hot properties skip the runtime's exclusivity checks.
    fileprivate final class Pending {
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

    /// Postings held before they are written anyway (a bulk insert of large texts stays bounded).
    static let flushBytes = 64 << 20

    private var pending: [Table: Pending] = [:]
    /// Reused by every document: a term's bytes, and the document's (term, position) pairs.
    private var termScratch: [UInt8] = []
    /// A document's terms as `term number << 32 | position`: sorted, they group by term in order.
    private var occurrences: [UInt64] = []
    /// A posting encoded before it is copied into the arena.
    private var encoding: [UInt8] = []

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
        let tokenizer = index.tokenizer
        // Moved out, not copied: each stays uniquely referenced, so it is reused, not reallocated.
        var scratch: [UInt8] = []
        var occurrences: [UInt64] = []
        var encoding: [UInt8] = []
        swap(&scratch, &termScratch)
        swap(&occurrences, &self.occurrences)
        swap(&encoding, &self.encoding)
        defer {
            termScratch = scratch
            self.occurrences = occurrences
            self.encoding = encoding
        }
        occurrences.removeAll(keepingCapacity: true)
        try withPending(index, storage) { (changes) throws(StoreError) in
            if let text {
                tokenizer.forEachTerm(inUTF8: text, scratch: &scratch) { term, position in
                    let number = UInt64(changes.terms.number(of: DocumentTerms.key(term)))
                    occurrences.append(number << 32 | UInt64(UInt32(truncatingIfNeeded: position)))
                }
            }
            // Numbered first: a failed numbering put leaves the statistics as they were.
            let document =
                occurrences.isEmpty
                ? nil : try Self.newDocument(rowKey: rowKey, index: index, changes: changes, storage: storage)
            changes.statistics.documents += 1
            changes.statistics.length += UInt64(occurrences.count)
            changes.statisticsChanged = true
            guard let document else { return }
            if let last = changes.documents.last, last >= document { changes.documentsAscending = false }
            changes.documents.append(document)
            if changes.postings.count < changes.terms.count {
                changes.postings.append(
                    contentsOf: repeatElement(PendingTerm(), count: changes.terms.count - changes.postings.count))
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
        if let changes = pending[index.terms], max(changes.bytes, changes.arena.size) > Self.flushBytes {
            try flush(index, to: storage)
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

    /// Appends a posting to a term's pending ones; returns the bytes it took.
    private static func append(
        document: UInt64, length: UInt32, positions occurrences: ArraySlice<UInt64>, term: Int,
        to changes: Pending, encoding: inout [UInt8]
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
        if let changes = pending[index.terms] { return try body(changes) }
        let changes = Pending(index: index, statistics: try storage.statistics(of: index))
        pending[index.terms] = changes
        try body(changes)
    }
}

func varintSize(_ value: UInt64) -> Int {
    value < 0x80 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
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

    /// Adds a term's pending postings (`stream`: `count` postings encoded as a block's body, the
    /// first at distance 0 from `first`, the last `last`). When they all follow the term's last block
    /// they join it while it has room, then new blocks follow, cut from the stream as it is; when they
    /// fall among the term's documents, they are merged (`merge`). `appending`: the table has no
    /// block yet and keys come in order (`MDB_APPEND`, no search).
    func add(stream: [UInt8], count: Int, first: UInt64, last: UInt64, to term: [UInt8], appending: Bool)
        throws(StoreError)
    {
        var stream = stream[...]
        var first = first
        var count = count
        if !appending {
            let (existing, next) = try block(of: term, for: first)
            if let existing {
                let header: (count: Int, last: UInt64)
                do {
                    header = try existing.value.withBytes { (raw) throws(RowDamage) in try PostingBlock.header(raw) }
                } catch {
                    throw index.damage(error)
                }
                guard existing.first <= first, header.last < first, next == nil else {
                    // Among the term's documents: merged block by block.
                    var postings: [PostingBlock.Posting] = []
                    do {
                        try Array(stream).withBytes { (raw) throws(RowDamage) in
                            postings = try PostingBlock.decodeBody(raw, count: count, first: first)
                        }
                    } catch {
                        throw index.damage(error)
                    }
                    return try merge(postings, into: term)
                }
                // After the term's last block: the first postings join it while it has room.
                var joined = 0
                var end = stream.startIndex
                var size = existing.value.count + varintSize(first - header.last) - 1
                var reader = StreamReader(stream)
                while joined < count, header.count + joined < Int(UInt16.max) {
                    let (_, next) = reader.peekPosting()
                    let added = next - end
                    guard size + added <= PostingBlock.targetBytes else { break }
                    size += added
                    end = next
                    reader.offset = next
                    joined += 1
                }
                if joined > 0 {
                    var value = existing.value
                    // The joined postings' documents, walked to find the new last one.
                    var document = first
                    var walker = StreamReader(stream[..<end])
                    var firstPosting = true
                    while walker.offset < end {
                        let (distance, next) = walker.peekPosting()
                        document += firstPosting ? 0 : distance
                        firstPosting = false
                        walker.offset = next
                    }
                    appendVarint(first - header.last, to: &value)
                    value.append(contentsOf: stream[(stream.startIndex + 1)..<end])  // after its distance 0
                    PostingBlock.writeHeader(count: header.count + joined, last: document, into: &value)
                    try storage.put(in: index.terms, key: existing.key, value: value)
                    guard joined < count else { return }
                    // The rest starts at `end`, at its distance from `document`.
                    var rest = StreamReader(stream)
                    rest.offset = end
                    let (distance, _) = rest.peekPosting()
                    first = document + distance
                    count -= joined
                    stream = stream[end...]
                    var rebased = [UInt8]()
                    rebased.reserveCapacity(stream.count)
                    rebased.append(0)
                    rebased.append(contentsOf: stream[(end + varintSize(distance))...])
                    return try writeStream(rebased[...], count: count, first: first, of: term, appending: false)
                }
            }
        }
        try writeStream(stream, count: count, first: first, of: term, appending: appending)
    }

    /// Writes an encoded stream of postings as new blocks of about `PostingBlock.targetBytes`.
    private func writeStream(
        _ stream: ArraySlice<UInt8>, count: Int, first: UInt64, of term: [UInt8], appending: Bool
    ) throws(StoreError) {
        var reader = StreamReader(stream)
        var chunkStart = stream.startIndex
        var chunkFirst = first
        var chunkCount = 0
        var document = first
        var chunkLast = first
        var chunkBytes = PostingBlock.headerBytes
        var written = 0
        func emit() throws(StoreError) {
            guard chunkCount > 0 else { return }
            var value = [UInt8](repeating: 0, count: PostingBlock.headerBytes)
            value.reserveCapacity(chunkBytes + 8)
            var head = StreamReader(stream)
            head.offset = chunkStart
            let (distance, _) = head.peekPosting()
            value.append(0)
            value.append(contentsOf: stream[(chunkStart + varintSize(distance))..<reader.offset])
            PostingBlock.writeHeader(count: chunkCount, last: chunkLast, into: &value)
            try storage.put(
                in: index.terms, key: PostingBlock.key(term: term, first: chunkFirst), value: value,
                appending: appending)
            written += chunkCount
        }
        while written + chunkCount < count {
            let (distance, next) = reader.peekPosting()
            document = written + chunkCount == 0 ? first : document + distance
            let size = next - reader.offset
            if chunkCount > 0, chunkBytes + size > PostingBlock.targetBytes || chunkCount == Int(UInt16.max) {
                try emit()
                chunkStart = reader.offset
                chunkFirst = document
                chunkCount = 0
                chunkBytes = PostingBlock.headerBytes
            }
            chunkCount += 1
            chunkBytes += size
            chunkLast = document
            reader.offset = next
        }
        try emit()
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

/// Walks the postings of an encoded stream (a block's body) without decoding their positions.
struct StreamReader {
    let stream: ArraySlice<UInt8>
    var offset: Int

    init(_ stream: ArraySlice<UInt8>) {
        self.stream = stream
        offset = stream.startIndex
    }

    /// The distance of the posting at `offset`, and where the next one starts. (The stream was
    /// encoded by this write: it is well formed.)
    func peekPosting() -> (distance: UInt64, next: Int) {
        var at = offset
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = stream[at]
                at += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        let distance = varint()
        _ = varint()  // count
        _ = varint()  // length
        let positionBytes = varint()
        return (distance, at + Int(positionBytes))
    }
}
