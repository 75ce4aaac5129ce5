// swift-tools-version:6.1
// The benchmarks: a package of their own, so the library never depends on the harness.
import PackageDescription

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // With encryption at rest, for E1–E5 (a plain Store's calls pay one check of the environment's
        // user context per LMDB call for it).
        .package(name: "Strata", path: "..", traits: ["Encryption"]),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The workloads against LMDB's C API: the physical limit.
        .target(name: "CLMDBBench", linkerSettings: [.linkedLibrary("lmdb")]),
        // The same workloads for every system, shared by the comparison and the suites.
        .target(
            name: "Workloads",
            dependencies: [
                "CLMDBBench",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "strata-compare", dependencies: ["Workloads"]),
        // O1: opening with the full check against the minimal one (Docs/Benchmarks.md).
        .executableTarget(name: "strata-open-check", dependencies: [.product(name: "Strata", package: "Strata")]),
        .target(name: "SuiteSupport", dependencies: ["Workloads", .product(name: "Benchmark", package: "benchmark")]),
        .executableTarget(
            name: "WritePath",
            dependencies: ["SuiteSupport", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/WritePath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ReadPath",
            dependencies: ["SuiteSupport", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/ReadPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
