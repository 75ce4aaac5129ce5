/// A fingerprint of a full-text index's postings, independent of their order: the number of postings
/// and the wrapping sum of one hash per posting (its term, document, count, length and positions).
/// `verify()` computes it twice, from the rows (each read with the index's tokenizer) and from the
/// index's blocks, in one pass each and constant memory; any posting missing, extra or changed
/// changes it (up to a 64-bit hash collision).
struct FullTextFingerprint: Equatable {
    var postings = 0
    var sum: UInt64 = 0
    /// The statistics the postings imply (documents and length only count documents with terms;
    /// the caller adds the empty ones).
    var length: UInt64 = 0
    /// Documents with at least one term (what a numbering maps).
    var documents = 0

    mutating func add(term: some Sequence<UInt8>, _ posting: PostingBlock.Posting) {
        var hash = FNV1a.hash(term)
        for value in [posting.document, UInt64(posting.count), UInt64(posting.length)]
            + posting.positions.map(UInt64.init)
        {
            hash = (hash ^ value) &* 0x100_0000_01b3
            hash ^= hash >> 29
        }
        // SplitMix64's finaliser: sums of nearby hashes stay far apart.
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        sum &+= hash ^ (hash >> 31)
        postings += 1
    }

    /// Adds the postings of one document (its number, and its terms as the tokenizer read them).
    mutating func add(document: UInt64, _ terms: DocumentTerms) {
        for (term, positions) in terms.positions {
            add(
                term: term,
                PostingBlock.Posting(
                    document: document, count: UInt32(positions.count), length: UInt32(terms.length),
                    positions: positions))
        }
        length += UInt64(terms.length)
        documents += 1
    }

    /// The fingerprint of the blocks of `index`'s terms table, and its statistics record, walking
    /// `cursor` (on that table).
    ///
    /// - Throws: `.corrupted` naming the index when a key or block cannot be read.
    static func stored(_ index: FullTextIndex, _ cursor: borrowing Cursor) throws(StoreError) -> (
        fingerprint: FullTextFingerprint, statistics: FullTextStatistics?
    ) {
        var fingerprint = FullTextFingerprint()
        var statistics: FullTextStatistics?
        do {
            var entry = try cursor.first()
            while let current = entry {
                if current.key.elementsEqual(FullTextStatistics.key) {
                    statistics = try FullTextStatistics(current.value)
                } else {
                    guard let (term, first) = PostingBlock.parse(key: current.key) else {
                        throw RowDamage("a key of \(current.key.count) bytes is no posting block's")
                    }
                    let termBytes = Array(term)
                    try PostingBlock.decode(current.value, first: first, positions: true) { posting in
                        fingerprint.add(term: termBytes, posting)
                    }
                }
                entry = try cursor.next()
            }
        } catch let error as LMDBError {
            throw StoreError(error)
        } catch {
            throw index.damage("\(error)")
        }
        return (fingerprint, statistics)
    }
}
