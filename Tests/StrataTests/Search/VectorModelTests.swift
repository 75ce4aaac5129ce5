import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The vector index against a plain reference (every vector compared in Double): seeded random writes
/// (adds, moves, vectors emptied, deletes) grow a graph past the exact threshold; after each write
/// `verify()` holds, every answer is a live object at its true distance, in order, and recall@10
/// against the reference stays high, with and without filters.
@Suite(.fixtureChecks, .offThePool) struct VectorModelTests {
    struct Trial {
        var recalled = 0
        var asked = 0
        var exactQueries = 0
        var narrowRecalled = 0
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func randomWritesMatchTheReference(seed: UInt64) throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: seed, dimensions: 16, clusters: 3, planeDimensions: 14)
        var model: [Int: (vector: [Float], group: Int)] = [:]
        var nextID = 1
        var trial = Trial()
        for round in 0..<24 {
            try store.write {
                let adds = round < 16 ? 100 : 10
                for _ in 0..<adds {
                    let passage = Passage()
                    passage.id = nextID
                    passage.embedding = source.int(0..<25) == 0 ? [] : source.vector()
                    passage.group = source.int(0..<10)
                    model[nextID] = (passage.embedding, passage.group)
                    nextID += 1
                    try store.add(passage)
                }
                for _ in 0..<(round < 16 ? 15 : 40) {
                    guard let id = model.keys.randomElement(using: &source) else { break }
                    switch source.int(0..<4) {
                    case 0:
                        try store.delete(try #require(store.object(ofType: Passage.self, forPrimaryKey: id)))
                        model[id] = nil
                    case 1:
                        let vector = source.int(0..<5) == 0 ? [] : source.vector()
                        try #require(store.object(ofType: Passage.self, forPrimaryKey: id)).embedding = vector
                        model[id]!.vector = vector
                    case 2:
                        let group = source.int(0..<10)
                        try #require(store.object(ofType: Passage.self, forPrimaryKey: id)).group = group
                        model[id]!.group = group
                    default:
                        // Replaced whole, the same vector: the node stays.
                        let same = Passage()
                        same.id = id
                        same.embedding = model[id]!.vector
                        same.group = model[id]!.group
                        try store.add(same, update: .all)
                    }
                }
            }
            try store.verify()
            let indexed = model.filter { !$0.value.vector.isEmpty }
            for _ in 0..<6 {
                let query = source.vector()
                let filter = source.int(0..<3)  // none, group == g (a tenth: the graph), id <= 60 (few: exact)
                let group = source.int(0..<10)
                var results = store.objects(Passage.self)
                var candidates = indexed
                switch filter {
                case 1:
                    results = results.where { $0.group == group }
                    candidates = candidates.filter { $0.value.group == group }
                case 2:
                    results = try results.where("id <= 60")
                    candidates = candidates.filter { $0.key <= 60 }
                default: break
                }
                let expected = VectorReference.nearest(
                    query, k: 10, among: candidates.map { ($0.key, $0.value.vector) }, metric: .cosine)
                let found = try results.nearest(to: query, k: 10, by: \.embedding).distances()
                try check(found, against: expected, model: model, query: query, trial: &trial)
                // The narrowest search (ef = k) shows the graph's own quality.
                let narrow = try results.nearest(to: query, k: 10, by: \.embedding, ef: 10).map(\.id)
                trial.narrowRecalled += Set(narrow).intersection(expected.map(\.key)).count
                if indexed.count <= VectorIndex.exactBelow || filter == 2 {
                    trial.exactQueries += 1
                    #expect(found.map(\.object.id) == expected.map(\.key), "exact: round \(round), filter \(filter)")
                }
            }
        }
        #expect(model.count > VectorIndex.exactBelow)
        let recall = Double(trial.recalled) / Double(trial.asked)
        #expect(recall >= 0.9, "recall@10 \(recall) over \(trial.asked) answers")
        #expect(trial.exactQueries > 0)
        let narrowRecall = Double(trial.narrowRecalled) / Double(trial.asked)
        #expect(narrowRecall >= 0.95, "recall@10 at ef = 10: \(narrowRecall)")
    }

    /// Every answer: live, not deleted, with a vector, at the reference's distance, in order; counted
    /// towards recall when the reference has it.
    private func check(
        _ found: [(object: Passage, distance: Float)], against expected: [(key: Int, distance: Double)],
        model: [Int: (vector: [Float], group: Int)], query: [Float], trial: inout Trial
    ) throws {
        #expect(found.count == expected.count)
        var previous = -Double.infinity
        for (object, distance) in found {
            let stored = try #require(model[object.id], "a deleted object \(object.id) was found")
            #expect(!stored.vector.isEmpty)
            let reference = VectorReference.distance(query, stored.vector, metric: .cosine)
            #expect(abs(Double(distance) - reference) < 1e-4)
            #expect(Double(distance) >= previous - 1e-6)
            previous = Double(distance)
        }
        let wanted = Set(expected.map(\.key))
        trial.recalled += found.filter { wanted.contains($0.object.id) }.count
        trial.asked += expected.count
    }

    /// Deleting most of a graph's nodes leaves it searchable: the neighbours of each deleted node are
    /// linked again among themselves (without that repair, this recall falls).
    @Test func recallHoldsAfterMostVectorsAreDeleted() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: 5, dimensions: 16, clusters: 3, planeDimensions: 14)
        var model: [Int: [Float]] = [:]
        try store.write {
            for id in 1...3_000 {
                let passage = Passage()
                passage.id = id
                passage.embedding = source.vector()
                model[id] = passage.embedding
                try store.add(passage)
            }
        }
        var doomed = Array(model.keys).shuffled(using: &source).prefix(1_900)
        while !doomed.isEmpty {
            let batch = doomed.prefix(500)
            doomed = doomed.dropFirst(500)
            try store.write {
                for id in batch {
                    try store.delete(try #require(store.object(ofType: Passage.self, forPrimaryKey: id)))
                    model[id] = nil
                }
            }
        }
        try store.verify()
        #expect(model.count > VectorIndex.exactBelow)
        var recalled = 0
        var widerRecalled = 0
        var asked = 0
        for _ in 0..<60 {
            let query = source.vector()
            let expected = VectorReference.nearest(
                query, k: 10, among: model.map { ($0.key, $0.value) }, metric: .cosine)
            let found = try store.objects(Passage.self).nearest(to: query, k: 10, by: \.embedding, ef: 10).map(\.id)
            recalled += Set(found).intersection(expected.map(\.key)).count
            let wider = try store.objects(Passage.self).nearest(to: query, k: 10, by: \.embedding).map(\.id)
            widerRecalled += Set(wider).intersection(expected.map(\.key)).count
            asked += expected.count
        }
        // Measured: 0.90 at ef = 10 (0.35 without the repair), 0.998 at the default ef.
        let recall = Double(recalled) / Double(asked)
        #expect(recall >= 0.8, "recall@10 at ef = 10 after deletions: \(recall)")
        let widerRecall = Double(widerRecalled) / Double(asked)
        #expect(widerRecall >= 0.95, "recall@10 at the default ef after deletions: \(widerRecall)")
    }

    @Test func stringKeysAndEuclideanDistanceThroughTheGraph() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: 7, dimensions: 8)
        var model: [String: [Float]] = [:]
        try store.write {
            for index in 0..<1_400 {
                let landmark = Landmark()
                landmark.name = "landmark \(index)"
                landmark.point = source.vector()
                model[landmark.name] = landmark.point
                try store.add(landmark)
            }
        }
        try store.write {
            for index in stride(from: 0, to: 1_400, by: 3) {
                try store.delete(try #require(store.object(ofType: Landmark.self, forPrimaryKey: "landmark \(index)")))
                model["landmark \(index)"] = nil
            }
        }
        try store.verify()
        var recalled = 0
        var asked = 0
        for _ in 0..<40 {
            let query = source.vector()
            let expected = VectorReference.nearest(
                query, k: 10, among: model.map { ($0.key, $0.value) }, metric: .euclidean)
            let found = try store.objects(Landmark.self).nearest(to: query, k: 10, by: \.point).distances()
            for (object, distance) in found {
                let vector = try #require(model[object.name])
                #expect(abs(Double(distance) - VectorReference.distance(query, vector, metric: .euclidean)) < 1e-3)
            }
            recalled += Set(found.map(\.object.name)).intersection(expected.map(\.key)).count
            asked += expected.count
        }
        #expect(Double(recalled) / Double(asked) >= 0.9, "recall \(recalled) of \(asked)")
    }
}

extension VectorSource: RandomNumberGenerator {}

/// `DocumentTable` against a `Dictionary`: seeded random inserts and assignments, keys spread over
/// the whole UInt64 range and clustered (integer keys, signed keys' flipped bit).
@Suite struct DocumentTableTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func matchesADictionary(seed: UInt64) {
        var source = VectorSource(seed: seed, dimensions: 1)
        var table = DocumentTable<Int>(minimumCapacity: 4)
        var reference: [UInt64: Int] = [:]
        for step in 0..<5_000 {
            let key: UInt64 =
                switch source.int(0..<3) {
                case 0: source.next()
                case 1: UInt64(source.int(0..<2_000))
                default: (1 << 63) | UInt64(source.int(0..<2_000))
                }
            if source.int(0..<2) == 0 {
                #expect(table.insert(key, step) == (reference[key] == nil))
                if reference[key] == nil { reference[key] = step }
            } else {
                table[key] = step
                reference[key] = step
            }
            let probe: UInt64 = source.int(0..<2) == 0 ? key : UInt64(source.int(0..<4_000))
            #expect(table[probe] == reference[probe])
        }
        #expect(table.count == reference.count)
        for (key, value) in reference { #expect(table[key] == value) }
    }
}
