// swift-tools-version:6.1
import PackageDescription

/// PostgreSQL's client, for the targets of the Sync trait.
let postgresNIO: Target.Dependency = .product(
    name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Sync"]))

/// The AEADs and key derivation of encryption at rest (AES-GCM-SIV is in CryptoExtras), for the Encryption trait.
let crypto: [Target.Dependency] = ["Crypto", "_CryptoExtras"].map {
    .product(name: $0, package: "swift-crypto", condition: .when(traits: ["Encryption"]))
}

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataReactive", targets: ["StrataReactive"]),
        .library(name: "StrataSync", targets: ["StrataSync"]),
        .executable(name: "strata-demo", targets: ["strata-demo"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
    ],
    // An app that depends on Strata (or StrataReactive) resolves and builds nothing but this package
    // and LMDB: the third-party packages are behind traits, off unless asked for. Why traits and not
    // packages of their own: one package, one build of Strata for the tests of all three, and no
    // test support exported as a product. A dependency only a disabled trait uses is not resolved.
    traits: [
        .trait(name: "Sync", description: "StrataSync, sync through PostgreSQL (depends on postgres-nio)"),
        .trait(name: "CLI", description: "the `strata` command (depends on swift-argument-parser)"),
        .trait(
            name: "Encryption",
            description: "Configuration.encryptionKey: encryption at rest (depends on apple/swift-crypto)"),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // The CLI's only third-party dependency, with the CLI trait.
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // StrataSync's only dependency (and the sync tests'), with the Sync trait: the PostgreSQL client.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // Encryption at rest's only dependency, with the Encryption trait: AEADs and HKDF (BoringSSL's).
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // The vector index's distances with AVX2 and FMA where the CPU has them (chosen at run time).
        .target(name: "CVectorMath"),
        .target(name: "Strata", dependencies: ["CLMDB", "CVectorMath"] + crypto),
        .target(name: "StrataReactive", dependencies: ["Strata"]),
        // Sync through PostgreSQL: the only target that depends on postgres-nio.
        .target(name: "StrataSync", dependencies: ["Strata", postgresNIO]),
        // A private PostgreSQL cluster (initdb and pg_ctl in a temporary directory) for the sync tests,
        // the sync demo and the sync benchmarks. Not a product.
        .target(name: "PrivatePostgres"),
        // The two-client sync scene `make demo-sync` runs against a private PostgreSQL it starts and stops.
        .executableTarget(name: "strata-sync-demo", dependencies: ["Strata", "StrataSync", "PrivatePostgres"]),
        // S1 and S2 of Docs/Benchmarks.md: pushes and a commit's trip to another client, against postgres-nio.
        .executableTarget(
            name: "strata-sync-bench",
            dependencies: [
                "Strata", "StrataSync", "PrivatePostgres", postgresNIO,
            ]
        ),
        // The patterns of Docs/Guides (a repository with a single source of truth, a table applying
        // change batches, a view model on a given scheduler): shared by the demo and the tests.
        .target(name: "StrataExamples", dependencies: ["Strata", "StrataReactive"]),
        .executableTarget(name: "strata-demo", dependencies: ["Strata", "StrataReactive", "StrataExamples"]),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
            ]
        ),
        // The tests' model types (also used by the stress process), and the tests' fixture.
        .target(name: "StrataTestModels", dependencies: ["Strata"], path: "Tests/StrataTestModels"),
        .target(
            name: "StrataTestSupport",
            dependencies: ["Strata", "StrataTestModels", "PrivatePostgres"],
            path: "Tests/StrataTestSupport"
        ),
        // A helper process the reliability tests kill and restart (not a product).
        .executableTarget(
            name: "strata-stress", dependencies: ["Strata", "StrataTestModels"], path: "Tests/StrataStress"),
        .testTarget(
            name: "StrataTests", dependencies: ["Strata", "StrataTestSupport", "strata-stress", "StrataCLI"],
            exclude: ["Fixtures"]  // files of older formats, read by path
        ),
        // A sync client process the sync tests run several of, and kill (not a product).
        .executableTarget(
            name: "strata-sync-client",
            dependencies: ["Strata", "StrataSync", "StrataTestModels"],
            path: "Tests/StrataSyncClient"
        ),
        .testTarget(
            name: "StrataSyncTests",
            dependencies: [
                "Strata", "StrataSync", "StrataTestSupport", "StrataTestModels", "strata-sync-client",
                "strata-sync-demo",
                postgresNIO,
            ]
        ),
        .testTarget(
            name: "StrataReactiveTests",
            dependencies: ["StrataReactive", "Strata", "StrataTestSupport", "StrataExamples", "strata-demo"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
