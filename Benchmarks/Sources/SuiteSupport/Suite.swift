import Benchmark
import Foundation
import Workloads

/// Registers package-benchmark benchmarks of the comparison's workloads, on Strata alone.
public enum Suite {
    public static func configure() {
        Benchmark.defaultConfiguration = .init(
            metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
            timeUnits: .milliseconds,
            maxDuration: .seconds(10),
            maxIterations: 5
        )
    }

    /// One workload: set up before the measurement, run measured, checked after it.
    /// `mallocCountTotal` divided by `count` is the mallocs per object.
    public static func workload(_ id: String, count: Int) {
        guard let spec = WorkloadSpec.all.first(where: { $0.id == id }) else { fatalError("no workload \(id)") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-benchmarks-\(getpid())")
        Benchmark("\(id) \(spec.title), \(count)") { benchmark in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let prepared = try Runner.prepare(spec, system: .strata, count: count, in: directory)
            benchmark.startMeasurement()
            try prepared.run()
            benchmark.stopMeasurement()
            try prepared.check()
        }
    }
}
