import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Damaged files: each trial opens a damaged copy in a helper process (`strata-stress check`), so a
/// crash is counted as a failure instead of ending the test run. Every trial must end in a clean
/// exit: the file opens and verifies, or a typed error is reported.
@Suite("Damaged files", .serialized, .fixtureChecks)
struct FileDamageTests {
    static var trials: Int { ProcessInfo.processInfo.environment["STRATA_DAMAGE_TRIALS"].flatMap(Int.init) ?? 150 }

    /// A store of 40 crash-test batches, written and closed.
    static func goodFile(_ fixture: Fixture) throws -> Data {
        do {
            let store = try Store(configuration: reliabilityConfiguration(path: fixture.path))
            for batch in 1...40 {
                try store.write {
                    for index in 0..<CrashEntry.perBatch { try store.add(CrashEntry(batch: batch, index: index)) }
                }
            }
        }
        #expect(fixture.isClosed)
        let bytes = fixture.fileBytes()
        var outcomes = Outcomes()
        try check(bytes, in: fixture.directory, trial: -1, outcomes: &outcomes)
        #expect(outcomes.intact == 1, "the undamaged file checks out")
        return bytes
    }

    struct Outcomes: CustomStringConvertible {
        var intact = 0
        var typedErrors = 0
        var crashes: [String] = []
        var description: String {
            "\(intact) opened and verified, \(typedErrors) typed errors, \(crashes.count) crashes"
        }
    }

    /// Runs `check` on `bytes` written to a fresh file.
    static func check(_ bytes: Data, in directory: URL, trial: Int, outcomes: inout Outcomes) throws {
        let path = directory.appendingPathComponent("damaged-\(trial).strata").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { for file in [path, path + "-lock"] { unlink(file) } }
        let checker = try StressProcess(["check", path])
        let lines = checker.remainingLines()
        let (status, stderr) = checker.wait()
        if status != 0 || lines.isEmpty {
            if ProcessInfo.processInfo.environment["STRATA_KEEP_CRASHES"] != nil {
                try? bytes.write(to: URL(fileURLWithPath: "/tmp/strata-crash-\(trial).strata"))
            }
            outcomes.crashes.append("trial \(trial): status \(status) \(stderr.prefix(300))")
        } else if lines[0].hasPrefix("ok") {
            outcomes.intact += 1
        } else {
            outcomes.typedErrors += 1
        }
    }

    @Test("random bytes flipped in the meta pages: typed errors or an intact store, never a crash")
    func flippedMetaPages() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let good = try Self.goodFile(fixture)
        let pageSize = 4096
        var random = SplitMix64(state: 21)
        var outcomes = Outcomes()
        for trial in 0..<Self.trials {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                // Mostly the 160 bytes that hold the meta fields, of either page.
                let page = Int.random(in: 0...1, using: &random)
                let offset =
                    page * pageSize + Int.random(in: 0..<(Bool.random(using: &random) ? 160 : pageSize), using: &random)
                bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
            }
            try Self.check(bytes, in: fixture.directory, trial: trial, outcomes: &outcomes)
        }
        print("meta page damage: \(outcomes)")
        #expect(outcomes.crashes == [])
        #expect(outcomes.typedErrors > 0)
    }

    @Test("random bytes flipped in the data pages: typed errors or an intact store, never a crash")
    func flippedDataPages() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let good = try Self.goodFile(fixture)
        var random = SplitMix64(state: 22)
        var outcomes = Outcomes()
        for trial in 0..<Self.trials {
            var bytes = good
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 8_192..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
            try Self.check(bytes, in: fixture.directory, trial: trial, outcomes: &outcomes)
        }
        print("data page damage: \(outcomes)")
        #expect(outcomes.crashes == [])
    }

    @Test("a store truncated to zero bytes is .corrupted, and stays as it is")
    func zeroBytes() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        _ = try Self.goodFile(fixture)
        try Data().write(to: URL(fileURLWithPath: fixture.path))
        #expect {
            try Store(configuration: reliabilityConfiguration(path: fixture.path))
        } throws: { error in
            guard case .corrupted(let reason) = error as? StoreError else { return false }
            return reason.contains("empty")
        }
        #expect(fixture.fileBytes().isEmpty)
        #expect(fixture.isClosed)
    }

    @Test("files truncated at random lengths: typed errors, never SIGBUS")
    func truncatedAtRandom() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let good = try Self.goodFile(fixture)
        var random = SplitMix64(state: 23)
        var outcomes = Outcomes()
        for trial in 0..<min(Self.trials, 60) {
            try Self.check(
                good.prefix(Int.random(in: 1..<good.count, using: &random)), in: fixture.directory, trial: trial,
                outcomes: &outcomes)
        }
        print("truncation: \(outcomes)")
        #expect(outcomes.crashes == [])
        #expect(outcomes.intact == 0)
    }

    @Test(
        "a new store appears whole, no temporary file left; readable and writable by its owner only, unless configured")
    func creation() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        _ = try Store(configuration: reliabilityConfiguration(path: fixture.path))
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).sorted()
        #expect(files == ["test.strata", "test.strata-lock"])
        for file in files {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: fixture.directory.appendingPathComponent(file).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file)")
        }
        let shared = Fixture([Note.self]) { $0.filePermissions = 0o640 }
        _ = try shared.open()
        for file in [shared.path, shared.path + "-lock"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640, "\(file)")
        }
        let invalid = Fixture([Note.self]) { $0.filePermissions = 0o4755 }
        #expect { try invalid.open() } throws: { isCase($0, .invalidArgument("")) }
    }
}
