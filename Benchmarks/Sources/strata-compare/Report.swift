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

    mutating func record(_ system: System, round: Int, seconds value: Double) {
        seconds[system, default: Samples()].add(value)
        rounds[system, default: [:]][round] = value
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
    let options: Options

    var missedTargets: Int {
        results.reduce(0) { sum, result in
            sum + result.spec.targets.filter { result.ratio(against: $0.peer).median < $0.minimum }.count
        }
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
        lines += ["", "| id | Strata vs | target | median ratio | min–max | met |", "| --- | --- | ---: | ---: | ---: | :---: |"]
        for result in results {
            for target in result.spec.targets {
                let ratio = result.ratio(against: target.peer)
                lines.append(
                    "| \(result.spec.id) | \(target.peer.rawValue) | ≥ \(String(format: "%.2f", target.minimum))× "
                        + "| \(String(format: "%.2f", ratio.median))× "
                        + "| \(String(format: "%.2f", ratio.min))–\(String(format: "%.2f", ratio.max)) "
                        + "| \(ratio.median >= target.minimum ? "yes" : "**no**") |")
            }
        }
        if !memory.isEmpty {
            lines += ["", "| W1 peak memory (child process) | N | peak RSS |", "| --- | ---: | ---: |"]
            for entry in memory {
                lines.append(
                    "| \(entry.system.rawValue) | \(formatCount(Double(entry.count))) | \(entry.bytes >> 20) MiB |")
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
