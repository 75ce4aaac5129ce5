import Dispatch
import Foundation
import Observation
import Strata

/// An `Item` that opts in to Observation (O1).
public final class ObservedItem: Object, Observable {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var score: Double
}

/// N1 and N2: how fast a commit reaches an observer on another queue, and what an observer costs the
/// writer. O1: how fast a commit reaches `withObservationTracking`'s `onChange` on another queue.
public enum NotificationBench {
    public struct Result {
        /// Per commit: seconds from calling `commitWrite` to the observer's callback starting (N1).
        public var latencies: [Double] = []
        /// Per round: seconds for the commits with no observer, and with one registered, at the
        /// default durability (N2: each commit flushed), and with `.noSync` (N2s: nothing flushed, so
        /// the observer's own cost shows in full).
        public var plainSeconds: [Double] = []
        public var observedSeconds: [Double] = []
        public var plainUnsyncedSeconds: [Double] = []
        public var observedUnsyncedSeconds: [Double] = []
        /// Per commit: seconds from calling `commitWrite` to `onChange` of a tracking of the changed
        /// property, on the queue of the object's Store (O1).
        public var observationLatencies: [Double] = []
    }

    /// Runs `rounds` rounds of `commits` one-object commits, each round once without and once with an
    /// observer, then `commits` more, each waited for, to time the delivery.
    public static func run(directory: URL, commits: Int, rounds: Int) throws -> Result {
        var result = Result()
        for round in 0..<rounds {
            for synced in [true, false] {
                let name = "n2-\(synced ? "full" : "nosync")-\(round)"
                let plain = try timeCommits(
                    commits, in: directory.appendingPathComponent(name + "-plain"), observed: false, synced: synced)
                let observed = try timeCommits(
                    commits, in: directory.appendingPathComponent(name + "-observed"), observed: true, synced: synced)
                if synced {
                    result.plainSeconds.append(plain)
                    result.observedSeconds.append(observed)
                } else {
                    result.plainUnsyncedSeconds.append(plain)
                    result.observedUnsyncedSeconds.append(observed)
                }
            }
        }
        result.latencies = try latencies(commits, in: directory.appendingPathComponent("n1"))
        result.observationLatencies = try observationLatencies(commits, in: directory.appendingPathComponent("o1"))
        return result
    }

    private static func configuration(_ directory: URL, synced: Bool = false) throws -> Store.Configuration {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("n.strata"), objectTypes: [Item.self])
        configuration.durability = synced ? .full : .noSync
        return configuration
    }

    /// An observer on a serial queue of its own, calling `delivered` for every update.
    private static func observe(
        _ configuration: Store.Configuration, queue: DispatchQueue, delivered: @escaping @Sendable () -> Void
    ) throws -> NotificationToken {
        try queue.sync {
            let store = try Store(configuration: configuration, queue: queue)
            return try store.objects(Item.self).observe { change in
                if case .update = change { delivered() }
            }
        }
    }

    private static func timeCommits(_ commits: Int, in directory: URL, observed: Bool, synced: Bool) throws -> Double {
        let configuration = try configuration(directory, synced: synced)
        let queue = DispatchQueue(label: "n2-observer")
        let token = observed ? try observe(configuration, queue: queue) {} : nil
        queue.sync {}  // the initial delivery is done
        let store = try Store(configuration: configuration)
        let start = DispatchTime.now().uptimeNanoseconds
        for id in 0..<commits {
            try store.write { try store.add(Item(id: id, score: Double(id), name: itemName)) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        queue.sync { token?.invalidate() }
        guard store.objects(Item.self).count == commits else { throw WorkloadError("N2 stored the wrong count") }
        return seconds
    }

    private final class Clock: @unchecked Sendable {  // written on the queue, read after the semaphore
        var delivered: UInt64 = 0
    }

    private static func latencies(_ commits: Int, in directory: URL) throws -> [Double] {
        let configuration = try configuration(directory)
        let queue = DispatchQueue(label: "n1-observer")
        let arrived = DispatchSemaphore(value: 0)
        let clock = Clock()
        let token = try observe(configuration, queue: queue) {
            clock.delivered = DispatchTime.now().uptimeNanoseconds
            arrived.signal()
        }
        queue.sync {}
        let store = try Store(configuration: configuration)
        var latencies: [Double] = []
        for id in 0..<commits {
            try store.beginWrite()
            try store.add(Item(id: id, score: Double(id), name: itemName))
            let committed = DispatchTime.now().uptimeNanoseconds  // the commit itself counts
            try store.commitWrite()
            guard arrived.wait(timeout: .now() + 5) == .success else {
                throw WorkloadError("N1: no notification in 5 s")
            }
            latencies.append(Double(Int64(clock.delivered) - Int64(committed)) / 1e9)
        }
        queue.sync { token.invalidate() }
        return latencies
    }

    /// O1: an `ObservedItem` read inside `withObservationTracking` on its Store's queue; each commit
    /// on this thread changes the property read, and the tracking is made again after each call.
    private static func observationLatencies(_ commits: Int, in directory: URL) throws -> [Double] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("o.strata"), objectTypes: [ObservedItem.self])
        configuration.durability = .noSync
        let writer = try Store(configuration: configuration)
        try writer.write {
            let item = ObservedItem()
            item.id = 1
            try writer.add(item)
        }
        let queue = DispatchQueue(label: "o1-observer")
        let arrived = DispatchSemaphore(value: 0)
        let clock = Clock()
        let tracked = try queue.sync { () throws -> ObservedItemBox in
            let store = try Store(configuration: configuration, queue: queue)
            return ObservedItemBox(store.object(ofType: ObservedItem.self, forPrimaryKey: 1)!)
        }
        @Sendable func track() {
            withObservationTracking {
                _ = tracked.item.score
            } onChange: {
                clock.delivered = DispatchTime.now().uptimeNanoseconds
                arrived.signal()
            }
        }
        queue.sync { track() }
        var latencies: [Double] = []
        for round in 0..<commits {
            try writer.beginWrite()
            writer.object(ofType: ObservedItem.self, forPrimaryKey: 1)!.score = Double(round + 1)
            let committed = DispatchTime.now().uptimeNanoseconds  // the commit itself counts
            try writer.commitWrite()
            guard arrived.wait(timeout: .now() + 5) == .success else {
                throw WorkloadError("O1: no onChange in 5 s")
            }
            latencies.append(Double(Int64(clock.delivered) - Int64(committed)) / 1e9)
            queue.sync {
                guard tracked.item.score == Double(round + 1) else { return }  // checked below
                track()
            }
        }
        let last = queue.sync { tracked.item.score }
        guard last == Double(commits) else { throw WorkloadError("O1: the tracked object shows \(last)") }
        return latencies
    }

    /// The tracked object, used on its Store's queue only.
    private final class ObservedItemBox: @unchecked Sendable {
        let item: ObservedItem
        init(_ item: ObservedItem) { self.item = item }
    }
}
