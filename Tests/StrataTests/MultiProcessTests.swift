import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Processes sharing a file", .serialized, .fixtureChecks)
struct MultiProcessTests {
    @Test("4 processes each add 10,000 uniquely keyed objects, 100 per write, at once: exactly 40,000")
    func fourWriters() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let store = try fixture.open()  // this process holds the file open too, reading meanwhile
        let writers = try (0..<4).map { try StressProcess(["add-range", fixture.path, "\($0 * 10_000)", "10000"]) }
        var seen = 0
        var seenVersion = 0
        while writers.contains(where: { $0.isRunning }) {
            try store.refresh()
            let version = try store.core.version()
            let count = store.objects(ProcessEntry.self).count
            // Versions and reader slots, for the rare failure seen under heavy load (count went down).
            let context = "version \(seenVersion) then \(version); readers \(store.core.environment.readers())"
            #expect(count >= seen, "counts never go down: \(seen) then \(count); \(context)")
            #expect(count % 100 == 0, "a write is seen whole or not at all: \(count)")
            seen = count
            seenVersion = version
        }
        for writer in writers {
            let (status, stderr) = writer.wait()
            #expect(status == 0, "\(stderr)")
            #expect(writer.remainingLines() == ["done"])
        }
        try store.refresh()
        let entries = store.objects(ProcessEntry.self)
        #expect(entries.count == 40_000)
        for writer in 0..<4 {
            #expect(entries.where { $0.writer == writer * 10_000 }.count == 10_000)
        }
        try store.verify()
    }

    @Test("asking whether another process has the file open keeps this process's reader slots")
    func probingTheLockFileKeepsOurReaders() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let store = try fixture.open()
        let entry = ProcessEntry()
        entry.id = 1
        try store.write { try store.add(entry) }
        #expect(store.objects(ProcessEntry.self).count == 1)  // a snapshot: a reader slot with this pid
        let environment = store.core.environment
        #expect(!environment.isOpenInAnotherProcess)
        // A process opening the file clears the slots of processes it takes for dead: it took this
        // one's, since probing closed a descriptor of the lock file and so dropped LMDB's lock.
        let other = try StressProcess(["hold-reader", fixture.path])
        #expect(other.readLine() == "ready")
        #expect(environment.isOpenInAnotherProcess)
        #expect(environment.readers().contains { $0.processID == getpid() })
        other.kill()
        other.wait()
    }

    @Test("a reader slot left by a killed process is cleared, so the slots do not run out")
    func staleReaderOfAKilledProcess() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let store = try fixture.open()
        let environment = store.core.environment
        let reader = try StressProcess(["hold-reader", fixture.path])
        #expect(reader.readLine() == "ready")
        #expect(environment.readers().contains { $0.processID == reader.pid })
        reader.kill()
        reader.wait()
        #expect(environment.readers().contains { $0.processID == reader.pid })  // LMDB does not know yet
        #expect(try environment.clearStaleReaders() == 1)
        #expect(!environment.readers().contains { $0.processID == reader.pid })
    }

    @Test("every reader slot taken (frozen snapshots hold one each): a typed error, not a hang; freed slots work again")
    func readerSlotsExhausted() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let store = try fixture.open()
        try store.write { try store.add(ProcessEntry()) }
        var frozen: [Store] = []
        var failure: StoreError?
        while failure == nil, frozen.count < 1_000 {
            do {
                frozen.append(try store.freeze())
                let changed = ProcessEntry()
                changed.writer = frozen.count
                try store.write { try store.add(changed, update: .modified) }  // each freeze pins a new version
            } catch {
                failure = error as? StoreError ?? .invalidArgument("\(error)")
            }
        }
        #expect(failure == .storage(.readersFull))
        #expect(frozen.count > 100, "LMDB's default of 126 slots, less this process's own")
        #expect(frozen.count < 126, "LMDB's default of 126 slots, less this process's own")
        frozen.removeAll()
        #expect(try store.freeze().objects(ProcessEntry.self).count == 1)
    }
}
