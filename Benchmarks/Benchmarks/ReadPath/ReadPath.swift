// The read path, measured by package-benchmark (`swift package benchmark --target ReadPath`).
import SuiteSupport

let benchmarks: @Sendable () -> Void = {
    Suite.configure()
    Suite.workload("R1", count: 100_000)
    Suite.workload("R2", count: 100_000)
    Suite.workload("R3", count: 100_000)
}
