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
