import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

/// Simulated power cuts. A kill loses the process, not the page cache: these lose the page cache.
/// The writer (`strata-stress power-writer`) runs with an interposed library (Tests/PowerCut) that
/// logs every write to the store file and every barrier (fsync, fdatasync, a write on an O_DSYNC
/// descriptor) in the order they returned, and the writer's acks. For a cut at a random point of
/// the log, the file is rebuilt as the disk could hold it then: every write before the last barrier,
/// and of each later write any subset of its 512-byte sectors (torn, reordered, or lost). A helper
/// opens the rebuilt file and reads every object (`strata-stress power-check`).
@Suite("Simulated power cuts", .serialized, .fixtureChecks, .offThePool)
struct PowerCutTests {
    static var cuts: Int { ProcessInfo.processInfo.environment["STRATA_POWER_CUTS"].flatMap(Int.init) ?? 100 }

    /// The interposer, built once per test run with the C compiler beside `swift` (or `cc`).
    static let interposer: Result<URL, PowerCutSetupError> = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PowerCut/powercut.c")
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("strata-powercut-\(getpid()).so")
        for compiler in ["clang", "cc"] {
            let build = Process()
            build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            build.arguments = [compiler, "-shared", "-fPIC", "-O2", "-o", library.path, source.path, "-ldl"]
            build.standardError = FileHandle.nullDevice
            guard (try? build.run()) != nil else { continue }
            build.waitUntilExit()
            if build.terminationStatus == 0 { return .success(library) }
        }
        return .failure(PowerCutSetupError())
    }()

    struct PowerCutSetupError: Error {}

    /// One logged call.
    struct Record {
        enum Kind: UInt8 {
            case write = 0x57
            case durableWrite = 0x44
            case sync = 0x53
            case ack = 0x41
        }
        let kind: Kind
        let offset: Int
        let bytes: Data
    }

    static func parse(_ log: Data) throws -> [Record] {
        var records: [Record] = []
        var position = log.startIndex
        while position < log.endIndex {
            let header = log[position..<(position + 13)]
            let kind = try #require(Record.Kind(rawValue: header.first!))
            let offset = header.dropFirst().prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let length = header.dropFirst(9).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            let start = position + 13
            records.append(Record(kind: kind, offset: Int(offset), bytes: log[start..<(start + Int(length))]))
            position = start + Int(length)
        }
        return records
    }

    /// The file as a power cut before record `cut` can leave it.
    /// With `honoringBarriers` false, no write is durable: the control that shows the check can fail.
    static func rebuild(
        base: Data, records: [Record], cut: Int, honoringBarriers: Bool = true, random: inout SplitMix64
    ) -> Data {
        let lastBarrier = honoringBarriers ? records[..<cut].lastIndex { $0.kind == .sync } ?? -1 : -1
        var file = base
        for (index, record) in records[..<cut].enumerated() {
            guard record.kind == .write || record.kind == .durableWrite else { continue }
            let durable = index < lastBarrier || (honoringBarriers && record.kind == .durableWrite)
            let end = record.offset + record.bytes.count
            if file.count < end { file.append(Data(count: end - file.count)) }
            var sector = 0
            while sector < record.bytes.count {
                let length = min(512 - (record.offset + sector) % 512, record.bytes.count - sector)
                if durable || Bool.random(using: &random) {
                    let start = record.bytes.startIndex + sector
                    file.replaceSubrange(
                        (record.offset + sector)..<(record.offset + sector + length),
                        with: record.bytes[start..<(start + length)])
                }
                sector += length
            }
        }
        return file
    }

    struct Outcomes: CustomStringConvertible {
        var clean = 0
        var corrupted = 0
        var crashes: [String] = []
        var partial: [String] = []
        /// Cuts after which acknowledged commits were missing, and the most missing at once.
        var lostAcknowledged: [String] = []
        var mostLost = 0
        var description: String {
            "\(clean) opened with every acknowledged commit, \(corrupted) .corrupted, \(crashes.count) crashes, "
                + "\(partial.count) partial or altered, \(lostAcknowledged.count) lost acknowledged commits "
                + "(at most \(mostLost) at once)"
        }
    }

    /// Writes 40 commits under the interposer after 3 without it, then checks `cuts` power cuts.
    func run(durability: String, seed: UInt64, honoringBarriers: Bool = true, cuts: Int = cuts) throws -> Outcomes {
        let library = try Self.interposer.get()
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let first = try StressProcess(["power-writer", fixture.path, "3", durability])
        #expect(first.remainingLines() == ["ack 1", "ack 2", "ack 3"])
        #expect(first.wait().status == 0)
        let base = fixture.fileBytes()
        let log = fixture.directory.appendingPathComponent("writes.log")
        let writer = try StressProcess(
            ["power-writer", fixture.path, "40", durability],
            environment: [
                "LD_PRELOAD": library.path, "STRATA_POWERCUT_LOG": log.path,
                "STRATA_POWERCUT_FILE": try EnvironmentRegistry.canonicalPath(fixture.path),
            ])
        #expect(writer.remainingLines().last == "ack 43")
        #expect(writer.wait().status == 0)
        let records = try Self.parse(try Data(contentsOf: log))
        #expect(records.filter { $0.kind == .ack }.count == 40)
        #expect(records.contains { $0.kind == .write }, "the interposer saw the writes")
        var random = SplitMix64(state: seed)
        var outcomes = Outcomes()
        let rebuilt = fixture.directory.appendingPathComponent("rebuilt.strata").path
        let kinds = Dictionary(grouping: records, by: \.kind).mapValues(\.count)
        for trial in 0..<cuts {
            let cut = Int.random(in: 0...records.count, using: &random)
            let acknowledged = 3 + records[..<cut].filter { $0.kind == .ack }.count
            try Self.rebuild(
                base: base, records: records, cut: cut, honoringBarriers: honoringBarriers, random: &random
            ).write(to: URL(fileURLWithPath: rebuilt))
            defer { for file in [rebuilt, rebuilt + "-lock"] { unlink(file) } }
            let checker = try StressProcess(["power-check", rebuilt])
            let line = checker.remainingLines().first ?? ""
            let (status, stderr) = checker.wait()
            let report = "cut \(trial) at record \(cut) of \(records.count), \(acknowledged) acknowledged"
            if status != 0 || line.isEmpty {
                outcomes.crashes.append("\(report): status \(status) \(stderr.prefix(300))")
            } else if line.hasPrefix("ok "), let last = Int(line.dropFirst(3)) {
                if last < acknowledged {
                    outcomes.lostAcknowledged.append("\(report): the file holds \(last)")
                    outcomes.mostLost = max(outcomes.mostLost, acknowledged - last)
                } else {
                    outcomes.clean += 1
                }
            } else if line.hasPrefix("error: ") && line.contains("corrupted") {
                outcomes.corrupted += 1
            } else {
                outcomes.partial.append("\(report): \(line)")
            }
        }
        print(
            "power cuts (\(durability)\(honoringBarriers ? "" : ", barriers ignored")): \(outcomes); the log: "
                + "\(kinds[.write] ?? 0) writes, \(kinds[.durableWrite] ?? 0) O_DSYNC writes, \(kinds[.sync] ?? 0) syncs"
        )
        return outcomes
    }

    @Test("durability .full: no acknowledged commit lost, no crash, no partial commit, no older version in silence")
    func fullDurability() throws {
        let outcomes = try run(durability: "full", seed: 41)
        #expect(outcomes.crashes == [])
        #expect(outcomes.partial == [])
        #expect(outcomes.lostAcknowledged == [])
        #expect(outcomes.corrupted == 0)
        // The control: the same cuts with no write durable lose acknowledged commits, so the check can fail.
        let control = try run(durability: "full", seed: 44, honoringBarriers: false, cuts: 30)
        #expect(control.lostAcknowledged.count + control.corrupted > 0)
        #expect(control.crashes == [])
    }

    @Test("group commit (.full): no acknowledged asyncWrite lost, no crash, nothing partial or damaged")
    func groupCommits() throws {
        let library = try Self.interposer.get()
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let first = try StressProcess(["group-writer", fixture.path, "1"])
        #expect(first.remainingLines().last == "done")
        #expect(first.wait().status == 0)
        let base = fixture.fileBytes()
        let log = fixture.directory.appendingPathComponent("writes.log")
        let writer = try StressProcess(
            ["group-writer", fixture.path, "10"],
            environment: [
                "LD_PRELOAD": library.path, "STRATA_POWERCUT_LOG": log.path,
                "STRATA_POWERCUT_FILE": try EnvironmentRegistry.canonicalPath(fixture.path),
            ])
        #expect(writer.remainingLines().last == "done")
        #expect(writer.wait().status == 0)
        let records = try Self.parse(try Data(contentsOf: log))
        let acks = records.map { record in
            record.kind == .ack
                ? String(decoding: record.bytes, as: UTF8.self).split(separator: "\n").compactMap {
                    $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil
                } : []
        }
        #expect(acks.joined().count == 80)
        let syncs = records.filter { $0.kind == .sync }.count
        #expect(syncs < 80, "80 asyncWrites made \(syncs) syncs: no group formed")
        let rebuilt = fixture.directory.appendingPathComponent("rebuilt.strata").path
        func cutPower(times: Int, seed: UInt64, honoringBarriers: Bool = true) throws -> Outcomes {
            var random = SplitMix64(state: seed)
            var outcomes = Outcomes()
            for trial in 0..<times {
                let cut = Int.random(in: 0...records.count, using: &random)
                let acknowledged = Set(acks[..<cut].joined())
                try Self.rebuild(
                    base: base, records: records, cut: cut, honoringBarriers: honoringBarriers, random: &random
                ).write(to: URL(fileURLWithPath: rebuilt))
                defer { for file in [rebuilt, rebuilt + "-lock"] { unlink(file) } }
                let checker = try StressProcess(["group-check", rebuilt])
                let line = checker.remainingLines().first ?? ""
                let (status, stderr) = checker.wait()
                let report = "cut \(trial) at record \(cut) of \(records.count), \(acknowledged.count) acknowledged"
                if status != 0 || line.isEmpty {
                    outcomes.crashes.append("\(report): status \(status) \(stderr.prefix(300))")
                } else if line.hasPrefix("ok") {
                    let stored = Set(line.split(separator: " ").dropFirst().compactMap { Int($0) })
                    let lost = acknowledged.subtracting(stored)
                    if lost.isEmpty {
                        outcomes.clean += 1
                    } else {
                        outcomes.lostAcknowledged.append("\(report): \(lost.count) lost")
                        outcomes.mostLost = max(outcomes.mostLost, lost.count)
                    }
                } else if line.hasPrefix("error: ") && line.contains("corrupted") {
                    outcomes.corrupted += 1
                } else {
                    outcomes.partial.append("\(report): \(line)")
                }
            }
            return outcomes
        }
        let outcomes = try cutPower(times: Self.cuts, seed: 45)
        print("power cuts (group commit): \(outcomes); 80 asyncWrites, \(syncs) syncs")
        #expect(outcomes.crashes == [])
        #expect(outcomes.partial == [])
        #expect(outcomes.lostAcknowledged == [])
        #expect(outcomes.corrupted == 0)
        // The control: with no write durable, the same check finds acknowledged writes lost.
        let control = try cutPower(times: 30, seed: 46, honoringBarriers: false)
        #expect(control.lostAcknowledged.count + control.corrupted > 0)
        #expect(control.crashes == [])
    }

    @Test(".noMetaSync: at most the last commit lost, never a crash or a partial commit")
    func noMetaSync() throws {
        let outcomes = try run(durability: "nometasync", seed: 42)
        #expect(outcomes.crashes == [])
        #expect(outcomes.partial == [])
        #expect(outcomes.mostLost <= 1)
    }

    @Test(
        ".noSync: commits since the last flush may be lost or the file found damaged, never a crash or a partial commit"
    )
    func noSync() throws {
        let outcomes = try run(durability: "nosync", seed: 43)
        #expect(outcomes.crashes == [])
        #expect(outcomes.partial == [])
    }
}
