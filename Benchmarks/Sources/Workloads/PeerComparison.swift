import Foundation

/// One side of a comparison of two systems on the same data: runs a workload, returns a check value
/// the other side must agree on.
protocol PeerSide {
    func run(_ id: String, count: Int) throws -> Int
    /// Untimed, just before `run(id)`: what a workload measures after (a query asked before).
    func prepare(_ id: String, count: Int) throws
    /// Untimed, just after `run(id)`: the quality of what it answered (a recall), if it measures one.
    func quality(_ id: String) -> Double?
}

extension PeerSide {
    func prepare(_ id: String, count: Int) throws {}
    func quality(_ id: String) -> Double? { nil }
}

/// A workload of a two-system table (M1–M3, the query workloads).
public struct PeerWorkload: Sendable {
    public enum Goal: Sendable {
        /// Strata's speed over the peer's, at least.
        case ratio(Double)
        /// Strata's median time, at most (seconds).
        case seconds(Double)
        /// No goal: reported.
        case report
        /// Strata's answers' quality (a recall) at least `quality`, and its speed over the peer's at
        /// least `ratio` when given.
        case quality(Double, ratio: Double?)
    }

    public let id: String
    public let title: String
    public let peer: String
    public let goal: Goal
}

/// Runs two-system tables: Strata and a peer interleaved round by round, each round in fresh files.
public enum PeerComparison {
    /// Per workload, per round: Strata's seconds and the peer's.
    public struct Result {
        public var strata: [String: [Double]] = [:]
        public var peer: [String: [Double]] = [:]
        /// Per workload, per round: the quality Strata's side reported (`PeerSide.quality`).
        public var quality: [String: [Double]] = [:]
        public var count = 0
        public var workloads: [PeerWorkload] = []

        /// Strata's speed over the peer's per round (the peer's seconds over Strata's): median, min, max.
        public func ratio(_ id: String) -> (median: Double, min: Double, max: Double) {
            summary(zip(peer[id] ?? [], strata[id] ?? []).map { $0 / $1 })
        }

        /// Strata's seconds: median, min, max.
        public func strataSeconds(_ id: String) -> (median: Double, min: Double, max: Double) {
            summary(strata[id] ?? [])
        }

        /// Whether the workload's goal is met (true without a goal).
        public func met(_ workload: PeerWorkload) -> Bool {
            switch workload.goal {
            case .ratio(let minimum): ratio(workload.id).median >= minimum
            case .seconds(let maximum): strataSeconds(workload.id).median <= maximum
            case .report: true
            case .quality(let minimum, let ratio):
                qualityMedian(workload.id) >= minimum && ratio.map { self.ratio(workload.id).median >= $0 } ?? true
            }
        }

        /// The median quality Strata's side reported (0 when none).
        public func qualityMedian(_ id: String) -> Double { summary(quality[id] ?? []).median }

        private func summary(_ values: [Double]) -> (median: Double, min: Double, max: Double) {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return (0, 0, 0) }
            return (sorted[sorted.count / 2], sorted.first!, sorted.last!)
        }
    }

    static func run(
        _ workloads: [PeerWorkload], name: String, directory: URL, count: Int, rounds: Int,
        strata: (URL) throws -> PeerSide, peer: (URL) throws -> PeerSide, report: (String) -> Void
    ) throws -> Result {
        var result = Result()
        result.count = count
        result.workloads = workloads
        for round in 1...rounds {
            let strataDirectory = directory.appendingPathComponent("\(name)-strata-\(round)")
            let peerDirectory = directory.appendingPathComponent("\(name)-peer-\(round)")
            for path in [strataDirectory, peerDirectory] {
                try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            }
            defer { for path in [strataDirectory, peerDirectory] { try? FileManager.default.removeItem(at: path) } }
            let strataSide = try strata(strataDirectory)
            let peerSide = try peer(peerDirectory)
            for workload in workloads {
                let id = workload.id
                try strataSide.prepare(id, count: count)
                try peerSide.prepare(id, count: count)
                let strataTime = try time { try strataSide.run(id, count: count) }
                let peerTime = try time { try peerSide.run(id, count: count) }
                result.strata[id, default: []].append(strataTime.seconds)
                result.peer[id, default: []].append(peerTime.seconds)
                if let quality = strataSide.quality(id) { result.quality[id, default: []].append(quality) }
                guard strataTime.check == peerTime.check else {
                    throw WorkloadError("\(id): Strata checked \(strataTime.check), \(workload.peer) \(peerTime.check)")
                }
                report(
                    "\(id) round \(round): Strata \(String(format: "%.2f", strataTime.seconds * 1000)) ms, "
                        + "\(workload.peer) \(String(format: "%.2f", peerTime.seconds * 1000)) ms")
            }
        }
        return result
    }

    private static func time(_ body: () throws -> Int) throws -> (seconds: Double, check: Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let check = try body()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, check)
    }
}
