import CVectorMath

/// Distances between vectors of floats in memory (the map's bytes or an array's): with AVX2 and FMA
/// where the CPU has them (`CVectorMath`, chosen once at run time), else eight lanes at a time with
/// Swift's SIMD (which compiles for the baseline: SSE2 on x86-64, NEON on ARMv8).
///
/// The two paths round differently (a fused multiply-add rounds once), so a distance may differ in
/// its last bits between machines; nothing stored depends on it.
enum VectorMath {
    /// Whether this CPU runs the wide kernels.
    static let wide = strata_vector_has_wide() != 0

    static func dot(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        wide ? strata_vector_dot_wide(a, b, count) : portableDot(a, b, count: count)
    }

    static func squaredDistance(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        wide ? strata_vector_squared_distance_wide(a, b, count) : portableSquaredDistance(a, b, count: count)
    }

    static func portableDot(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        var sum0 = SIMD8<Float>()
        var sum1 = SIMD8<Float>()
        var sum2 = SIMD8<Float>()
        var sum3 = SIMD8<Float>()
        var offset = 0
        let bytes = count * 4
        while offset + 128 <= bytes {
            sum0 +=
                a.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * b.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            sum1 +=
                a.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                * b.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
            sum2 +=
                a.loadUnaligned(fromByteOffset: offset + 64, as: SIMD8<Float>.self)
                * b.loadUnaligned(fromByteOffset: offset + 64, as: SIMD8<Float>.self)
            sum3 +=
                a.loadUnaligned(fromByteOffset: offset + 96, as: SIMD8<Float>.self)
                * b.loadUnaligned(fromByteOffset: offset + 96, as: SIMD8<Float>.self)
            offset += 128
        }
        while offset + 32 <= bytes {
            sum0 +=
                a.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * b.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            offset += 32
        }
        var sum = ((sum0 + sum1) + (sum2 + sum3)).sum()
        while offset < bytes {
            sum +=
                a.loadUnaligned(fromByteOffset: offset, as: Float.self)
                * b.loadUnaligned(fromByteOffset: offset, as: Float.self)
            offset += 4
        }
        return sum
    }

    static func portableSquaredDistance(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        var sum0 = SIMD8<Float>()
        var sum1 = SIMD8<Float>()
        var offset = 0
        let bytes = count * 4
        while offset + 64 <= bytes {
            let d0 =
                a.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                - b.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            let d1 =
                a.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                - b.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
            sum0 += d0 * d0
            sum1 += d1 * d1
            offset += 64
        }
        var sum = (sum0 + sum1).sum()
        while offset < bytes {
            let d =
                a.loadUnaligned(fromByteOffset: offset, as: Float.self)
                - b.loadUnaligned(fromByteOffset: offset, as: Float.self)
            sum += d * d
            offset += 4
        }
        return sum
    }
}

extension VectorMetric {
    /// The distance the graph compares by: the metric's, or (euclidean) its square, which orders the
    /// same and needs no root. Vectors are prepared (`VectorIndex.prepared`): of length 1 for cosine.
    func comparable(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        switch self {
        case .cosine: 1 - VectorMath.dot(a, b, count: count)
        case .euclidean: VectorMath.squaredDistance(a, b, count: count)
        case .dotProduct: -VectorMath.dot(a, b, count: count)
        }
    }

    /// The metric's own distance from a comparable one.
    func reported(_ comparable: Float) -> Float {
        self == .euclidean ? comparable.squareRoot() : comparable
    }
}

/// A binary heap of (distance, document), nearest or farthest on top.
struct DistanceHeap {
    typealias Entry = (distance: Float, document: UInt64)
    private(set) var entries: [Entry] = []
    /// True: the farthest is on top (the results kept); false: the nearest (the candidates to visit).
    let farthestFirst: Bool

    init(farthestFirst: Bool) { self.farthestFirst = farthestFirst }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var top: Entry? { entries.first }

    private func above(_ a: Entry, _ b: Entry) -> Bool {
        if a.distance != b.distance { return farthestFirst ? a.distance > b.distance : a.distance < b.distance }
        return farthestFirst ? a.document > b.document : a.document < b.document
    }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard above(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let popped = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var best = parent
            if left < entries.count, above(entries[left], entries[best]) { best = left }
            if right < entries.count, above(entries[right], entries[best]) { best = right }
            guard best != parent else { break }
            entries.swapAt(parent, best)
            parent = best
        }
        return popped
    }

    /// The entries nearest first (ties by document).
    var ascending: [Entry] {
        entries.sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.document < $1.document }
    }
}
