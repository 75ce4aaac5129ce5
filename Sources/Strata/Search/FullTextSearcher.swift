import Foundation

/// Answers a `TextQuery` from a full-text index: the documents that match it, or the best of them
/// ranked by BM25 (`BM25`).
struct FullTextSearcher<Storage: FullTextReading> {
    let index: FullTextIndex
    let storage: Storage

    /// One document holding a unit: how often, and the document's length.
    struct Occurrence {
        var document: UInt64
        var count: UInt32
        var length: UInt32
    }

    /// The documents that match `query`, in document order.
    func documents(matching query: TextQuery) throws(StoreError) -> [Occurrence] {
        try matches(query).documents
    }

    /// The documents matching `query` with their BM25 scores, best first; ties in document order.
    func scored(_ query: TextQuery) throws(StoreError) -> [(document: UInt64, score: Double)] {
        let (documents, perUnit) = try matches(query)
        let statistics = try storage.statistics(of: index)
        let scorer = BM25(statistics: statistics, documentCounts: perUnit.map { $0.count })
        var scored: [(document: UInt64, score: Double)] = []
        scored.reserveCapacity(documents.count)
        var cursors = Array(repeating: 0, count: perUnit.count)
        for document in documents {
            var counts: [UInt32] = []
            counts.reserveCapacity(perUnit.count)
            for unit in perUnit.indices {
                let list = perUnit[unit]
                while list[cursors[unit]].document < document.document { cursors[unit] += 1 }
                counts.append(list[cursors[unit]].count)
            }
            scored.append((document.document, scorer.score(counts: counts, length: document.length)))
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.document < $1.document }
        return scored
    }

    /// The documents matching `query` (their required units' occurrences), and each required unit's
    /// occurrences over the whole index (what its weight counts).
    private func matches(_ query: TextQuery) throws(StoreError) -> (documents: [Occurrence], perUnit: [[Occurrence]]) {
        var perUnit: [[Occurrence]] = []
        for unit in query.required { perUnit.append(try occurrences(of: unit)) }
        // The rarest unit first: each intersection only shrinks.
        var result = perUnit.min { $0.count < $1.count } ?? []
        for list in perUnit where !result.isEmpty {
            result = Self.intersection(result, list)
        }
        for unit in query.excluded where !result.isEmpty {
            let excluded = try occurrences(of: unit)
            result = Self.difference(result, excluded)
        }
        return (result, perUnit)
    }

    private static func intersection(_ lhs: [Occurrence], _ rhs: [Occurrence]) -> [Occurrence] {
        var kept: [Occurrence] = []
        var right = 0
        for occurrence in lhs {
            while right < rhs.count, rhs[right].document < occurrence.document { right += 1 }
            if right < rhs.count, rhs[right].document == occurrence.document { kept.append(occurrence) }
        }
        return kept
    }

    private static func difference(_ lhs: [Occurrence], _ rhs: [Occurrence]) -> [Occurrence] {
        var kept: [Occurrence] = []
        var right = 0
        for occurrence in lhs {
            while right < rhs.count, rhs[right].document < occurrence.document { right += 1 }
            if right == rhs.count || rhs[right].document != occurrence.document { kept.append(occurrence) }
        }
        return kept
    }

    /// Every document holding `unit`, with its occurrences there.
    func occurrences(of unit: TextQuery.Unit) throws(StoreError) -> [Occurrence] {
        if !unit.isPhrase {
            return try postings(of: unit.parts[0], positions: false).map {
                Occurrence(document: $0.document, count: $0.count, length: $0.length)
            }
        }
        var lists: [[PostingBlock.Posting]] = []
        for part in unit.parts { lists.append(try postings(of: part, positions: true)) }
        var found: [Occurrence] = []
        var cursors = Array(repeating: 0, count: lists.count)
        documents: for first in lists[0] {
            var starts = Set(first.positions)
            for (number, part) in unit.parts.enumerated().dropFirst() {
                let list = lists[number]
                while cursors[number] < list.count, list[cursors[number]].document < first.document {
                    cursors[number] += 1
                }
                guard cursors[number] < list.count, list[cursors[number]].document == first.document else {
                    continue documents
                }
                let positions = Set(list[cursors[number]].positions)
                starts = starts.filter { positions.contains($0 &+ part.offset) }
                if starts.isEmpty { continue documents }
            }
            found.append(Occurrence(document: first.document, count: UInt32(starts.count), length: first.length))
        }
        return found
    }

    /// The postings of a part: its term's, or (a prefix) those of every term it begins, merged per
    /// document.
    private func postings(of part: TextQuery.Unit.Part, positions: Bool) throws(StoreError) -> [PostingBlock.Posting] {
        var postings: [PostingBlock.Posting] = []
        var terms = 0
        try visitBlocks(startingWith: part.term, exactly: !part.isPrefix) { (first, value) throws(RowDamage) in
            if first.isNewTerm { terms += 1 }
            try PostingBlock.decode(value, first: first.document, positions: positions) { postings.append($0) }
        }
        guard terms > 1 else { return postings }
        // Several terms: one posting per document, counts added, positions merged.
        postings.sort { $0.document < $1.document }
        var merged: [PostingBlock.Posting] = []
        for posting in postings {
            if merged.last?.document == posting.document {
                merged[merged.count - 1].count += posting.count
                merged[merged.count - 1].positions += posting.positions
            } else {
                merged.append(posting)
            }
        }
        if positions { for index in merged.indices { merged[index].positions.sort() } }
        return merged
    }

    /// Visits the blocks of `term` (`exactly`), or of every term beginning with it, in key order.
    private func visitBlocks(
        startingWith term: [UInt8], exactly: Bool,
        _ visit: ((document: UInt64, isNewTerm: Bool), UnsafeRawBufferPointer) throws(RowDamage) -> Void
    ) throws(StoreError) {
        let start = exactly ? term + [PostingBlock.separator] : term
        let failure = try storage.withIndexCursor(index.terms) { (cursor) throws(LMDBError) -> RowDamage? in
            var entry = try start.withBytes { (raw) throws(LMDBError) in try cursor.seek(atLeast: raw) }
            var previousTerm: UnsafeRawBufferPointer?
            while let current = entry, current.key.starts(with: start) {
                guard let (found, first) = PostingBlock.parse(key: current.key) else {
                    return RowDamage("a key of \(current.key.count) bytes is no posting block's")
                }
                let isNewTerm = previousTerm.map { !$0.elementsEqual(found) } ?? true
                previousTerm = found
                do throws(RowDamage) {
                    try visit((first, isNewTerm), current.value)
                } catch {
                    return error
                }
                entry = try cursor.next()
            }
            return nil
        }
        if let failure { throw index.damage(failure) }
    }
}

/// Okapi BM25, as SQLite's FTS5 computes it (`bm25()`, k1 = 1.2, b = 0.75), with the sign turned
/// (higher is better): for each required unit of the query, its weight
/// `log((N - n + 0.5) / (n + 0.5))` (at least 1e-6: a unit in most documents still counts a little)
/// times `count · (k1 + 1) / (count + k1 · (1 - b + b · length / average length))`.
struct BM25 {
    static let k1 = 1.2
    static let b = 0.75

    let weights: [Double]
    let averageLength: Double

    /// `documentCounts`: per required unit, the number of documents holding it.
    init(statistics: FullTextStatistics, documentCounts: [Int]) {
        let total = Double(statistics.documents)
        weights = documentCounts.map { count in
            let weight = log((total - Double(count) + 0.5) / (Double(count) + 0.5))
            return weight > 0 ? weight : 1e-6
        }
        averageLength = statistics.averageLength
    }

    /// The score of a document of `length` terms holding each unit `counts[i]` times.
    func score(counts: [UInt32], length: UInt32) -> Double {
        var score = 0.0
        let norm = Self.k1 * (1 - Self.b + Self.b * Double(length) / averageLength)
        for (weight, count) in zip(weights, counts) {
            let count = Double(count)
            score += weight * (count * (Self.k1 + 1)) / (count + norm)
        }
        return score
    }
}
