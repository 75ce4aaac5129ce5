import Foundation
import StrataTestSupport
import Testing

@testable import Strata

enum VectorV1 {
    /// `Passage` before its vector index (the same stored type, no index).
    final class Passage: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var embedding: [Float]
        @Persisted var group: Int
    }

}

enum VectorV2 {
    /// `Passage` with other index settings (a rebuild).
    final class Passage: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(indexed: .vector(dimensions: 16, metric: .euclidean, maxConnections: 4, buildCandidates: 20))
        var embedding: [Float]
        @Persisted var group: Int
    }
}

enum VectorV3 {
    /// A vector index with settings out of range.
    final class Broken: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(indexed: .vector(dimensions: 0)) var embedding: [Float]
    }

    /// A vector index on a String.
    final class Misplaced: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(indexed: .vector(dimensions: 3)) var text: String
    }
}

/// Damaged nodes, `verify()`, `salvage`, migrations that add, change and drop the index, and the
/// schema's refusals.
@Suite(.fixtureChecks, .offThePool) struct VectorIntegrityTests {
    static let vectors: [[Float]] = {
        var source = VectorSource(seed: 3, dimensions: 16)
        return (0..<1_200).map { _ in source.vector() }
    }()

    private func fill(_ store: Store) throws {
        try store.write {
            for (offset, vector) in Self.vectors.enumerated() {
                let passage = Passage()
                passage.id = offset + 1
                passage.embedding = vector
                passage.group = offset % 10
                try store.add(passage)
            }
        }
    }

    private func index(of store: Store) throws -> VectorIndex {
        try #require(store.core.binding(for: Passage.self).derived.vectors.first)
    }

    /// Rewrites node `document`'s value with `transform` applied, in a write of its own.
    private func rewriteNode(_ document: UInt64, in store: Store, _ transform: (inout [UInt8]) -> Void) throws {
        let index = try index(of: store)
        try store.write {
            let session = store.core.session!
            var value = try #require(try session.value(in: index.nodes, at: VectorIndex.nodeKey(document)))
            transform(&value)
            try session.put(in: index.nodes, key: VectorIndex.nodeKey(document), value: value)
        }
    }

    @Test func aDamagedNodeIsCorruptedAndVerifyNamesTheIndex() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        try fill(store)
        try store.verify()
        let document = RowKey.signed(5).integerValue
        try rewriteNode(document, in: store) { $0.removeLast(3) }
        #expect {
            try store.verify()
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("vector index of Passage.embedding")
        }
        // A search that meets the node fails typed; exact search over every node too.
        #expect {
            for vector in Self.vectors.prefix(50) {
                _ = try store.objects(Passage.self).nearest(to: vector, k: 10, by: \.embedding).distances()
            }
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("vector index of Passage.embedding is damaged")
        }
        #expect(store.objects(Passage.self).count == 1_200)
    }

    @Test func verifyFindsAVectorThatDiffersFromItsRow() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let store = try Store(configuration: fixture.configuration)
        try fill(store)
        try rewriteNode(RowKey.signed(7).integerValue, in: store) { $0[$0.count - 1] ^= 0x01 }
        #expect {
            try store.verify()
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("Passage[7]") && message.contains("not its node")
        }
    }

    @Test func salvageRebuildsTheGraph() throws {
        let fixture = Fixture([Passage.self, Landmark.self, Rated.self])
        let query = Self.vectors[40]
        let expected: [Int]
        do {
            let store = try Store(configuration: fixture.configuration)
            try fill(store)
            expected = try store.objects(Passage.self).nearest(to: query, k: 10, by: \.embedding, ef: 200).map(\.id)
            try rewriteNode(RowKey.signed(41).integerValue, in: store) { $0 = [1, 2, 3] }
        }
        let destination = fixture.directory.appendingPathComponent("salvaged.strata")
        _ = try Store.salvage(
            from: fixture.configuration.fileURL!, to: destination, encryptionKey: fixture.configuration.encryptionKey)
        var configuration = fixture.configuration
        configuration.fileURL = destination
        let salvaged = try Store(configuration: configuration)
        try salvaged.verify()
        #expect(
            try salvaged.objects(Passage.self).nearest(to: query, k: 10, by: \.embedding, ef: 200).map(\.id) == expected
        )
    }

    @Test func migrationsAddChangeAndDropTheIndex() throws {
        let fixture = Fixture([VectorV1.Passage.self])
        do {
            let store = try Store(configuration: fixture.configuration)
            try store.write {
                for (offset, vector) in Self.vectors.enumerated() {
                    let passage = VectorV1.Passage()
                    passage.id = offset + 1
                    passage.embedding = vector
                    try store.add(passage)
                }
            }
            #expect(throws: StoreError.self) {
                try store.objects(VectorV1.Passage.self).nearest(to: Self.vectors[0], k: 3, by: \.embedding)
            }
        }
        // Adding the index builds it from the rows.
        var indexed = fixture.configuration
        indexed.objectTypes = [Passage.self]
        let query = Self.vectors[9]
        do {
            let store = try Store(configuration: indexed)
            try store.verify()
            #expect(try store.objects(Passage.self).nearest(to: query, k: 1, by: \.embedding).map(\.id) == [10])
        }
        // Other settings: rebuilt (a euclidean graph now).
        var rebuilt = fixture.configuration
        rebuilt.objectTypes = [VectorV2.Passage.self]
        do {
            let store = try Store(configuration: rebuilt)
            try store.verify()
            let found = try store.objects(VectorV2.Passage.self).nearest(to: query, k: 1, by: \.embedding)
            #expect(try found.distances().map(\.distance) == [0])
            #expect(found.map(\.id) == [10])
        }
        // Dropped: the rows stay, `nearest` is refused.
        do {
            let store = try Store(configuration: fixture.configuration)
            try store.verify()
            #expect(store.objects(VectorV1.Passage.self).count == 1_200)
            #expect(throws: StoreError.self) {
                try store.objects(VectorV1.Passage.self).nearest(to: query, k: 1, by: \.embedding)
            }
            try store.write { store.object(ofType: VectorV1.Passage.self, forPrimaryKey: 10)!.embedding = [] }
        }
        // Added again: rebuilt from the rows as they are now.
        let store = try Store(configuration: indexed)
        try store.verify()
        #expect(try store.objects(Passage.self).nearest(to: query, k: 1, by: \.embedding).map(\.id) != [10])
    }

    @Test func theSchemaRefusesSettingsOutOfRangeAndOtherTypes() throws {
        for type in [VectorV3.Broken.self, VectorV3.Misplaced.self] as [Object.Type] {
            let fixture = Fixture([type])
            #expect {
                _ = try Store(configuration: fixture.configuration)
            } throws: { error in
                guard case .schemaMismatch(let message) = error as? StoreError else { return false }
                return message.contains("vector index")
            }
        }
    }
}

extension RowKey {
    /// The document number an integer key is in a vector or full-text index.
    var integerValue: UInt64 {
        guard case .integer(let value) = self else { return 0 }
        return value
    }
}
