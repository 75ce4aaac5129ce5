import Foundation
import Strata

/// E1–E5: the same workloads on an encrypted Store (`encryptionKey`, the Encryption trait) and a plain
/// one, interleaved in one run (Docs/Encryption.md). In each round both start empty: E1 fills them,
/// the reads run in the process that wrote (as an app reads what it wrote). E5 writes, untimed, a
/// second file of as many 1,000-byte rows (1 GiB at full scale, the size) and times opening it
/// with the full check, as a new version of a file is opened.
public enum EncryptionBench {
    public static let workloads: [PeerWorkload] = [
        PeerWorkload(
            id: "E1", title: "W1 encrypted: bulk insert, one write transaction", peer: "plain Store",
            goal: .ratio(0.6)),
        PeerWorkload(
            id: "E2", title: "R2 encrypted: iterate all objects reading one property", peer: "plain Store",
            goal: .ratio(0.5)),
        PeerWorkload(
            id: "E3", title: "R1 encrypted: random reads by primary key (object + one property)",
            peer: "plain Store", goal: .ratio(0.6)),
        PeerWorkload(
            id: "E4", title: "C1 encrypted: count of a filtered query", peer: "plain Store", goal: .ratio(0.5)),
        PeerWorkload(
            id: "E5", title: "open with the full check: 1,000-byte rows, 1 KiB per object (time at most 2×)",
            peer: "plain Store", goal: .ratio(0.5)),
    ]

    /// A key for the benchmark's files (any 64 bytes).
    static let key = Data((0..<64).map { UInt8(($0 * 37 + 11) % 256) })

    public static func run(directory: URL, count: Int, rounds: Int, report: (String) -> Void) throws
        -> PeerComparison.Result
    {
        try PeerComparison.run(
            workloads, name: "e", directory: directory, count: count, rounds: rounds,
            strata: { try StoreSide(directory: $0, key: key) }, peer: { try StoreSide(directory: $0, key: nil) },
            report: report)
    }
}

/// One side: a Store of `Item`s, encrypted or not.
private final class StoreSide: PeerSide {
    private let configuration: Store.Configuration
    private let blobConfiguration: Store.Configuration
    private var store: Store?
    private var ids: [Int] = []

    init(directory: URL, key: Data?) throws {
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("e.strata"), objectTypes: [Item.self])
        configuration.durability = .noSync
        configuration.encryptionKey = key
        if let size = ProcessInfo.processInfo.environment["STRATA_BENCH_MAXIMUM_SIZE"].flatMap(Int.init) {
            configuration.maximumSize = size
        }
        self.configuration = configuration
        var blobConfiguration = configuration
        blobConfiguration.fileURL = directory.appendingPathComponent("e-rows.strata")
        blobConfiguration.objectTypes = [PayloadRow.self]
        blobConfiguration.maximumSize = max(configuration.maximumSize, 8 << 30)
        self.blobConfiguration = blobConfiguration
        store = try Store(configuration: configuration)
    }

    func prepare(_ id: String, count: Int) throws {
        switch id {
        case "E3":
            var random = SplitMix64(seed: 42)
            ids = (0..<count).map { _ in Int.random(in: 0..<count, using: &random) }
        case "E5":
            store = nil
            let blobs = try Store(configuration: blobConfiguration)
            var payload = Data(count: 1_000)
            for start in stride(from: 0, to: count, by: 10_000) {
                try blobs.write {
                    for id in start..<min(start + 10_000, count) {
                        payload.withUnsafeMutableBytes { $0.storeBytes(of: id, toByteOffset: 0, as: Int.self) }
                        try blobs.add(PayloadRow(id: id, payload: payload))
                    }
                }
            }
        // Released: the next open is a new environment, and the file's new version gets the full check.
        default: break
        }
    }

    func run(_ id: String, count: Int) throws -> Int {
        switch id {
        case "E1":
            let store = try opened()
            try store.write {
                for id in 0..<count { try store.add(Item(id: id, score: Double(id), name: itemName)) }
            }
            return count
        case "E2":
            var sum = 0.0
            for item in try opened().objects(Item.self) { sum += item.score }
            return Int(sum)
        case "E3":
            let store = try opened()
            var sum = 0.0
            for id in ids { sum += store.object(ofType: Item.self, forPrimaryKey: id)?.score ?? -1 }
            return Int(sum)
        case "E4":
            let threshold = Double(count / 2) - 0.5
            return try opened().objects(Item.self).where { $0.score > threshold }.count
        case "E5":
            return try Store(configuration: blobConfiguration).objects(PayloadRow.self).count
        default:
            throw WorkloadError("no workload \(id)")
        }
    }

    private func opened() throws -> Store {
        if let store { return store }
        let store = try Store(configuration: configuration)
        self.store = store
        return store
    }
}

/// E5's rows: 1,000 bytes each.
public final class PayloadRow: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var payload: Data

    public convenience init(id: Int, payload: Data) {
        self.init()
        self.id = id
        self.payload = payload
    }
}
