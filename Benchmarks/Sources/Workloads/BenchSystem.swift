import Foundation

/// One system's implementation of the workloads. Each instance owns a store in its own directory.
protocol BenchSystem: AnyObject {
    func insert(_ ids: Range<Int>, perTransaction: Int) throws
    /// Inserts the objects from `writers` concurrent writers, one object per durable write transaction
    /// (the peers: one writer, one transaction and one sync per object).
    func concurrentInsert(_ ids: Range<Int>, writers: Int) throws
    func updateAll() throws
    /// Prepares the objects of an upsert (untimed) and returns the timed part.
    func prepareUpsertHalfChanged(count: Int) throws -> () throws -> Void
    /// Makes the objects of an insert (untimed) and returns the timed part: the adds alone.
    func prepareAddPremade(count: Int) throws -> () throws -> Void
    func randomReads(_ ids: [Int]) throws -> Double
    /// The sum of all scores, and how many rows were visited.
    func scan() throws -> (sum: Double, rows: Int)
    /// Stores `count` rich objects (untimed) and returns the timed part: their scan, as `scan()`.
    func prepareRichScan(count: Int) throws -> () throws -> (sum: Double, rows: Int)
    /// Makes the objects (untimed) and returns the timed part: one `add(contentsOf:)` of them all.
    func prepareAddContentsOf(count: Int) throws -> () throws -> Void
    /// The scores as a column (Strata: `values(of:)`; the others: their scan).
    func scanValues() throws -> (sum: Double, rows: Int)
    /// The sum of the scores (Strata: `sum(of:)`; the others: their scan).
    func sumScores() throws -> (sum: Double, rows: Int)
    /// The records whose score is above `threshold`, reading the score of each.
    func scanFiltered(above threshold: Double) throws -> (sum: Double, rows: Int)
    /// The same, Strata iterating the objects (the peers: their `scanFiltered`).
    func scanFilteredObjects(above threshold: Double) throws -> (sum: Double, rows: Int)
    /// The number of records whose score is above `threshold`.
    func countFiltered(above threshold: Double) throws -> Int
}

extension BenchSystem {
    func prepareUpsertHalfChanged(count: Int) throws -> () throws -> Void {
        throw WorkloadError("\(type(of: self)) has no upsert")
    }

    func prepareRichScan(count: Int) throws -> () throws -> (sum: Double, rows: Int) {
        throw WorkloadError("\(type(of: self)) has no rich model")
    }

    /// Without objects to make, the peer's add of premade objects is its insert.
    func prepareAddPremade(count: Int) throws -> () throws -> Void {
        { try self.insert(0..<count, perTransaction: count) }
    }

    func prepareAddContentsOf(count: Int) throws -> () throws -> Void {
        try prepareAddPremade(count: count)
    }

    func scanFiltered(above threshold: Double) throws -> (sum: Double, rows: Int) {
        throw WorkloadError("\(type(of: self)) has no filtered scan")
    }

    func countFiltered(above threshold: Double) throws -> Int { try scanFiltered(above: threshold).rows }

    func scanFilteredObjects(above threshold: Double) throws -> (sum: Double, rows: Int) {
        try scanFiltered(above: threshold)
    }

    func scanValues() throws -> (sum: Double, rows: Int) { try scan() }
    func sumScores() throws -> (sum: Double, rows: Int) { try scan() }
}

/// One measurement, set up: a fresh directory with the system's store, filled if the workload needs
/// it. `run` is the timed part; `check` then verifies the result, so every system did the same work.
/// The directory goes with the object.
public final class PreparedRun {
    public let run: () throws -> Void
    public let check: () throws -> Void
    private let directory: URL
    private var bench: BenchSystem?

    fileprivate init(
        directory: URL, bench: BenchSystem, run: @escaping () throws -> Void, check: @escaping () throws -> Void
    ) {
        self.directory = directory
        self.bench = bench
        self.run = run
        self.check = check
    }

    deinit {
        bench = nil
        try? FileManager.default.removeItem(at: directory)
    }
}

extension BenchSystem {
    func concurrentInsert(_ ids: Range<Int>, writers: Int) throws {
        try insert(ids, perTransaction: 1)
    }
}

public enum Runner {
    /// Sets up `spec` on `system` with `count` objects in a new directory below `base`.
    public static func prepare(_ spec: WorkloadSpec, system: System, count: Int, in base: URL) throws -> PreparedRun {
        let directory = base.appendingPathComponent("\(spec.id)-\(system)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let bench = try open(system, at: directory, sync: spec.sync)
        if spec.needsFill { try bench.insert(0..<count, perTransaction: count) }
        let baseSum = Double(count) * Double(count - 1) / 2
        let run: () throws -> Void
        var expectedSum = baseSum
        switch spec.kind {
        case .insert(let perTransaction):
            run = { try bench.insert(0..<count, perTransaction: perTransaction ?? count) }
        case .concurrentInsert(let writers):
            run = { try bench.concurrentInsert(0..<count, writers: writers) }
        case .addPremade:
            run = try bench.prepareAddPremade(count: count)
        case .addContentsOf:
            run = try bench.prepareAddContentsOf(count: count)
        case .updateAll:
            run = { try bench.updateAll() }
            expectedSum = baseSum + Double(count)
        case .upsertHalfChanged:
            run = try bench.prepareUpsertHalfChanged(count: count)
            expectedSum = baseSum + Double(count / 2)
        case .randomReads:
            var random = SplitMix64(seed: 42)
            let ids = (0..<count).map { _ in Int.random(in: 0..<count, using: &random) }
            let expected = Double(ids.reduce(0, +))
            return PreparedRun(
                directory: directory, bench: bench,
                run: {
                    guard try bench.randomReads(ids) == expected else {
                        throw WorkloadError("\(system) read wrong scores")
                    }
                }, check: {})
        case .countFiltered:
            let threshold = Double(count / 2) - 0.5
            return PreparedRun(
                directory: directory, bench: bench,
                run: {
                    let rows = try bench.countFiltered(above: threshold)
                    guard rows == count - count / 2 else { throw WorkloadError("\(system) counted \(rows) rows") }
                }, check: {})
        case .scan, .scanRich, .scanValues, .sumColumn, .scanFiltered, .scanFilteredObjects:
            let scan: () throws -> (sum: Double, rows: Int)
            var (expectedRows, expectedSum) = (count, baseSum)
            switch spec.kind {
            case .scanRich: scan = try bench.prepareRichScan(count: count)
            case .scanValues: scan = bench.scanValues
            case .sumColumn: scan = bench.sumScores
            case .scanFiltered, .scanFilteredObjects:
                // The upper half of the ids (scores are the ids).
                let threshold = Double(count / 2) - 0.5
                scan =
                    spec.kind == .scanFiltered
                    ? { try bench.scanFiltered(above: threshold) } : { try bench.scanFilteredObjects(above: threshold) }
                let first = count / 2
                expectedRows = count - first
                expectedSum = Double(count - first) * Double(first + count - 1) / 2
            default: scan = bench.scan
            }
            return PreparedRun(
                directory: directory, bench: bench,
                run: {
                    let result = try scan()
                    guard result.rows == expectedRows, result.sum == expectedSum else {
                        throw WorkloadError("\(system) scanned \(result.rows) rows, sum \(result.sum)")
                    }
                }, check: {})
        }
        return PreparedRun(
            directory: directory, bench: bench, run: run,
            check: { [expectedSum] in
                let result = try bench.scan()
                guard result.rows == count, result.sum == expectedSum else {
                    throw WorkloadError(
                        "\(system) left \(result.rows) rows with sum \(result.sum), expected \(count), \(expectedSum)")
                }
            })
    }

    /// The timed duration of `spec` on `system` with `count` objects (prepared, run, checked).
    public static func measure(_ spec: WorkloadSpec, system: System, count: Int, in base: URL) throws -> Duration {
        let prepared = try prepare(spec, system: system, count: count, in: base)
        let duration = try ContinuousClock().measure { try prepared.run() }
        try prepared.check()
        return duration
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
