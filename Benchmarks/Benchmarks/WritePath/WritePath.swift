// The write path, measured by package-benchmark: wall clock, throughput, malloc counts and peak
// memory per workload (`swift package benchmark --target WritePath`). The side-by-side comparison
// with raw LMDB and GRDB is `strata-compare`; this suite tracks Strata alone, run over run.
import SuiteSupport

let benchmarks: @Sendable () -> Void = {
    Suite.configure()
    Suite.workload("W1", count: 100_000)
    Suite.workload("W1a", count: 100_000)  // add alone: objects and their strings made beforehand
    Suite.workload("W2", count: 2_000)
    Suite.workload("W3", count: 200)
    Suite.workload("W4", count: 100_000)
    Suite.workload("W5", count: 100_000)
    Suite.workload("W6", count: 100_000)
}
