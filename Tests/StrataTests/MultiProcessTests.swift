import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Processes sharing a file", .serialized, .fixtureChecks, .offThePool)
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

    @Test(
        "a process that opens a file while it is compacted in place waits for the copy, and loses nothing",
        arguments: ["on launch", "compactFile"])
    func anOpenDuringAnInPlaceCompactionWaits(_ compaction: String) throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let path = fixture.path
        do {  // a file of mostly free pages, closed in this process
            let store = try fixture.open()
            try store.write {
                for id in 0..<2_000 {
                    let entry = ProcessEntry()
                    entry.id = id
                    try store.add(entry)
                }
            }
            try store.write { try store.delete(store.objects(ProcessEntry.self).where { $0.id >= 100 }) }
        }
        #expect(!EnvironmentRegistry.shared.isOpen(path))
        // Between the copy and its rename, another process opens the file and adds 100 objects.
        // Made on the hook's thread, used on this one once the hook returned (the lock orders them).
        let other = Locked<Unchecked<StressProcess>?>(nil)
        EnvironmentRegistry.beforeReplacingHook.withLock { hook in
            hook = { compacted in
                guard compacted == path, other.withLock({ $0 == nil }),
                    let process = try? StressProcess(["add-range", path, "5000", "100"])
                else { return }
                other.withLock { $0 = Unchecked(process) }
                let deadline = Date().addingTimeInterval(3)  // done by then, unless its open waits
                while process.isRunning, Date() < deadline { usleep(10_000) }
            }
        }
        defer { EnvironmentRegistry.beforeReplacingHook.withLock { $0 = nil } }
        var compacting = reliabilityConfiguration(path: path)
        compacting.shouldCompactOnLaunch = { _, _ in true }
        let store: Store
        if compaction == "on launch" {
            store = try Store(configuration: compacting)
        } else {
            _ = try DynamicStore.compactFile(atPath: path, encryptionKey: reliabilityEncryptionKey)
            store = try Store(configuration: reliabilityConfiguration(path: path))
        }
        let process = try #require(other.withLock { $0 }?.value, "the file was compacted")
        #expect(process.remainingLines() == ["done"])
        #expect(process.wait().status == 0)
        try store.refresh()
        #expect(store.objects(ProcessEntry.self).count == 200, "100 kept, 100 added by the other process")
        try store.verify()
    }

    @Test("every snapshot shows the commit its version names, while 4 processes commit and 4 threads refresh")
    func snapshotsMatchTheirVersions() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let configuration = fixture.configuration
        let base = try fixture.open().core.version()  // every later commit adds exactly 100 objects
        let writers = try (0..<4).map { try StressProcess(["add-range", fixture.path, "\($0 * 10_000)", "10000"]) }
        let mismatches = Locked<[String]>([])
        let running = Locked(true)
        let readers = (0..<4).map { _ in
            let thread = Thread {
                guard let store = try? Store(configuration: configuration) else { return }
                while running.withLock({ $0 }) {
                    guard (try? store.refresh()) != nil, let version = try? store.core.version() else { continue }
                    let count = store.objects(ProcessEntry.self).count
                    if count != (version - base) * 100 {
                        mismatches.withLock { $0.append("version \(version) shows \(count) objects") }
                    }
                }
            }
            thread.start()
            return thread
        }
        for writer in writers {
            #expect(writer.wait().status == 0)
        }
        running.withLock { $0 = false }
        while readers.contains(where: { !$0.isFinished }) { usleep(1_000) }
        #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0.prefix(5) })")
        #expect(try fixture.open().objects(ProcessEntry.self).count == 40_000)
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

    /// Freezes a new version of `store` until opening a snapshot fails (at most `limit` times).
    private static func freezeUntilFull(_ store: Store, limit: Int) -> (frozen: [Store], failure: StoreError?) {
        var frozen: [Store] = []
        var failure: StoreError?
        while failure == nil, frozen.count < limit {
            do {
                frozen.append(try store.freeze())
                let changed = ProcessEntry()
                changed.writer = frozen.count
                try store.write { try store.add(changed, update: .modified) }  // each freeze pins a new version
            } catch {
                failure = error as? StoreError ?? .invalidArgument("\(error)")
            }
        }
        return (frozen, failure)
    }

    @Test("every reader slot taken (frozen versions hold one each): a typed error naming the holders; freed ones work")
    func readerSlotsExhausted() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self]) { $0.maximumReaders = 40 }
        let store = try fixture.open()
        try store.write { try store.add(ProcessEntry()) }
        var (frozen, failure) = Self.freezeUntilFull(store, limit: 1_000)
        #expect(failure == .storage(.readersFull))
        #expect(frozen.count > 30, "40 slots, less this process's own: \(frozen.count)")
        #expect(frozen.count < 40, "40 slots, less this process's own: \(frozen.count)")
        let description = failure.map { "\($0)" } ?? ""
        #expect(
            description.contains("40 of the file's 40 reader slots are in use: 40 by this process"), "\(description)")
        #expect(description.contains("1 live Stores of threads, queues and actors"), "\(description)")
        #expect(description.contains("\(frozen.count) frozen versions"), "\(description)")
        #expect(description.contains("none by other processes"), "\(description)")
        frozen.removeAll()
        #expect(try store.freeze().objects(ProcessEntry.self).count == 1)
    }

    @Test("by default the reader table has room for 1,024: 600 frozen versions and a thread's Store")
    func readerSlotsByDefault() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self]) { $0.durability = .noSync }
        let store = try fixture.open()
        try store.write { try store.add(ProcessEntry()) }
        let (frozen, failure) = Self.freezeUntilFull(store, limit: 600)
        #expect(failure == nil)
        #expect(frozen.count == 600)
    }

    @Test("maximumReaders outside 1...1,048,576 is refused")
    func maximumReadersChecked() {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self]) { $0.maximumReaders = 0 }
        #expect {
            try fixture.open()
        } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("maximumReaders")
        }
    }
}

/// A map another process grew past this process's (LMDB's `MDB_MAP_RESIZED`) is adopted, never
/// reported as it is (`MapAdoption`).
@Suite(.fixtureChecks, .offThePool) struct MapGrowthTests {
    /// A Store whose map is 1 MiB, and a file another process (64 GiB map) fills past it after
    /// `beforeGrowing` ran.
    static func smallStoreOfAGrownFile(beforeGrowing: (Store) throws -> Void = { _ in }) throws -> (Fixture, Store) {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        var small = reliabilityConfiguration(path: fixture.path)
        small.maximumSize = 1 << 20
        let store = try Store(configuration: small)
        #expect(store.objects(ProcessEntry.self).isEmpty)
        try beforeGrowing(store)
        let writer = try StressProcess(["add-range", fixture.path, "1", "30000"])  // about 2 MiB of rows
        #expect(writer.remainingLines() == ["done"])
        #expect(writer.wait().status == 0)
        return (fixture, store)
    }

    @Test func aStoreAdoptsTheMapAnotherProcessGrew() throws {
        let (fixture, store) = try Self.smallStoreOfAGrownFile()
        let size = (try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? NSNumber)?.intValue
        #expect(size ?? 0 > 1 << 20)
        #expect(try store.refresh())
        #expect(store.objects(ProcessEntry.self).count == 30_000)
        #expect(store.object(ofType: ProcessEntry.self, forPrimaryKey: 30_000)?.writer == 1)
        try store.write { try store.add(ProcessEntry()) }  // and writes on, in the larger map
        try store.verify()
    }

    @Test func anotherOpenSnapshotDefersTheAdoptionWithATypedError() throws {
        // A second Store of the file, on a queue, holds its snapshot: the map cannot be replaced under
        // it. This Store's refresh fails with a typed error, and works once that snapshot is released.
        let queue = DispatchQueue(label: "holder")
        var holder: Store?
        let (_, store) = try Self.smallStoreOfAGrownFile { store in
            holder = try queue.sync { () throws -> Store in
                let other = try Store(configuration: store.configuration, queue: queue)
                _ = other.objects(ProcessEntry.self).count
                return other
            }
        }
        #expect(throws: StoreError.mapFull) { try store.refresh() }
        #expect(store.objects(ProcessEntry.self).isEmpty)  // its snapshot is the one it had
        queue.sync { holder?.invalidate() }
        #expect(try store.refresh())
        #expect(store.objects(ProcessEntry.self).count == 30_000)
        queue.sync { holder = nil }
    }
}
