import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The vector index's answers, failure paths and life cycle (examples; `VectorModelTests` checks
/// against a plain reference).
@Suite(.fixtureChecks, .offThePool) struct VectorIndexTests {
    private func passages(_ count: Int, seed: UInt64 = 1) throws -> (Fixture, Store, [[Float]]) {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        var source = VectorSource(seed: seed, dimensions: 16)
        var vectors: [[Float]] = []
        try store.write {
            for id in 1...count {
                let passage = Passage()
                passage.id = id
                passage.embedding = source.vector()
                passage.group = id % 10
                vectors.append(passage.embedding)
                try store.add(passage)
            }
        }
        return (fixture, store, vectors)
    }

    @Test func nearestFindsTheClosestVectorsWithDistances() throws {
        let (_, store, vectors) = try passages(50)
        let query = vectors[6]
        let found = try store.objects(Passage.self).nearest(to: query, k: 5, by: \.embedding)
        let expected = VectorReference.nearest(
            query, k: 5, among: vectors.enumerated().map { ($0.offset + 1, $0.element) }, metric: .cosine)
        #expect(found.map(\.id) == expected.map(\.key))
        #expect(found.first?.id == 7)
        let distances = try found.distances()
        for ((object, distance), reference) in zip(distances, expected) {
            #expect(object.id == reference.key)
            #expect(abs(Double(distance) - reference.distance) < 1e-4)
        }
        #expect(found.queryPlan.access == .vectorIndex(property: "embedding"))
        try store.verify()
    }

    @Test func filtersChooseTheObjectsRanked() throws {
        let (_, store, vectors) = try passages(120)
        let query = vectors[0]
        let found = try store.objects(Passage.self).where { $0.group == 3 }.nearest(to: query, k: 4, by: \.embedding)
        let expected = VectorReference.nearest(
            query, k: 4,
            among: vectors.enumerated().filter { ($0.offset + 1) % 10 == 3 }.map { ($0.offset + 1, $0.element) },
            metric: .cosine)
        #expect(found.map(\.id) == expected.map(\.key))
        // The string form, and a sort after the ranking.
        let strings = try store.objects(Passage.self).where("group == 3").nearest(to: query, k: 4, by: \.embedding)
        #expect(strings.map(\.id) == expected.map(\.key))
        let sorted = try store.objects(Passage.self).nearest(to: query, k: 4, by: \.embedding).sorted(by: \.id)
        let nearestFour = VectorReference.nearest(
            query, k: 4, among: vectors.enumerated().map { ($0.offset + 1, $0.element) }, metric: .cosine)
        #expect(sorted.map(\.id) == nearestFour.map(\.key).sorted())
        // `nearest` after a sort ranks what the sort holds.
        let after = try store.objects(Passage.self).sorted(by: \.id).nearest(to: query, k: 3, by: \.embedding)
        #expect(
            after.map(\.id)
                == Array(
                    VectorReference.nearest(
                        query, k: 3, among: vectors.enumerated().map { ($0.offset + 1, $0.element) }, metric: .cosine
                    ).map(\.key)))
    }

    @Test func wrongDimensionsAndMissingIndexesAreInvalidArguments() throws {
        let (_, store, _) = try passages(10)
        let short = Passage()
        short.id = 100
        short.embedding = [1, 2, 3]
        #expect {
            try store.write { try store.add(short) }
        } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("Passage.embedding") && message.contains("16")
        }
        #expect(store.objects(Passage.self).count == 10)
        // A write that catches the refusal and goes on commits the rest; the index holds no trace of it.
        try store.write {
            #expect(throws: StoreError.self) { try store.add(short) }
            let fine = Passage()
            fine.id = 101
            fine.embedding = Array(repeating: 0.5, count: 16)
            try store.add(fine)
        }
        #expect(store.objects(Passage.self).count == 11)
        try store.verify()
        // Changing a stored vector to a wrong length is refused too, and changes nothing (a property
        // setter would trap, as every failed setter does: `add(_:update:)` throws).
        let first = try #require(store.object(ofType: Passage.self, forPrimaryKey: 1))
        let before = first.embedding
        let longer = Passage()
        longer.id = 1
        longer.embedding = [Float](repeating: 1, count: 17)
        #expect(throws: StoreError.self) { try store.write { try store.add(longer, update: .modified) } }
        #expect(first.embedding == before)
        var nan = before
        nan[0] = .nan
        let broken = Passage()
        broken.id = 1
        broken.embedding = nan
        #expect(throws: StoreError.self) { try store.write { try store.add(broken, update: .all) } }
        #expect(first.embedding == before)
        try store.verify()
        // Queries.
        let passages = store.objects(Passage.self)
        #expect {
            try passages.nearest(to: [1, 2], k: 3, by: \.embedding)
        } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("query vector") && message.contains("2")
        }
        #expect(throws: StoreError.self) { try passages.nearest(to: before, k: -1, by: \.embedding) }
        #expect {
            try store.objects(Rated.self).nearest(to: [1, 2, 3, 4], k: 3, by: \.plain)
        } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("Rated.plain has no vector index")
        }
        #expect(throws: StoreError.self) { try passages.distances() }
        #expect(try passages.nearest(to: before, k: 0, by: \.embedding).isEmpty)
    }

    @Test func emptyVectorsAreNotIndexedAndUpdatesMoveNodes() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for (index, name) in ["a", "b", "c", "d"].enumerated() {
                let landmark = Landmark()
                landmark.name = name
                landmark.point = index == 3 ? [] : (0..<8).map { Float($0 + index * 10) }
                try store.add(landmark)
            }
        }
        let landmarks = store.objects(Landmark.self)
        let origin = [Float](repeating: 0, count: 8)
        #expect(try landmarks.nearest(to: origin, k: 10, by: \.point).map(\.name) == ["a", "b", "c"])
        let distances = try landmarks.nearest(to: origin, k: 1, by: \.point).distances()
        #expect(abs(Double(distances[0].distance) - (0..<8).map { Double($0 * $0) }.reduce(0, +).squareRoot()) < 1e-4)
        let c = try #require(store.object(ofType: Landmark.self, forPrimaryKey: "c"))
        try store.write { c.point = origin }
        #expect(try landmarks.nearest(to: origin, k: 2, by: \.point).map(\.name) == ["c", "a"])
        let a = try #require(store.object(ofType: Landmark.self, forPrimaryKey: "a"))
        try store.write { try store.delete(a) }
        #expect(try landmarks.nearest(to: origin, k: 10, by: \.point).map(\.name) == ["c", "b"])
        let d = try #require(store.object(ofType: Landmark.self, forPrimaryKey: "d"))
        try store.write { d.point = [Float](repeating: 1, count: 8) }
        #expect(try landmarks.nearest(to: origin, k: 10, by: \.point).map(\.name) == ["c", "d", "b"])
        try store.verify()
    }

    @Test func anotherThreadGetsWrongThread() throws {
        let (_, store, vectors) = try passages(20)
        let near = Unchecked(try store.objects(Passage.self).nearest(to: vectors[0], k: 3, by: \.embedding))
        let failed = onAnotherThread { () -> Bool in
            do {
                _ = try near.value.distances()
                return false
            } catch {
                return error as? StoreError == .wrongThread
            }
        }
        #expect(failed)
        #expect(try near.value.distances().map(\.object.id).first == 1)
    }

    @Test func dotProductRanksByTheLargestProduct() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for (label, weights) in [("x", [1, 0, 0, 0]), ("big", [3, 3, 0, 0]), ("y", [0, 1, 0, 0])]
                as [(String, [Float])]
            {
                let rated = Rated()
                rated.label = label
                rated.weights = weights
                try store.add(rated)
            }
        }
        let found = try store.objects(Rated.self).nearest(to: [1, 0.5, 0, 0], k: 3, by: \.weights)
        #expect(found.map(\.label) == ["big", "x", "y"])
        #expect(try found.distances().map(\.distance) == [-4.5, -1, -0.5])
    }

    private func replaceThird(in store: Store, with vector: [Float]) throws {
        let third = try #require(store.object(ofType: Passage.self, forPrimaryKey: 3))
        try store.write {
            let twin = Passage()
            twin.id = 1000
            twin.embedding = vector
            try store.add(twin)
            try store.delete(third)
        }
    }

    @Test func resultsAreLiveFrozenAndHandedOver() async throws {
        let (_, store, vectors) = try passages(30)
        let query = vectors[2]
        let near = try store.objects(Passage.self).nearest(to: query, k: 3, by: \.embedding)
        #expect(near.first?.id == 3)
        let frozen = try near.freeze()
        try replaceThird(in: store, with: query)
        #expect(near.first?.id == 1000)
        #expect(frozen.first?.id == 3)
        let reference = try ThreadSafeReference(to: near)
        let configuration = store.configuration
        let ids = try await Task.detached {
            let other = try Store(configuration: configuration)
            return try #require(try other.resolve(reference)).map(\.id)
        }.value
        #expect(ids == near.map(\.id))
    }
}
