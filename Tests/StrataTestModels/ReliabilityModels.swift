import Foundation
import Observation
import Strata

/// One numbered transaction of the crash test: `CrashEntry` rows plus the counter, all in one write.
public final class CrashEntry: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: true) public var batch: Int
    @Persisted public var payload: Data

    /// Entries per transaction.
    public static let perBatch = 5

    /// The payload an entry must have: its length and bytes follow from its id, so a torn or mixed
    /// row cannot pass for a whole one.
    public static func payload(for id: Int) -> Data {
        Data(repeating: UInt8(truncatingIfNeeded: id % 251), count: 100 + (id &* 7_919) % 2_900)
    }

    public convenience init(batch: Int, index: Int) {
        self.init()
        id = batch * Self.perBatch + index
        self.batch = batch
        payload = Self.payload(for: id)
    }
}

/// The last transaction committed, written in the same transaction as its entries.
public final class CrashCounter: Object {
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var lastBatch: Int
}

/// A note Observation tracks across processes (`ObservationProcessTests`): it conforms to
/// `Observable`, and `strata-stress retitle` changes it from another process.
public final class SharedNote: Object, Observable {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var title: String
}

/// An object of the multi-process test: each process adds its own range of keys.
public final class ProcessEntry: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var writer: Int
}

/// A note of the full-text crash test: String keys (the index numbers their documents), a text
/// with a full-text index, added, rewritten and deleted in each transaction.
public final class CrashNote: Object {
    @Persisted(primaryKey: true) public var name: String
    @Persisted(indexed: .fullText) public var body: String
    /// A vector index beside the full-text one: the kill lands in either's writes.
    @Persisted(indexed: .vector(dimensions: 8, metric: .euclidean, maxConnections: 4, buildCandidates: 16))
    public var embedding: [Float]

    /// Words the writer draws its texts from (shared stems and prefixes, so postings interleave).
    public static let words = [
        "index", "indexes", "indexing", "crash", "crashed", "kill", "killed", "write", "writer", "commit", "page",
        "pages", "durable", "swift", "lmdb", "posting", "term", "terms", "block", "blocks",
    ]
}

/// The configuration of the full-text crash test's file.
public func searchReliabilityConfiguration(path: String) -> Store.Configuration {
    var configuration = Store.Configuration(
        fileURL: URL(fileURLWithPath: path), objectTypes: [CrashNote.self, CrashCounter.self])
    configuration.encryptionKey = reliabilityEncryptionKey
    return configuration
}

/// The configuration the stress helper and the tests share for a file.
public func reliabilityConfiguration(path: String, durability: Store.Durability = .full) -> Store.Configuration {
    var configuration = Store.Configuration(
        fileURL: URL(fileURLWithPath: path), objectTypes: [CrashEntry.self, CrashCounter.self, ProcessEntry.self])
    configuration.durability = durability
    configuration.encryptionKey = reliabilityEncryptionKey
    return configuration
}

/// With `STRATA_RELIABILITY_KEY` set (128 hex digits; `make test-encrypted` sets it), the reliability
/// suites and their helper process run on encrypted files: kills, power cuts, damaged files, several
/// processes (Docs/Reliability.md).
public let reliabilityEncryptionKey: Data? = {
    guard let hex = ProcessInfo.processInfo.environment["STRATA_RELIABILITY_KEY"], hex.count == 128 else { return nil }
    var bytes: [UInt8] = []
    var digits = hex.makeIterator()
    while let high = digits.next(), let low = digits.next() {
        guard let byte = UInt8(String([high, low]), radix: 16) else { return nil }
        bytes.append(byte)
    }
    return Data(bytes)
}()
