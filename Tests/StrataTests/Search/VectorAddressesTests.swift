import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The addresses a snapshot's searches remember (`VectorAddresses`) change no answer: the same
/// queries on one snapshot through no addresses (every value from the map), through addresses met
/// one descent at a time, and through addresses loaded by one walk of the graph's tables give the
/// same documents at the same distances, over dense documents, spread ones (hash tables), negative
/// keys and numbered String keys, after deletions left links to nodes that are gone.
@Suite(.fixtureChecks, .offThePool) struct VectorAddressesTests {
    enum Keys: CaseIterable {
        case dense, spread, negative
    }

    @Test(arguments: Keys.allCases)
    func walkedAndMetAddressesAnswerAsTheMapDoes(keys: Keys) throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: 21, dimensions: 16, clusters: 4, planeDimensions: 10)
        var ids: [Int] = []
        try store.write {
            for number in 1...1_500 {
                let passage = Passage()
                passage.id =
                    switch keys {
                    case .dense: number
                    case .spread: number * 7_919
                    case .negative: -number
                    }
                passage.embedding = source.vector()
                passage.group = number % 10
                ids.append(passage.id)
                try store.add(passage)
            }
        }
        try store.write {
            for id in ids.shuffled(using: &source).prefix(400) {
                try store.delete(try #require(store.object(ofType: Passage.self, forPrimaryKey: id)))
            }
            for id in ids.shuffled(using: &source).prefix(200) {
                store.object(ofType: Passage.self, forPrimaryKey: id)?.embedding = source.vector()
            }
        }
        let index = try #require(store.core.binding(for: Passage.self).derived.vectors.first)
        let queries = (0..<40).map { _ in source.vector() }
        try expectSameAnswers(store, index: index, queries: queries, dense: keys != .spread)
    }

    @Test func numberedStringKeysWalkDense() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: 22, dimensions: 8)
        try store.write {
            for number in 0..<1_800 {
                let landmark = Landmark()
                landmark.name = "landmark \(number)"
                landmark.point = source.vector()
                try store.add(landmark)
            }
        }
        try store.write {
            for number in stride(from: 0, to: 1_800, by: 3) {
                try store.delete(try #require(store.object(ofType: Landmark.self, forPrimaryKey: "landmark \(number)")))
            }
        }
        let index = try #require(store.core.binding(for: Landmark.self).derived.vectors.first)
        let queries = (0..<40).map { _ in source.vector() }
        try expectSameAnswers(store, index: index, queries: queries, dense: true)
    }

    /// Each query through the three ways, plain and filtered, at two breadths; then every node's
    /// vector and links (and documents that have none) through the walked addresses and the map.
    private func expectSameAnswers(_ store: Store, index: VectorIndex, queries: [[Float]], dense: Bool) throws {
        let core = store.core
        let count = Int(try core.header(of: index).count)
        #expect(count > VectorIndex.exactBelow)
        let met = VectorAddresses(generation: 0, mayWalk: false)
        let walked = VectorAddresses(generation: 0, mayWalk: true)
        let plain = VectorGraph(index: index, storage: core)
        try VectorGraph(index: index, storage: core, addresses: walked).loadAddresses(into: walked, nodes: count)
        #expect(walked.isComplete && walked.isDense == dense)
        var documents: [UInt64] = []
        try core.withCursor(index.nodes) { (cursor) throws(LMDBError) in
            var entry = try cursor.first()
            while let (key, _) = entry {
                if key.count == 8 { documents.append(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))) }
                entry = try cursor.next()
            }
        }
        #expect(documents.count == count)
        let allowed = Set(documents.enumerated().filter { $0.offset % 4 == 0 }.map(\.element))
        for vector in queries {
            let query = try index.prepared(vector, what: "the query")
            for ef in [10, 40] {
                for filter in [nil, VectorFilter.documents(allowed)] {
                    let expected = try plain.nearest(to: query, k: 10, ef: ef, allowed: filter)
                    #expect(expected.count == 10)
                    for addresses in [met, walked] {
                        let found = try VectorGraph(index: index, storage: core, addresses: addresses)
                            .nearest(to: query, k: 10, ef: ef, allowed: filter)
                        #expect(found.map(\.document) == expected.map(\.document))
                        #expect(found.map(\.distance) == expected.map(\.distance))
                    }
                }
            }
        }
        #expect(!met.isComplete && met.descents > 0)
        let throughWalk = VectorGraph(index: index, storage: core, addresses: walked)
        // Documents with no node among them: below, between and past the nodes'.
        let others = (0..<50).map { UInt64($0) } + documents.map { $0 &+ 1 } + [UInt64.max, 1 << 63]
        // By content: an encrypted file's values are opened copies, a new one per lookup in the map.
        func vectorBytes(_ graph: VectorGraph<StoreCore>, _ document: UInt64) throws -> [UInt8]? {
            try graph.vector(of: document).map {
                Array(UnsafeRawBufferPointer(start: $0, count: index.settings.vectorBytes))
            }
        }
        for document in documents + others {
            #expect(try vectorBytes(throughWalk, document) == vectorBytes(plain, document), "document \(document)")
            for level in 0..<3 {
                let viaWalk = try throughWalk.linkBytes(of: document, level: level)
                let viaMap = try plain.linkBytes(of: document, level: level)
                #expect(Array(viaWalk) == Array(viaMap), "document \(document), level \(level)")
            }
        }
    }

    /// Many queries on one snapshot walk its graph once (the descents paid reach the walk's
    /// price); a write starts over with addresses of its own; answers stay the reference's.
    @Test func aSnapshotThatKeepsAnsweringWalksItsGraphOnce() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: 23, dimensions: 16, clusters: 3, planeDimensions: 14)
        var model: [Int: [Float]] = [:]
        try store.write {
            for id in 1...2_000 {
                let passage = Passage()
                passage.id = id
                passage.embedding = source.vector()
                model[id] = passage.embedding
                try store.add(passage)
            }
        }
        let index = try #require(store.core.binding(for: Passage.self).derived.vectors.first)
        _ = try store.objects(Passage.self).nearest(to: source.vector(), k: 10, by: \.embedding).count
        let first = try #require(store.core.vectorAddresses(for: index))
        // An encrypted file never walks (its values are opened copies: a walk would copy the graph).
        let mayWalk = store.core.environment.sealing == nil
        #expect(first.mayWalk == mayWalk && !first.isComplete && first.descents > 0)
        var recalled = 0
        for round in 0..<80 {
            let query = source.vector()
            let expected = VectorReference.nearest(
                query, k: 10, among: model.map { ($0.key, $0.value) }, metric: .cosine)
            let found = try store.objects(Passage.self).nearest(to: query, k: 10, by: \.embedding).map(\.id)
            recalled += Set(found).intersection(expected.map(\.key)).count
            if round == 40 {
                #expect(store.core.vectorAddresses(for: index) === first)
                #expect(first.isComplete == mayWalk, "walked after \(first.descents) descents")
            }
        }
        #expect(Double(recalled) / 800 >= 0.95)
        try store.write {
            try store.delete(try #require(store.object(ofType: Passage.self, forPrimaryKey: 7)))
        }
        model[7] = nil
        let found = try store.objects(Passage.self).nearest(to: source.vector(), k: 10, by: \.embedding).map(\.id)
        #expect(!found.contains(7))
        let second = try #require(store.core.vectorAddresses(for: index))
        #expect(second !== first && !second.isComplete)
    }

    /// A damaged node or links value stops the walk with the error a search meeting it throws; the
    /// addresses stay incomplete.
    @Test func aWalkOverDamageIsCorrupted() throws {
        for damage in ["node", "links"] {
            let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
            let store = try Store(configuration: fixture.configuration)
            var source = VectorSource(seed: 24, dimensions: 16)
            try store.write {
                for id in 1...600 {
                    let passage = Passage()
                    passage.id = id
                    passage.embedding = source.vector()
                    try store.add(passage)
                }
            }
            let index = try #require(store.core.binding(for: Passage.self).derived.vectors.first)
            let document = RowKey.signed(300).integerValue
            try store.write {
                let session = store.core.session!
                let key = damage == "node" ? VectorIndex.nodeKey(document) : VectorIndex.linksKey(document, level: 0)
                let table = damage == "node" ? index.nodes : index.links
                var value = try #require(try session.value(in: table, at: key))
                value += [1, 2, 3]
                try session.put(in: table, key: key, value: value)
            }
            let addresses = VectorAddresses(generation: 0, mayWalk: true)
            #expect {
                try VectorGraph(index: index, storage: store.core, addresses: addresses)
                    .loadAddresses(into: addresses, nodes: 600)
            } throws: { error in
                guard case .corrupted(let message) = error as? StoreError else { return false }
                return message.contains("vector index of Passage.embedding") && message.contains("node \(document)")
            }
            #expect(!addresses.isComplete)
        }
    }
}
