import Foundation
import StrataTestSupport
import Testing

@_spi(StrataSync) @testable import Strata

/// Crash safety, as SQLite tests it: a writer process is killed (SIGKILL) at random moments; after
/// each kill the file must hold every acknowledged commit in full, nothing partial, and verify.
/// CI runs 100 kills per durability; `make soak` sets STRATA_CRASH_KILLS (2,000).
@Suite("Crash safety", .serialized, .fixtureChecks, .offThePool)
struct CrashTests {
    static var kills: Int { ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"].flatMap(Int.init) ?? 100 }

    @Test(
        "SIGKILL at random moments loses no acknowledged commit and leaves nothing partial",
        arguments: ["full", "nosync"])
    func killedWriter(durability: String) throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        var random = SplitMix64(state: durability == "full" ? 11 : 12)
        var acknowledged = 0
        var killedMidway = 0
        for trial in 0..<Self.kills {
            let writer = try StressProcess(["crash-writer", fixture.path, durability])
            if Bool.random(using: &random) {
                // After a random number of commits: the kill lands just after an ack.
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    guard let line = writer.readLine() else { break }
                    acknowledged = max(acknowledged, ackNumber(line))
                }
            } else {
                // After a random time: anywhere, opening the file included.
                usleep(UInt32.random(in: 0...20_000, using: &random))
            }
            writer.kill()
            for line in writer.remainingLines() { acknowledged = max(acknowledged, ackNumber(line)) }
            let (status, stderr) = writer.wait()
            #expect(status == SIGKILL, "trial \(trial): \(stderr)")  // killed, not failed on its own
            if status != SIGKILL { break }
            killedMidway += 1
            // Every trial checks the counter, the count and the newest batches; every 25th (and the
            // last) reads every entry and verifies the whole file, which grows with each trial.
            try check(
                fixture, acknowledged: acknowledged, trial: trial,
                everything: trial % 25 == 24 || trial == Self.kills - 1)
        }
        #expect(killedMidway == Self.kills)
        #expect(acknowledged > Self.kills / 2, "the writer made progress")  // not killed at start every time
        print("crash test (\(durability)): \(killedMidway) kills survived, \(acknowledged) commits acknowledged")
    }

    @Test("SIGKILL while 8 actors' asyncWrites commit in groups loses no acknowledged write")
    func killedGroupCommits() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        var random = SplitMix64(state: 13)
        var acknowledged: Set<Int> = []
        for trial in 0..<Self.kills {
            let writer = try StressProcess(["group-writer", fixture.path])
            if Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 0...40, using: &random) {
                    guard let line = writer.readLine() else { break }
                    if ackNumber(line) > 0 { acknowledged.insert(ackNumber(line)) }
                }
            } else {
                usleep(UInt32.random(in: 0...50_000, using: &random))
            }
            writer.kill()
            for line in writer.remainingLines() where ackNumber(line) > 0 { acknowledged.insert(ackNumber(line)) }
            let (status, stderr) = writer.wait()
            #expect(status == SIGKILL, "trial \(trial): \(stderr)")
            if status != SIGKILL { break }
            let store = try fixture.open()
            let stored = Set(store.objects(ProcessEntry.self).map(\.id))
            let lost = acknowledged.subtracting(stored)
            #expect(
                lost.isEmpty, "trial \(trial): \(lost.count) acknowledged writes lost, e.g. \(lost.sorted().prefix(5))")
            if !lost.isEmpty { break }
            if trial % 25 == 24 || trial == Self.kills - 1 { try store.verify() }
        }
        #expect(acknowledged.count > Self.kills, "the writers made progress")
        print("crash test (group commit): \(Self.kills) kills survived, \(acknowledged.count) writes acknowledged")
    }

    @Test("SIGKILL with change capture on: the outbox holds exactly the committed changes")
    func killedWriterCapturingChanges() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        try fixture.open().captureChanges(of: [CrashEntry.self, CrashCounter.self])
        var random = SplitMix64(state: 14)
        var committed = 0
        var acknowledged = 0
        for trial in 0..<(Self.kills / 4) {
            let writer = try StressProcess(["crash-writer", fixture.path, "full"])
            if Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 1...6, using: &random) {  // after some acks: a condition
                    guard let line = writer.readLine() else { break }
                    acknowledged = max(acknowledged, ackNumber(line))
                }
            } else {
                usleep(UInt32.random(in: 0...30_000, using: &random))
            }
            writer.kill()
            for line in writer.remainingLines() { acknowledged = max(acknowledged, ackNumber(line)) }
            #expect(writer.wait().status == SIGKILL, "trial \(trial)")
            let store = try fixture.open()
            try store.refresh()
            let changes = try store.capturedChanges()
            let entryBinding = try store.core.binding(for: CrashEntry.self)
            let stored = Set(
                try store.objects(CrashEntry.self).map { entry in
                    try #require(try store.core.rowKey(forPrimaryKey: entry.id, binding: entryBinding)).storedBytes
                })
            let inserted = changes.filter { $0.typeName == "CrashEntry" && $0.kind == .insert }.map(\.key)
            #expect(inserted.count == Set(inserted).count, "trial \(trial): an insert recorded twice")
            #expect(Set(inserted) == stored, "trial \(trial): \(inserted.count) recorded, \(stored.count) stored")
            let batches = store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0
            #expect(changes.filter { $0.typeName == "CrashCounter" }.count == batches, "trial \(trial)")
            committed = batches
        }
        #expect(committed >= acknowledged, "the writer made progress")
        #expect(acknowledged > 0, "the writer made progress")
        print("crash test (change capture): \(Self.kills / 4) kills, \(committed) transactions recorded exactly")
    }

    @Test("SIGKILL while a full-text and a vector index are written: each always equals its rows")
    func killedFullTextWriter() throws {
        let fixture = Fixture([CrashNote.self, CrashCounter.self]) {
            $0 = searchReliabilityConfiguration(path: $0.fileURL!.path)
        }
        var random = SplitMix64(state: 55)
        var acknowledged = 0
        for trial in 0..<Self.kills / 2 {
            let writer = try StressProcess(["text-writer", fixture.path])
            if Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    guard let line = writer.readLine() else { break }
                    acknowledged = max(acknowledged, ackNumber(line))
                }
            } else {
                usleep(UInt32.random(in: 0...20_000, using: &random))
            }
            writer.kill()
            for line in writer.remainingLines() { acknowledged = max(acknowledged, ackNumber(line)) }
            let (status, stderr) = writer.wait()
            #expect(status == SIGKILL, "trial \(trial): \(stderr)")
            if status != SIGKILL { break }
            let store = try Store(configuration: fixture.configuration)
            let last = store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0
            #expect(last >= acknowledged, "trial \(trial)")
            #expect(store.objects(CrashNote.self).count == last * 2, "trial \(trial): a partial transaction is visible")
            try store.verify()  // the index's postings, statistics and numbering equal what the rows imply
            // The index's answer equals a scan's (NOT NOT: no index serves it).
            for word in CrashNote.words.prefix(4) {
                let viaIndex = try store.objects(CrashNote.self).where("body TEXT $0", word).map(\.name)
                let viaScan = try store.objects(CrashNote.self).where("NOT (NOT (body TEXT $0))", word).map(\.name)
                #expect(viaIndex == viaScan, "trial \(trial): \(word)")
            }
            // The vector index's nearest equal a plain comparison of every row's vector.
            let notes = Array(store.objects(CrashNote.self))
            for note in notes.prefix(3) {
                let found = try store.objects(CrashNote.self).nearest(to: note.embedding, k: 5, by: \.embedding).map(
                    \.name)
                var measured: [(name: String, distance: Float)] = []
                for other in notes {
                    var sum: Float = 0
                    for (x, y) in zip(other.embedding, note.embedding) { sum += (x - y) * (x - y) }
                    measured.append((other.name, sum))
                }
                measured.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
                let reference = measured.prefix(5).map(\.name)
                #expect(Set(found) == Set(reference), "trial \(trial)")
            }
        }
        #expect(acknowledged > Self.kills / 4, "the writer made progress")
        print("crash test (full-text and vector): \(Self.kills / 2) kills, \(acknowledged) transactions acknowledged")
    }

    private func ackNumber(_ line: String) -> Int {
        line.hasPrefix("ack ") ? Int(line.dropFirst(4)) ?? 0 : 0
    }

    /// Every batch up to the counter is whole, none beyond it exists, every ack is covered; with
    /// `everything`, every entry's payload is checked and the file verifies.
    private func check(_ fixture: Fixture, acknowledged: Int, trial: Int, everything: Bool) throws {
        let store = try fixture.open()
        try store.refresh()
        let last = store.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.lastBatch ?? 0
        #expect(last >= acknowledged, "trial \(trial): acknowledged \(acknowledged), stored \(last)")
        let entries = store.objects(CrashEntry.self)
        #expect(entries.count == last * CrashEntry.perBatch, "trial \(trial): a partial transaction is visible")
        let checked = everything ? Array(entries) : Array(entries.where { $0.batch >= last - 2 })
        for entry in checked {
            #expect(entry.batch >= 1, "trial \(trial): entry \(entry.id) of batch \(entry.batch)")
            #expect(entry.batch <= last, "trial \(trial): entry \(entry.id) of batch \(entry.batch)")
            #expect(entry.payload == CrashEntry.payload(for: entry.id), "trial \(trial): entry \(entry.id) is damaged")
        }
        if everything { try store.verify() }
    }
}
