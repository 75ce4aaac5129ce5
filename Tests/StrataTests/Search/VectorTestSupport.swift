import Foundation
import Strata

/// A type with integer keys and a cosine index: its documents are numbered by its keys.
final class Passage: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: .vector(dimensions: 16, metric: .cosine, maxConnections: 8, buildCandidates: 40))
    var embedding: [Float]
    @Persisted var group: Int
}

/// A type with String keys and a euclidean index: its documents are numbered by the index.
final class Landmark: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted(indexed: .vector(dimensions: 8, metric: .euclidean, maxConnections: 6, buildCandidates: 30))
    var point: [Float]
    @Persisted var tag: String
}

/// A type with a dot-product index on row ids (no primary key).
final class Rated: Object {
    @Persisted(indexed: .vector(dimensions: 4, metric: .dotProduct)) var weights: [Float]
    @Persisted var label: String
    /// A vector without an index: `nearest` on it is refused.
    @Persisted var plain: [Float]
}

/// Seeded vectors for the vector tests: clustered on a low-dimensional plane per cluster (as
/// embeddings of real data lie near few directions), so that a graph search has neighbours to find.
struct VectorSource {
    private var state: UInt64
    let dimensions: Int
    private var centres: [[Float]] = []
    private var planes: [[[Float]]] = []

    init(seed: UInt64, dimensions: Int, clusters: Int = 8, planeDimensions: Int = 4) {
        state = seed
        self.dimensions = dimensions
        for _ in 0..<clusters {
            centres.append((0..<dimensions).map { _ in gaussian() * 4 })
            planes.append((0..<planeDimensions).map { _ in (0..<dimensions).map { _ in gaussian() } })
        }
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform() -> Float { Float(next() >> 40) / Float(1 << 24) }

    mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    mutating func gaussian() -> Float {
        let u = max(uniform(), 1e-7)
        let v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// A vector near a random cluster's plane.
    mutating func vector() -> [Float] {
        let cluster = int(0..<centres.count)
        var vector = centres[cluster]
        for direction in planes[cluster] {
            let weight = gaussian()
            for index in 0..<dimensions { vector[index] += weight * direction[index] }
        }
        for index in 0..<dimensions { vector[index] += gaussian() * 0.05 }
        return vector
    }
}

/// The plain reference: distances as the metric defines them, computed in Double.
enum VectorReference {
    static func distance(_ a: [Float], _ b: [Float], metric: VectorMetric) -> Double {
        var dot = 0.0
        for (x, y) in zip(a, b) { dot += Double(x) * Double(y) }
        switch metric {
        case .cosine:
            let la = a.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
            let lb = b.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
            return la == 0 || lb == 0 ? 1 : 1 - dot / (la * lb)
        case .euclidean:
            var sum = 0.0
            for (x, y) in zip(a, b) {
                let difference = Double(x) - Double(y)
                sum += difference * difference
            }
            return sum.squareRoot()
        case .dotProduct:
            return -dot
        }
    }

    /// The k nearest of `items` (key, vector) by the reference distance, nearest first.
    static func nearest<Key: Comparable>(
        _ query: [Float], k: Int, among items: [(Key, [Float])], metric: VectorMetric
    ) -> [(key: Key, distance: Double)] {
        var measured: [(key: Key, distance: Double)] = []
        for (key, vector) in items where !vector.isEmpty {
            measured.append((key, distance(query, vector, metric: metric)))
        }
        measured.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.key < $1.key }
        return Array(measured.prefix(k))
    }
}
