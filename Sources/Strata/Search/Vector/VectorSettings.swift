/// How a vector index measures how far apart two vectors are (`@Persisted(indexed: .vector(…))`).
/// Smaller is nearer for every metric, and `distances()` reports the metric's own value.
public enum VectorMetric: String, Codable, Sendable, CaseIterable {
    /// 1 − the cosine of the angle between the vectors (0: same direction, 2: opposite). Vectors are
    /// compared by direction only; the index keeps them scaled to length 1.
    case cosine
    /// The straight-line (L2) distance.
    case euclidean
    /// The negated dot product (the largest dot product is the nearest), for vectors a model made to
    /// be compared so.
    case dotProduct
}

/// A vector index's settings, as the file's schema records them: a change rebuilds the index.
///
/// `maxConnections` is HNSW's M (links per node and level; twice that at level 0), `buildCandidates`
/// its efConstruction (candidates weighed when a vector is linked in).
struct VectorSettings: Codable, Hashable, Sendable {
    var dimensions: Int
    var metric: VectorMetric
    var maxConnections: Int
    var buildCandidates: Int

    static let defaultMaxConnections = 16
    static let defaultBuildCandidates = 100
    /// The largest dimension the schema accepts (a vector of 16,384 floats is 64 KiB).
    static let maximumDimensions = 16_384

    /// Why these settings cannot make an index, or nil.
    var problem: String? {
        if !(1...Self.maximumDimensions).contains(dimensions) {
            return "dimensions must be 1...\(Self.maximumDimensions), not \(dimensions)"
        }
        if !(2...128).contains(maxConnections) { return "maxConnections must be 2...128, not \(maxConnections)" }
        if !(maxConnections...4_096).contains(buildCandidates) {
            return "buildCandidates must be \(maxConnections)...4096, not \(buildCandidates)"
        }
        return nil
    }

    /// The most links a node keeps at `level`.
    func linkLimit(atLevel level: Int) -> Int { level == 0 ? 2 * maxConnections : maxConnections }

    /// The bytes of one stored vector.
    var vectorBytes: Int { dimensions * MemoryLayout<Float>.size }
}
