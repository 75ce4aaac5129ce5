import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Damaged files, opened and read as an app does: each trial opens a damaged copy in a helper process
/// (`strata-stress check`) that reads every object and every property without calling `verify()`,
/// so a crash is counted instead of ending the test run. Every trial must end in a typed error or in
/// a clean read of exactly the values written: never a crash, a trap, or another value.
@Suite("Damaged files", .serialized, .fixtureChecks, .offThePool)
struct FileDamageTests {
    static var trials: Int { ProcessInfo.processInfo.environment["STRATA_DAMAGE_TRIALS"].flatMap(Int.init) ?? 100 }

    /// The good file and what reading it gives.
    struct GoodFile {
        let bytes: Data
        let readout: String
    }

    /// A closed store of 3,000 crash-test entries (600 transactions, rows of 100 to 3,000 bytes,
    /// some on overflow pages, an index), and the readout of the undamaged file.
    static func goodFile(_ fixture: Fixture) throws -> GoodFile {
        do {
            let store = try Store(configuration: reliabilityConfiguration(path: fixture.path))
            for batch in 1...600 {
                try store.write {
                    for index in 0..<CrashEntry.perBatch { try store.add(CrashEntry(batch: batch, index: index)) }
                    let counter = CrashCounter()
                    counter.lastBatch = batch
                    try store.add(counter, update: .modified)
                }
            }
        }
        #expect(fixture.isClosed)
        let bytes = fixture.fileBytes()
        var outcomes = Outcomes()
        let readout = try check(bytes, in: fixture.directory, trial: -1, expected: nil, outcomes: &outcomes)
        #expect(readout.hasPrefix("ok 3000 "), "the undamaged file reads whole: \(readout)")
        return GoodFile(bytes: bytes, readout: readout)
    }

    struct Outcomes: CustomStringConvertible {
        var intact = 0
        var typedErrors = 0
        var crashes: [String] = []
        /// Traps of damage met after opening (opening should have found it).
        var traps: [String] = []
        /// Reads that returned other values than were written.
        var altered: [String] = []
        var description: String {
            "\(intact) read intact, \(typedErrors) typed errors, \(crashes.count) crashes, \(traps.count) traps, "
                + "\(altered.count) altered reads"
        }
        var failures: [String] { crashes + traps + altered }
    }

    /// Runs `check` on `bytes` written to a fresh file; returns its first line.
    @discardableResult
    static func check(_ bytes: Data, in directory: URL, trial: Int, expected: GoodFile?, outcomes: inout Outcomes)
        throws -> String
    {
        let path = directory.appendingPathComponent("damaged-\(trial).strata").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { for file in [path, path + "-lock"] { unlink(file) } }
        let checker = try StressProcess(["check", path])
        let lines = checker.remainingLines()
        let (status, stderr) = checker.wait()
        let line = lines.first ?? ""
        if status != 0 || lines.isEmpty {
            if ProcessInfo.processInfo.environment["STRATA_KEEP_CRASHES"] != nil {
                try? bytes.write(to: URL(fileURLWithPath: "/tmp/strata-crash-\(trial).strata"))
            }
            let report = "trial \(trial): status \(status) \(stderr.prefix(300))"
            if stderr.contains("Strata: corrupted row") {
                outcomes.traps.append(report)
            } else {
                outcomes.crashes.append(report)
            }
        } else if line.hasPrefix("ok") {
            if let expected, line != expected.readout {
                outcomes.altered.append("trial \(trial): read \(line), written \(expected.readout)")
            } else {
                outcomes.intact += 1
            }
        } else {
            outcomes.typedErrors += 1
        }
        return line
    }

    /// Runs `trials` damaged copies of the good file made by `damage`, and checks the outcomes.
    @discardableResult
    static func run(
        _ name: String, seed: UInt64, trials: Int = trials,
        damage: (inout Data, inout SplitMix64) -> Void
    ) throws -> Outcomes {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let good = try goodFile(fixture)
        var random = SplitMix64(state: seed)
        var outcomes = Outcomes()
        for trial in 0..<trials {
            var bytes = good.bytes
            damage(&bytes, &random)
            try check(bytes, in: fixture.directory, trial: trial, expected: good, outcomes: &outcomes)
        }
        print("\(name): \(outcomes)")
        #expect(outcomes.failures == [])
        return outcomes
    }

    @Test("random bytes flipped in the meta pages: typed errors or intact reads, never a crash or an older version")
    func flippedMetaPages() throws {
        let outcomes = try Self.run("meta page damage", seed: 21, damage: DamageKind.metaPages.apply)
        #expect(outcomes.typedErrors > 0)
    }

    @Test("random bytes flipped in the data pages: typed errors or intact reads, never a crash or another value")
    func flippedDataPages() throws {
        try Self.run("data page damage", seed: 22, damage: DamageKind.dataPages.apply)
    }

    @Test("single bits flipped in the second half of the file: found, never read as another value")
    func flippedBitsInTheSecondHalf() throws {
        try Self.run("bit flips in the second half", seed: 24, damage: DamageKind.bitsInTheSecondHalf.apply)
    }

    @Test("a range of 1 to 4,096 bytes overwritten with random bytes: typed errors or intact reads")
    func overwrittenRanges() throws {
        try Self.run("overwritten ranges", seed: 25, damage: DamageKind.overwrittenRange.apply)
    }

    @Test("a whole page zeroed (the first one in a tenth of the trials): typed errors or intact reads")
    func zeroedPages() throws {
        try Self.run("zeroed pages", seed: 26, damage: DamageKind.zeroedPage.apply)
    }

    @Test("files truncated at random lengths: typed errors, never SIGBUS")
    func truncatedAtRandom() throws {
        let outcomes = try Self.run(
            "truncation", seed: 23, damage: DamageKind.truncation.apply)
        #expect(outcomes.intact == 0)
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

/// The kinds of damage the trials make to a good file.
enum DamageKind: CaseIterable {
    /// 1–4 random bytes of either meta page, mostly of its 160 bytes of fields.
    case metaPages
    /// 1–8 random bytes anywhere past the meta pages.
    case dataPages
    /// 1–3 single bits in the second half of the file.
    case bitsInTheSecondHalf
    /// 1–4,096 bytes overwritten with random bytes.
    case overwrittenRange
    /// A whole page zeroed (the first page in a tenth of the trials).
    case zeroedPage
    /// The file cut at a random length.
    case truncation

    static let pageSize = 4096

    func apply(_ bytes: inout Data, _ random: inout SplitMix64) {
        switch self {
        case .metaPages:
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let page = Int.random(in: 0...1, using: &random)
                let offset =
                    page * Self.pageSize
                    + Int.random(in: 0..<(Bool.random(using: &random) ? 160 : Self.pageSize), using: &random)
                bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
            }
        case .dataPages:
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 8_192..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
        case .bitsInTheSecondHalf:
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes[Int.random(in: (bytes.count / 2)..<bytes.count, using: &random)] ^=
                    1 << UInt8.random(in: 0...7, using: &random)
            }
        case .overwrittenRange:
            let length = Int.random(in: 1...4_096, using: &random)
            let start = Int.random(in: 0..<(bytes.count - length), using: &random)
            for offset in start..<(start + length) { bytes[offset] = UInt8.random(in: 0...255, using: &random) }
        case .zeroedPage:
            let pages = bytes.count / Self.pageSize
            let page = Int.random(in: 0..<10, using: &random) == 0 ? 0 : Int.random(in: 1..<pages, using: &random)
            bytes.replaceSubrange(
                (page * Self.pageSize)..<((page + 1) * Self.pageSize), with: Data(count: Self.pageSize))
        case .truncation:
            bytes = bytes.prefix(Int.random(in: 1..<bytes.count, using: &random))
        }
    }
}
