import Foundation
import Workloads

/// The samples of one workload.
struct WorkloadResult {
    let spec: WorkloadSpec
    let count: Int
    private(set) var seconds: [System: Samples] = [:]
    /// Per system, the seconds of each round (for per-round ratios).
    private(set) var rounds: [System: [Int: Double]] = [:]

    init(spec: WorkloadSpec, count: Int) {
        self.spec = spec
        self.count = count
    }

    /// Per round, Strata's seconds in the workload of `spec.relative` (same count).
    private(set) var baseline: [Int: Double] = [:]

    mutating func record(_ system: System, round: Int, seconds value: Double) {
        seconds[system, default: Samples()].add(value)
        rounds[system, default: [:]][round] = value
    }

    mutating func recordBaseline(round: Int, seconds value: Double) {
        baseline[round] = value
    }

    /// Strata's time here over its time in the baseline workload, per round, then the median.
    var relativeTime: Samples {
        var ratios = Samples()
        for (round, strata) in rounds[.strata] ?? [:] {
            if let other = baseline[round] { ratios.add(strata / other) }
        }
        return ratios
    }

    /// Strata's speed over the peer's, median of the rounds' ratios.
    func ratio(against peer: System) -> Samples {
        var ratios = Samples()
        for (round, strata) in rounds[.strata] ?? [:] {
            if let other = rounds[peer]?[round] { ratios.add(other / strata) }
        }
        return ratios
    }
}

struct MemoryResult {
    let system: System
    let count: Int
    let bytes: Int
}

struct Report {
    let results: [WorkloadResult]
    let memory: [MemoryResult]
    let notifications: NotificationBench.Result?
    let peerTables: [(title: String, result: PeerComparison.Result)]
    let options: Options

    /// N1 median latency goal, and N2's: commits with an observer at most this much slower.
    static let latencyGoal = 0.000_5
    static let observerCostGoal = 1.2
    /// O1 median latency goal (issue 56).
    static let observationLatencyGoal = 0.001

    var missedTargets: Int {
        let workloads = results.reduce(0) { sum, result in
            let relativeMissed = result.spec.relative.map { result.relativeTime.median > $0.maximum } ?? false
            return sum + result.spec.targets.filter { result.ratio(against: $0.peer).median < $0.minimum }.count
                + (relativeMissed ? 1 : 0)
        }
        let modelMisses = peerTables.reduce(0) { sum, table in
            sum + table.result.workloads.filter { !table.result.met($0) }.count
        }
        guard let notifications else { return workloads + modelMisses }
        return workloads + modelMisses + (latency(notifications).median > Self.latencyGoal ? 1 : 0)
            + (observerCost(notifications).median > Self.observerCostGoal ? 1 : 0)
            + (observationLatency(notifications).median > Self.observationLatencyGoal ? 1 : 0)
    }

    private func latency(_ result: NotificationBench.Result) -> Samples {
        var samples = Samples()
        for value in result.latencies { samples.add(value) }
        return samples
    }

    private func observationLatency(_ result: NotificationBench.Result) -> Samples {
        var samples = Samples()
        for value in result.observationLatencies { samples.add(value) }
        return samples
    }

    /// Per round: seconds with an observer over seconds without (`unsynced`: with `.noSync`).
    private func observerCost(_ result: NotificationBench.Result, unsynced: Bool = false) -> Samples {
        var samples = Samples()
        let pairs =
            unsynced
            ? zip(result.plainUnsyncedSeconds, result.observedUnsyncedSeconds)
            : zip(result.plainSeconds, result.observedSeconds)
        for (plain, observed) in pairs { samples.add(observed / plain) }
        return samples
    }

    var tables: String {
        var lines = [
            "| id | workload | N | system | median ms | min–max ms | objects/s |",
            "| --- | --- | ---: | --- | ---: | ---: | ---: |",
        ]
        for result in results {
            for system in result.spec.systems {
                guard let samples = result.seconds[system] else { continue }
                lines.append(
                    "| \(result.spec.id) | \(result.spec.title) | \(formatCount(Double(result.count))) | \(system.rawValue) "
                        + "| \(formatMilliseconds(samples.median)) "
                        + "| \(formatMilliseconds(samples.min))–\(formatMilliseconds(samples.max)) "
                        + "| \(formatCount(Double(result.count) / samples.median)) |")
            }
        }
        lines += [
            "", "| id | Strata vs | target | median ratio | min–max | met |",
            "| --- | --- | ---: | ---: | ---: | :---: |",
        ]
        for result in results {
            for target in result.spec.targets {
                let ratio = result.ratio(against: target.peer)
                lines.append(
                    "| \(result.spec.id) | \(target.peer.rawValue) | ≥ \(String(format: "%.2f", target.minimum))× "
                        + "| \(String(format: "%.2f", ratio.median))× "
                        + "| \(String(format: "%.2f", ratio.min))–\(String(format: "%.2f", ratio.max)) "
                        + "| \(ratio.median >= target.minimum ? "yes" : "**no**") |")
            }
            if let relative = result.spec.relative, !result.baseline.isEmpty {
                let time = result.relativeTime
                lines.append(
                    "| \(result.spec.id) | Strata in \(relative.workload) (time per object, same rounds) "
                        + "| ≤ \(String(format: "%.2f", relative.maximum))× of its time | \(String(format: "%.2f", time.median))× "
                        + "| \(String(format: "%.2f", time.min))–\(String(format: "%.2f", time.max)) "
                        + "| \(time.median <= relative.maximum ? "yes" : "**no**") |")
            }
        }
        if !memory.isEmpty {
            lines += ["", "| W1 peak memory (child process) | N | peak RSS |", "| --- | ---: | ---: |"]
            for entry in memory {
                lines.append(
                    "| \(entry.system.rawValue) | \(formatCount(Double(entry.count))) | \(entry.bytes >> 20) MiB |")
            }
        }
        if let notifications {
            let latency = latency(notifications)
            let cost = observerCost(notifications)
            let unsynced = observerCost(notifications, unsynced: true)
            let observed = observationLatency(notifications)
            lines += [
                "",
                "| id | notifications (\(notifications.latencies.count) commits of one object) | goal | median | min–max | met |",
                "| --- | --- | ---: | ---: | ---: | :---: |",
                "| N1 | commit on one thread → callback on another queue (`.noSync`) | ≤ 0.5 ms "
                    + "| \(String(format: "%.3f", latency.median * 1000)) ms "
                    + "| \(String(format: "%.3f", latency.min * 1000))–\(String(format: "%.3f", latency.max * 1000)) ms "
                    + "| \(latency.median <= Self.latencyGoal ? "yes" : "**no**") |",
                "| N2 | commits with an observer registered, over without (default `.full` durability) | ≤ 1.20× "
                    + "| \(String(format: "%.2f", cost.median))× | \(String(format: "%.2f", cost.min))–\(String(format: "%.2f", cost.max)) "
                    + "| \(cost.median <= Self.observerCostGoal ? "yes" : "**no**") |",
                "| N2s | the same with `.noSync` (no flush hides the observer's cost) | report | "
                    + "\(String(format: "%.2f", unsynced.median))× | \(String(format: "%.2f", unsynced.min))–\(String(format: "%.2f", unsynced.max)) | – |",
                "| O1 | commit on one thread → `withObservationTracking`'s `onChange` on another queue (`.noSync`) | ≤ 1 ms "
                    + "| \(String(format: "%.3f", observed.median * 1000)) ms "
                    + "| \(String(format: "%.3f", observed.min * 1000))–\(String(format: "%.3f", observed.max * 1000)) ms "
                    + "| \(observed.median <= Self.observationLatencyGoal ? "yes" : "**no**") |",
            ]
        }
        for (title, result) in peerTables {
            lines += [
                "",
                "| id | \(title) (\(formatCount(Double(result.count))) objects) | peer | target | Strata / peer (median) | min–max | met |",
                "| --- | --- | --- | ---: | ---: | ---: | :---: |",
            ]
            for workload in result.workloads {
                let ratio = result.ratio(workload.id)
                var measured =
                    "\(String(format: "%.2f", ratio.median))× | \(String(format: "%.2f", ratio.min))–\(String(format: "%.2f", ratio.max))"
                let target: String
                switch workload.goal {
                case .ratio(let minimum): target = String(format: "≥ %.2f×", minimum)
                case .seconds(let maximum):
                    target = "Strata ≤ \(formatMilliseconds(maximum)) ms"
                    let seconds = result.strataSeconds(workload.id)
                    measured =
                        "\(formatMilliseconds(seconds.median)) ms (\(String(format: "%.2f", ratio.median))×) "
                        + "| \(formatMilliseconds(seconds.min))–\(formatMilliseconds(seconds.max)) ms"
                case .report:
                    target = "report"
                    if result.quality[workload.id] != nil {
                        measured = String(format: "recall %.3f, ", result.qualityMedian(workload.id)) + measured
                    }
                case .quality(let minimum, let ratio):
                    target =
                        String(format: "recall ≥ %.2f", minimum) + (ratio.map { String(format: ", ≥ %.0f×", $0) } ?? "")
                    measured =
                        String(format: "recall %.3f, ", result.qualityMedian(workload.id)) + measured
                }
                let met = if case .report = workload.goal { "–" } else { result.met(workload) ? "yes" : "**no**" }
                lines.append(
                    "| \(workload.id) | \(workload.title) | \(workload.peer) | \(target) | \(measured) | \(met) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    func document(machine: String) -> String {
        let date = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withFullDate])
        let command = (["swift", "run", "-c", "release", "strata-compare"] + CommandLine.arguments.dropFirst())
            .joined(separator: " ")
        return """
            # Benchmarks

            Measured \(date) on \(machine).

            Command (in `Benchmarks/`): `\(command)`; `make bench` runs it at full scale.
            Every workload runs each system once per round, interleaved (A B C D, A B C D, …), \(options.rounds) rounds,
            each in a fresh temporary directory; reads and updates run on a store filled before the timing
            starts. A ratio is Strata's speed over the peer's, per round, then the median. Each run checks its
            result (row count and sum of scores), so every system did the same work.

            \(tables)

            """
    }
}
