import CLMDBBench
import Foundation
import Strata

/// V1–V3: the vector index against search in memory over the same vectors. 100,000 vectors of 384
/// floats at full scale (count / 10), seeded and clustered: 100 clusters, each vector its cluster's
/// centre plus a point of the cluster's own 24-dimensional plane plus noise, as embeddings of real
/// data lie near few directions. 500 queries drawn the same way; ground truth by exact search.
///
/// - V1: the 10 nearest (cosine) of each query from the index, against exact search (every vector
///   compared, in memory); recall@10 against the exact answers. The first queries after the write:
///   each node's address is looked up in the map the first time a query meets it.
/// - V1s: the same queries again on the same snapshot (reported: a Store that keeps answering).
/// - V2: the same among the objects of one group (a tenth of them), against exact search over that
///   group in memory; recall@10.
/// - V3: inserting the vectors (the index built as they come, one write), against an HNSW built in
///   memory in the same process with the same M and efConstruction.
///
/// Both sides compute a distance with the same instructions: AVX2 and FMA where the CPU has them
/// (Strata's `CVectorMath`, the peers' `bench_dot_wide`), else Swift's SIMD.
public enum VectorBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "V3", title: "insert the vectors, the index built as they come (one write)",
            peer: "HNSW in memory, same M/ef", goal: .ratio(1.0 / 3)),
        PeerWorkload(
            id: "V1", title: "500 queries, the 10 nearest (cosine, 384 floats)",
            peer: "exact search in memory", goal: .quality(0.95, ratio: 20)),
        PeerWorkload(
            id: "V1s", title: "V1's queries again, on the snapshot that answered them (its addresses met)",
            peer: "exact search in memory", goal: .report),
        PeerWorkload(
            id: "V2", title: "V1 among one group's objects (a tenth)",
            peer: "exact search over the group in memory", goal: .quality(0.9, ratio: nil)),
    ]

    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        let data = VectorData(count: max(2_000, count / 10))
        report("V data: \(data.count) vectors of \(VectorData.dimensions) floats, \(data.queries.count) queries")
        return try PeerComparison.run(
            workloads, name: "v", directory: directory, count: data.count, rounds: rounds,
            strata: { try StrataVectors(directory: $0, data: data) },
            peer: { _ in MemoryVectors(data: data) }, report: report)
    }
}

/// The vectors, queries and exact answers both sides get.
final class VectorData {
    static let dimensions = 384
    static let k = 10
    static let groups = 10
    let count: Int
    /// Row-major, `count` × `dimensions`, each of length 1 (cosine: compared by dot product).
    let vectors: [Float]
    let queries: [[Float]]
    /// The exact 10 nearest of each query, and of each query among group `queryGroup(i)`.
    private(set) var truth: [[Int]] = []
    private(set) var groupTruth: [[Int]] = []

    init(count: Int) {
        self.count = count
        var random = SplitMix64(seed: 384)
        let dimensions = Self.dimensions
        func gaussian() -> Float {
            let u = max(Float(random.next() >> 40) / Float(1 << 24), 1e-7)
            let v = Float(random.next() >> 40) / Float(1 << 24)
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        let centres = (0..<100).map { _ in (0..<dimensions).map { _ in gaussian() } }
        let planes = (0..<100).map { _ in (0..<24).map { _ in (0..<dimensions).map { _ in gaussian() * 0.25 } } }
        func draw() -> [Float] {
            let cluster = Int(random.next() % 100)
            var vector = centres[cluster]
            for direction in planes[cluster] {
                let weight = gaussian()
                for index in 0..<dimensions { vector[index] += weight * direction[index] }
            }
            for index in 0..<dimensions { vector[index] += gaussian() * 0.05 }
            let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / length }
        }
        var vectors: [Float] = []
        vectors.reserveCapacity(count * dimensions)
        for _ in 0..<count { vectors += draw() }
        self.vectors = vectors
        queries = (0..<500).map { _ in draw() }
        truth = queries.map { exact($0, among: nil) }
        groupTruth = queries.indices.map { exact(queries[$0], among: Self.queryGroup($0)) }
    }

    static func group(of id: Int) -> Int { id % groups }
    static func queryGroup(_ query: Int) -> Int { query % groups }

    /// The exact k nearest ids (by dot product, the vectors being of length 1), among a group's.
    func exact(_ query: [Float], among group: Int?) -> [Int] {
        var best: [(Float, Int)] = []
        vectors.withUnsafeBytes { raw in
            query.withUnsafeBytes { q in
                for id in 0..<count where group.map({ Self.group(of: id) == $0 }) ?? true {
                    let similarity = Self.dot(q.baseAddress!, raw.baseAddress! + id * Self.dimensions * 4)
                    if best.count < Self.k || similarity > best[best.count - 1].0 {
                        best.append((similarity, id))
                        best.sort { $0.0 > $1.0 }
                        if best.count > Self.k { best.removeLast() }
                    }
                }
            }
        }
        return best.map(\.1)
    }

    /// Whether this CPU runs `bench_dot_wide` (AVX2 and FMA, as Strata's index computes).
    static let wide = bench_has_wide() != 0

    static func dot(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Float {
        if wide { return bench_dot_wide(a, b, dimensions) }
        var sum = SIMD8<Float>()
        var offset = 0
        while offset < dimensions * 4 {
            sum +=
                a.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * b.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            offset += 32
        }
        return sum.sum()
    }

    func vector(_ id: Int) -> [Float] { Array(vectors[(id * Self.dimensions)..<((id + 1) * Self.dimensions)]) }

    /// The share of the exact answers found.
    static func recall(_ found: [[Int]], _ truth: [[Int]]) -> Double {
        let hits = zip(found, truth).reduce(0) { $0 + Set($1.0).intersection($1.1).count }
        return Double(hits) / Double(truth.reduce(0) { $0 + $1.count })
    }
}

/// A vector of V1–V3.
public final class VectorDocument: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var group: Int
    @Persisted(indexed: .vector(dimensions: 384, metric: .cosine)) public var embedding: [Float]
}

private final class StrataVectors: PeerSide {
    let store: Store
    let data: VectorData
    var found: [[Int]] = []

    init(directory: URL, data: VectorData) throws {
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("vectors.strata"), objectTypes: [VectorDocument.self])
        configuration.durability = .noSync
        store = try Store(configuration: configuration)
        self.data = data
    }

    func run(_ id: String, count: Int) throws -> Int {
        let documents = store.objects(VectorDocument.self)
        switch id {
        case "V3":
            try store.write {
                for number in 0..<data.count {
                    let document = VectorDocument()
                    document.id = number
                    document.group = VectorData.group(of: number)
                    document.embedding = data.vector(number)
                    try store.add(document)
                }
            }
            return documents.count
        case "V1", "V1s":
            found = try data.queries.map {
                try documents.nearest(to: $0, k: VectorData.k, by: \.embedding).map(\.id)
            }
        default:
            found = try data.queries.indices.map { query in
                let group = VectorData.queryGroup(query)
                return try documents.where { $0.group == group }
                    .nearest(to: data.queries[query], k: VectorData.k, by: \.embedding).map(\.id)
            }
        }
        return found.reduce(0) { $0 + $1.count }
    }

    func quality(_ id: String) -> Double? {
        switch id {
        case "V1", "V1s": return VectorData.recall(found, data.truth)
        case "V2": return VectorData.recall(found, data.groupTruth)
        default: return nil
        }
    }
}

private final class MemoryVectors: PeerSide {
    let data: VectorData

    init(data: VectorData) { self.data = data }

    func run(_ id: String, count: Int) throws -> Int {
        switch id {
        case "V3":
            var graph = MemoryHNSW(dimensions: VectorData.dimensions, maxConnections: 16, buildCandidates: 100)
            data.vectors.withUnsafeBytes { raw in
                for number in 0..<data.count { graph.insert(raw.baseAddress! + number * VectorData.dimensions * 4) }
            }
            return graph.count
        case "V1", "V1s":
            return data.queries.reduce(0) { $0 + data.exact($1, among: nil).count }
        default:
            return data.queries.indices.reduce(0) {
                $0 + data.exact(data.queries[$1], among: VectorData.queryGroup($1)).count
            }
        }
    }
}

/// HNSW in memory (Malkov & Yashunin's INSERT with the neighbour heuristic, as hnswlib builds it):
/// V3's yardstick. Vectors are of length 1; distance is 1 − dot.
struct MemoryHNSW {
    let dimensions: Int
    let maxConnections: Int
    let buildCandidates: Int
    private var vectors: [UnsafeRawPointer] = []
    private var links: [[[Int32]]] = []
    private var entry = -1
    private var topLevel = 0
    private var random = SplitMix64(seed: 16)

    init(dimensions: Int, maxConnections: Int, buildCandidates: Int) {
        self.dimensions = dimensions
        self.maxConnections = maxConnections
        self.buildCandidates = buildCandidates
    }

    var count: Int { vectors.count }

    private func distance(_ a: UnsafeRawPointer, _ b: Int) -> Float { 1 - VectorData.dot(a, vectors[b]) }

    mutating func insert(_ vector: UnsafeRawPointer) {
        let node = vectors.count
        let uniform = (Double(random.next() >> 11) + 1) / Double(1 << 53)
        let level = Int(-log(uniform) / log(Double(maxConnections)))
        vectors.append(vector)
        links.append(Array(repeating: [], count: level + 1))
        guard entry >= 0 else {
            entry = node
            topLevel = level
            return
        }
        var nearest = (distance(vector, entry), Int32(entry))
        if topLevel > level {
            for upper in stride(from: topLevel, to: level, by: -1) {
                var moved = true
                while moved {
                    moved = false
                    for link in links[Int(nearest.1)][upper] {
                        let d = distance(vector, Int(link))
                        if d < nearest.0 {
                            nearest = (d, link)
                            moved = true
                        }
                    }
                }
            }
        }
        var starts = [nearest]
        for current in stride(from: min(topLevel, level), through: 0, by: -1) {
            let found = layer(vector, starts, level: current)
            let chosen = choose(found, limit: maxConnections)
            links[node][current] = chosen.map(\.1)
            let limit = current == 0 ? 2 * maxConnections : maxConnections
            for (d, neighbour) in chosen {
                var current2 = links[Int(neighbour)][current]
                if current2.count < limit {
                    current2.append(Int32(node))
                } else {
                    let origin = vectors[Int(neighbour)]
                    var candidates = current2.map { (distance(origin, Int($0)), $0) }
                    candidates.append((d, Int32(node)))
                    candidates.sort { $0.0 < $1.0 }
                    current2 = choose(candidates, limit: limit).map(\.1)
                }
                links[Int(neighbour)][current] = current2
            }
            starts = found
        }
        if level > topLevel {
            entry = node
            topLevel = level
        }
    }

    private func layer(_ query: UnsafeRawPointer, _ starts: [(Float, Int32)], level: Int) -> [(Float, Int32)] {
        var visited = Set(starts.map(\.1))
        var candidates = Heap(nearestFirst: true)
        var found = Heap(nearestFirst: false)
        for start in starts {
            candidates.push(start)
            found.push(start)
        }
        while let nearest = candidates.pop() {
            if found.count >= buildCandidates, nearest.0 > found.top!.0 { break }
            for link in links[Int(nearest.1)][level] where visited.insert(link).inserted {
                let d = distance(query, Int(link))
                if found.count < buildCandidates || d < found.top!.0 {
                    candidates.push((d, link))
                    found.push((d, link))
                    if found.count > buildCandidates { _ = found.pop() }
                }
            }
        }
        return found.entries.sorted { $0.0 < $1.0 }
    }

    /// A binary heap of (distance, node): the nearest on top, or the farthest.
    struct Heap {
        let nearestFirst: Bool
        var entries: [(Float, Int32)] = []
        var count: Int { entries.count }
        var top: (Float, Int32)? { entries.first }

        init(nearestFirst: Bool) { self.nearestFirst = nearestFirst }

        private func above(_ a: (Float, Int32), _ b: (Float, Int32)) -> Bool { nearestFirst ? a.0 < b.0 : a.0 > b.0 }

        mutating func push(_ entry: (Float, Int32)) {
            entries.append(entry)
            var child = entries.count - 1
            while child > 0, above(entries[child], entries[(child - 1) / 2]) {
                entries.swapAt(child, (child - 1) / 2)
                child = (child - 1) / 2
            }
        }

        mutating func pop() -> (Float, Int32)? {
            guard !entries.isEmpty else { return nil }
            entries.swapAt(0, entries.count - 1)
            let popped = entries.removeLast()
            var parent = 0
            while true {
                var best = parent
                for child in [2 * parent + 1, 2 * parent + 2]
                where child < entries.count && above(entries[child], entries[best]) {
                    best = child
                }
                if best == parent { break }
                entries.swapAt(parent, best)
                parent = best
            }
            return popped
        }
    }

    private func choose(_ candidates: [(Float, Int32)], limit: Int) -> [(Float, Int32)] {
        guard candidates.count > limit else { return candidates }
        var kept: [(Float, Int32)] = []
        for candidate in candidates where kept.count < limit {
            let vector = vectors[Int(candidate.1)]
            if kept.allSatisfy({ distance(vector, Int($0.1)) >= candidate.0 }) { kept.append(candidate) }
        }
        return kept
    }
}
