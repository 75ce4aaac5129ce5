import Foundation

/// One system's implementation of the workloads. Each instance owns a store in its own directory.
protocol BenchSystem: AnyObject {
    func insert(_ ids: Range<Int>, perTransaction: Int) throws
    func updateAll() throws
    /// Prepares the objects of an upsert (untimed) and returns the timed part.
    func prepareUpsertHalfChanged(count: Int) throws -> () throws -> Void
    func randomReads(_ ids: [Int]) throws -> Double
    /// The sum of all scores, and how many rows were visited.
    func scan() throws -> (sum: Double, rows: Int)
}

extension BenchSystem {
    func prepareUpsertHalfChanged(count: Int) throws -> () throws -> Void {
        throw WorkloadError("\(type(of: self)) has no upsert")
    }
}

/// Runs one measurement: a fresh directory, the untimed setup, the timed part, a check of the result.
public enum Runner {
    /// The timed duration of `spec` on `system` with `count` objects.
    public static func measure(_ spec: WorkloadSpec, system: System, count: Int, in base: URL) throws -> Duration {
        let directory = base.appendingPathComponent("\(spec.id)-\(system)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ContinuousClock()
        let duration: Duration
        do {
            let bench = try open(system, at: directory, sync: spec.sync)
            if spec.needsFill { try bench.insert(0..<count, perTransaction: count) }
            switch spec.kind {
            case .insert(let perTransaction):
                duration = try clock.measure { try bench.insert(0..<count, perTransaction: perTransaction ?? count) }
                try expectScan(bench, count: count, sum: Double(count) * Double(count - 1) / 2)
            case .updateAll:
                duration = try clock.measure { try bench.updateAll() }
                try expectScan(bench, count: count, sum: Double(count) * Double(count - 1) / 2 + Double(count))
            case .upsertHalfChanged:
                let upsert = try bench.prepareUpsertHalfChanged(count: count)
                duration = try clock.measure { try upsert() }
                try expectScan(bench, count: count, sum: Double(count) * Double(count - 1) / 2 + Double(count / 2))
            case .randomReads:
                var random = SplitMix64(seed: 42)
                let ids = (0..<count).map { _ in Int.random(in: 0..<count, using: &random) }
                var sum = 0.0
                duration = try clock.measure { sum = try bench.randomReads(ids) }
                guard sum == Double(ids.reduce(0, +)) else { throw WorkloadError("\(system) read wrong scores") }
            case .scan:
                var result = (sum: 0.0, rows: 0)
                duration = try clock.measure { result = try bench.scan() }
                guard result.rows == count, result.sum == Double(count) * Double(count - 1) / 2 else {
                    throw WorkloadError("\(system) scanned \(result.rows) rows, sum \(result.sum)")
                }
            }
        }
        return duration
    }

    private static func expectScan(_ bench: BenchSystem, count: Int, sum: Double) throws {
        let result = try bench.scan()
        guard result.rows == count, result.sum == sum else {
            throw WorkloadError("\(type(of: bench)) left \(result.rows) rows with sum \(result.sum), expected \(count), \(sum)")
        }
    }

    static func open(_ system: System, at directory: URL, sync: Sync) throws -> BenchSystem {
        switch system {
        case .rawLMDB: try RawLMDBBench(directory: directory, sync: sync)
        case .strata: try StrataBench(directory: directory, sync: sync)
        case .grdbPrepared: try GRDBBench(directory: directory, records: false)
        case .grdbRecord: try GRDBBench(directory: directory, records: true)
        }
    }
}

/// A small deterministic generator, so every system reads the same ids.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
