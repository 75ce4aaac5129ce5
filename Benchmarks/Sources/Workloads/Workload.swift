/// The systems compared.
public enum System: String, CaseIterable, Sendable {
    case rawLMDB = "raw LMDB"
    case strata = "Strata"
    case grdbPrepared = "GRDB prepared"
    case grdbRecord = "GRDB Record"
}

/// How commits reach the disk in a workload (raw LMDB: `MDB_NOSYNC`; Strata: `.noSync`).
public enum Sync: Sendable {
    case full, noSync
}

/// A required ratio: Strata's speed divided by a peer's, median over the rounds of one run.
public struct Target: Sendable {
    public let peer: System
    public let minimum: Double
}

/// A bound on Strata's time per object in this workload over its time per object in another one,
/// measured in the same rounds (each round runs both, one after the other).
public struct RelativeTarget: Sendable {
    public let workload: String
    public let maximum: Double
}

/// One workload of the benchmarks issue.
public struct WorkloadSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        /// Insert `count` objects, `perTransaction` per write transaction.
        case insert(perTransaction: Int?)
        /// Insert `count` objects from `writers` concurrent writers, one object per durable write
        /// transaction (Strata: `asyncWrite` from an actor per writer, which commit in groups).
        case concurrentInsert(writers: Int)
        /// Add `count` objects made before the timing, in one write transaction: `add` alone.
        case addPremade
        /// Add `count` objects made before the timing with one `add(contentsOf:)`.
        case addContentsOf
        /// Change one property of every object, in one write transaction.
        case updateAll
        /// `add(update: .modified)` of every object, half of them changed.
        case upsertHalfChanged
        /// Read `count` objects by random primary key, one property each.
        case randomReads
        /// Iterate every object, reading one property.
        case scan
        /// Iterate every object of a richer model (a `UUID()` primary key, a String, a Date and a
        /// List<String>), reading one property: what making objects costs beyond R2's.
        case scanRich
        /// Read one property of every object as a column (`values(of:)`), no objects.
        case scanValues
        /// The sum of one property (`sum(of:)`).
        case sumColumn
        /// Iterate a filtered query (half the objects), reading one property.
        case scanFiltered
        /// The same, Strata iterating the objects.
        case scanFilteredObjects
        /// Count the objects of the same filtered query.
        case countFiltered
    }

    public let id: String
    public let title: String
    public let count: Int
    public let kind: Kind
    public let sync: Sync
    public let systems: [System]
    public let targets: [Target]
    public var relative: RelativeTarget? = nil

    /// Whether the table is filled (untimed) before the timed part.
    public var needsFill: Bool {
        switch kind {
        case .insert, .concurrentInsert, .addPremade, .addContentsOf, .scanRich: false
        default: true
        }
    }

    public static let all: [WorkloadSpec] = [
        WorkloadSpec(
            id: "W1", title: "bulk insert, one write transaction", count: 1_000_000, kind: .insert(perTransaction: nil),
            sync: .full, systems: [.rawLMDB, .strata, .grdbPrepared, .grdbRecord],
            targets: [
                Target(peer: .rawLMDB, minimum: 0.50), Target(peer: .grdbRecord, minimum: 15),
                Target(peer: .grdbPrepared, minimum: 4),
            ]),
        WorkloadSpec(
            id: "W1a", title: "add of objects made beforehand, one write transaction", count: 1_000_000,
            kind: .addPremade, sync: .full, systems: [.rawLMDB, .strata],
            targets: [Target(peer: .rawLMDB, minimum: 0.85)]),
        WorkloadSpec(
            id: "W1c", title: "add(contentsOf:) of objects made beforehand", count: 1_000_000,
            kind: .addContentsOf, sync: .full, systems: [.rawLMDB, .strata],
            targets: [Target(peer: .rawLMDB, minimum: 0.85)]),
        WorkloadSpec(
            id: "W2", title: "one write transaction per object, no sync", count: 10_000,
            kind: .insert(perTransaction: 1),
            sync: .noSync, systems: [.rawLMDB, .strata, .grdbRecord],
            targets: [Target(peer: .rawLMDB, minimum: 0.75), Target(peer: .grdbRecord, minimum: 10)]),
        WorkloadSpec(
            id: "W3", title: "one write transaction per object, durable", count: 5_000,
            kind: .insert(perTransaction: 1),
            sync: .full, systems: [.rawLMDB, .strata], targets: [Target(peer: .rawLMDB, minimum: 0.95)]),
        WorkloadSpec(
            id: "G1", title: "8 writers, one object per durable asyncWrite (raw LMDB: one writer, one sync each)",
            count: 8_000, kind: .concurrentInsert(writers: 8), sync: .full, systems: [.rawLMDB, .strata],
            targets: [Target(peer: .rawLMDB, minimum: 3)]),
        WorkloadSpec(
            id: "W4", title: "100 objects per write transaction, no sync", count: 1_000_000,
            kind: .insert(perTransaction: 100), sync: .noSync, systems: [.rawLMDB, .strata],
            targets: [Target(peer: .rawLMDB, minimum: 0.70)]),
        WorkloadSpec(
            id: "W5", title: "change one property of every object, one transaction", count: 1_000_000,
            kind: .updateAll, sync: .full, systems: [.rawLMDB, .strata, .grdbRecord],
            targets: [Target(peer: .rawLMDB, minimum: 0.50), Target(peer: .grdbRecord, minimum: 15)]),
        WorkloadSpec(
            id: "W6", title: "upsert (.modified) of existing objects, half changed", count: 1_000_000,
            kind: .upsertHalfChanged, sync: .full, systems: [.rawLMDB, .strata],
            targets: [Target(peer: .rawLMDB, minimum: 0.50)]),
        WorkloadSpec(
            id: "R1", title: "random reads by primary key (object + one property)", count: 1_000_000,
            kind: .randomReads, sync: .full, systems: [.rawLMDB, .strata, .grdbPrepared],
            targets: [Target(peer: .rawLMDB, minimum: 0.9), Target(peer: .grdbPrepared, minimum: 4)]),
        WorkloadSpec(
            id: "R2", title: "iterate all objects reading one property", count: 1_000_000, kind: .scan, sync: .full,
            systems: [.rawLMDB, .strata, .grdbPrepared],
            targets: [Target(peer: .rawLMDB, minimum: 0.45), Target(peer: .grdbPrepared, minimum: 2)]),
        WorkloadSpec(
            id: "R2v", title: "values(of:) over the same column", count: 1_000_000, kind: .scanValues, sync: .full,
            systems: [.rawLMDB, .strata], targets: [Target(peer: .rawLMDB, minimum: 0.6)]),
        WorkloadSpec(
            id: "R3", title: "iterate all objects of a model with UUID() key, Date and List, reading one property",
            count: 1_000_000, kind: .scanRich, sync: .full, systems: [.strata], targets: [],
            relative: RelativeTarget(workload: "R2", maximum: 1.3)),
        WorkloadSpec(
            id: "R4", title: "filtered query (half the objects), one property of each match (`values(of:)`)",
            count: 1_000_000,
            kind: .scanFiltered, sync: .full, systems: [.rawLMDB, .strata, .grdbPrepared],
            targets: [Target(peer: .rawLMDB, minimum: 0.3), Target(peer: .grdbPrepared, minimum: 2)]),
        WorkloadSpec(
            id: "R4o", title: "the same, iterating the matching objects", count: 1_000_000,
            kind: .scanFilteredObjects, sync: .full, systems: [.strata, .grdbPrepared],
            targets: [Target(peer: .grdbPrepared, minimum: 2)]),
        WorkloadSpec(
            id: "C1", title: "count of the same filtered query", count: 1_000_000, kind: .countFiltered,
            sync: .full, systems: [.rawLMDB, .strata, .grdbPrepared],
            targets: [Target(peer: .grdbPrepared, minimum: 2)]),
        WorkloadSpec(
            id: "A1", title: "sum(of:) one property", count: 1_000_000, kind: .sumColumn, sync: .full,
            systems: [.rawLMDB, .strata, .grdbPrepared],
            targets: [Target(peer: .rawLMDB, minimum: 0.5), Target(peer: .grdbPrepared, minimum: 1.5)]),
    ]
}

/// A workload failed, or produced another result than the other systems.
public struct WorkloadError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
