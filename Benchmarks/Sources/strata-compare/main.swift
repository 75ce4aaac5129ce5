// strata-compare: the benchmark workloads on raw LMDB, Strata, GRDB prepared statements and GRDB
// records, interleaved round by round in one run; prints medians, ranges and Strata's ratios against
// the targets, and can write them to Docs/Benchmarks.md.
import Foundation
import Workloads

do {
    let options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    if let child = options.child {
        try PeakMemory.runChild(
            workload: child.workload, system: child.system, count: child.count, directory: options.directory)
        exit(0)
    }
    let base = URL(fileURLWithPath: options.directory).appendingPathComponent("strata-compare-\(getpid())")
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: base) }

    let specs = WorkloadSpec.all.filter { options.only?.contains($0.id.uppercased()) ?? true }
    var results: [WorkloadResult] = []
    for spec in specs {
        let count = max(100, Int(Double(spec.count) * options.scale))
        var result = WorkloadResult(spec: spec, count: count)
        let baseline = spec.relative.flatMap { relative in WorkloadSpec.all.first { $0.id == relative.workload } }
        for round in 1...options.rounds {
            if let baseline {
                // The workload this one is bounded by, on Strata, in the same round.
                let duration = try Runner.measure(baseline, system: .strata, count: count, in: base)
                result.recordBaseline(round: round, seconds: duration.seconds)
                FileHandle.standardError.write(
                    "\(spec.id) round \(round) baseline \(baseline.id) Strata: \(formatMilliseconds(duration.seconds)) ms\n"
                )
            }
            for system in spec.systems where options.systems?.contains(system.rawValue) ?? true {
                let duration = try Runner.measure(spec, system: system, count: count, in: base)
                result.record(system, round: round, seconds: duration.seconds)
                FileHandle.standardError.write(
                    "\(spec.id) round \(round) \(system.rawValue): \(formatMilliseconds(duration.seconds)) ms\n")
            }
        }
        results.append(result)
    }
    var memory: [MemoryResult] = []
    if options.memory {
        let count = max(1000, Int(1_000_000 * options.scale))
        for system in [System.rawLMDB, .strata] {
            for n in [count / 4, count] {
                let bytes = try PeakMemory.measure(workload: "W1", system: system, count: n, directory: base.path)
                memory.append(MemoryResult(system: system, count: n, bytes: bytes))
                FileHandle.standardError.write("W1 peak memory \(system.rawValue) \(n): \(bytes >> 20) MiB\n")
            }
        }
    }
    var notifications: NotificationBench.Result?
    if options.only.map({ $0.contains("N1") || $0.contains("N2") || $0.contains("O1") }) ?? true {
        let commits = max(100, Int(1000 * options.scale))
        notifications = try NotificationBench.run(directory: base, commits: commits, rounds: options.rounds)
        FileHandle.standardError.write(
            "N1/N2: \(commits) commits; without an observer \(notifications!.plainSeconds.map { formatMilliseconds($0) }) ms, "
                + "with \(notifications!.observedSeconds.map { formatMilliseconds($0) }) ms; .noSync: "
                + "\(notifications!.plainUnsyncedSeconds.map { formatMilliseconds($0) }) ms, "
                + "\(notifications!.observedUnsyncedSeconds.map { formatMilliseconds($0) }) ms\n")
    }
    var tables: [(title: String, result: PeerComparison.Result)] = []
    let peerTables: [(title: String, workloads: [PeerWorkload], run: (URL, Int, Int) throws -> PeerComparison.Result)] =
        [
            (
                "Realm's model types", ModelBench.workloads,
                { try ModelBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Queries", QueryBench.workloads,
                { try QueryBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "A first page, newest first", QueryBench.newestWorkloads,
                { try QueryBench.runNewest(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Sections", SectionBench.workloads,
                { try SectionBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Sections by a block", SectionBench.blockWorkloads,
                { try SectionBench.runBlock(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Text search", TextBench.workloads,
                { try TextBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "The string language", QueryBench.languageWorkloads,
                { try QueryBench.runLanguage(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Full-text search against SQLite's FTS5", FullTextBench.workloads,
                { try FullTextBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Full-text index cost on writes", FullTextBench.writeWorkloads,
                { try FullTextBench.runWrites(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Vector search against search in memory", VectorBench.workloads,
                { try VectorBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
            (
                "Encryption at rest: an encrypted Store against a plain one", EncryptionBench.workloads,
                { try EncryptionBench.run(directory: $0, count: $1, rounds: $2, report: log) }
            ),
        ]
    for table in peerTables
    where options.only.map({ only in table.workloads.contains { only.contains($0.id.uppercased()) } }) ?? true {
        let count = max(1000, Int(1_000_000 * options.scale))
        tables.append((table.title, try table.run(base, count, options.rounds)))
    }
    let report = Report(
        results: results, memory: memory, notifications: notifications, peerTables: tables, options: options)
    print(report.tables)
    if let path = options.docsPath {
        // Hand-written notes after the marker survive a new measurement.
        let marker = "<!-- notes: kept by strata-compare -->"
        let previous = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let notes = previous.range(of: marker).map { String(previous[$0.lowerBound...]) } ?? marker + "\n"
        try (report.document(machine: Machine.describe(directory: options.directory)) + "\n" + notes)
            .write(toFile: path, atomically: true, encoding: .utf8)
        print("wrote \(path)")
    }
    if report.missedTargets > 0 {
        print("\(report.missedTargets) target(s) not met")
    }
} catch {
    FileHandle.standardError.write("strata-compare: \(error)\n")
    exit(1)
}

func log(_ line: String) {
    FileHandle.standardError.write(line + "\n")
}

extension FileHandle {
    func write(_ string: String) {
        write(Data(string.utf8))
    }
}
