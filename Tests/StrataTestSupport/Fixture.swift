import Foundation
@_spi(Testing) import Strata
@_exported import StrataTestModels
import Testing

/// A temporary directory per test, with a store configuration in it (removed when the fixture goes).
///
/// At the test's teardown (`@Suite(.fixtureChecks)`: after the test function returns) it checks what
/// the test must leave behind: the file closed in this process (waiting a while for Stores that
/// queues release), no reader slot of this process in the lock file, and no temporary file of
/// Strata's (a half-made file, a compaction) in the directory. A problem is an issue of the test.
/// Outside such a test (XCTest, exit tests), the directory goes with the fixture, unchecked.
public final class Fixture: @unchecked Sendable {  // immutable after init
    public let directory: URL
    public let configuration: Store.Configuration

    public init(
        _ types: [Object.Type] = [Person.self, Note.self], configure: (inout Store.Configuration) -> Void = { _ in }
    ) {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(getpid())-\(UUID().uuidString)")
        // Creating a directory in the system's temporary directory cannot reasonably fail; if it does,
        // the test fails on opening the store with `.fileAccess`.
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("test.strata"), objectTypes: types)
        configuration.encryptionKey = reliabilityEncryptionKey  // nil unless STRATA_RELIABILITY_KEY is set
        configure(&configuration)
        self.configuration = configuration
        registry = FixtureRegistry.current
        registry?.add(path: configuration.fileURL?.path ?? "", directory: directory)
    }

    /// The teardown that checks this fixture and removes its directory, if the test has one.
    private let registry: FixtureRegistry?

    deinit {
        // With a teardown, the directory stays for it to check (it removes it).
        if registry == nil { try? FileManager.default.removeItem(at: directory) }
    }

    /// How long teardown waits for the file to close (Stores of queues and actors close when their
    /// last job has run). Under ThreadSanitizer (`make test-tsan` sets `TSAN_OPTIONS`) every job runs
    /// many times slower, and a test's last actor hop once came more than 10 s after its end (CI,
    /// GroupCommitTests, 2026-11-25); the wait ends as soon as the file closes.
    public static let closeTimeout: Duration =
        ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil ? .seconds(20) : .seconds(90)

    /// What the test left behind that it should not have.
    public func teardownProblems(waitingUpTo closeTimeout: Duration = Fixture.closeTimeout) -> [String] {
        guard configuration.fileURL != nil else { return [] }
        return Self.teardownProblems(path: path, directory: directory, waitingUpTo: closeTimeout)
    }

    /// What a test left behind for the file at `path` in `directory`.
    static func teardownProblems(
        path: String, directory: URL, waitingUpTo closeTimeout: Duration = Fixture.closeTimeout
    ) -> [String] {
        guard !path.isEmpty else { return [] }
        var problems: [String] = []
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: closeTimeout)
        while (try? Store._isOpenInThisProcess(path: path)) == true {
            guard clock.now < deadline else {
                problems.append("\(path) is still open in this process \(closeTimeout) after the test")
                break
            }
            Thread.sleep(forTimeInterval: 0.01)  // polls a condition: the file closing
        }
        if problems.isEmpty, let slots = LockFile.readerProcesses(atPath: path + "-lock"), slots.contains(getpid()) {
            problems.append("the lock file still lists a reader slot of this process")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".compacting") || name.contains(".creating-") {
            problems.append("a temporary file of Strata's remains: \(name)")
        }
        return problems
    }

    public var path: String { configuration.fileURL?.path ?? "" }

    /// The calling thread's Store of the fixture's file (the same one on each call from one thread).
    public func open() throws(StoreError) -> Store {
        try Store(configuration: configuration)
    }

    /// The file's bytes.
    public func fileBytes() -> Data {
        (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
    }
}

/// Runs `body` on a new thread and waits for it.
public func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () -> R) -> R {
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.start()
    done.wait()
    return box.value!
}

/// Runs `body` on a new thread; the calling task waits suspended, holding none of the cooperative
/// pool's threads (2 here). Blocking one of them until the thread ends stalled every async test of
/// the run for 50 s when `body` awaited work of the pool while a long synchronous test held the other
/// (and a sync test waiting 60 s for its actor failed, 2026-11-30).
public func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Carries a result from another thread; the semaphore orders the write before the read.
public final class ResultBox<R>: @unchecked Sendable {
    public var value: R?
    public init() {}
}

/// Whether an error is the StoreError case expected (ignoring associated values).
public func isCase(_ error: any Error, _ expected: StoreError) -> Bool {
    guard let error = error as? StoreError else { return false }
    switch (error, expected) {
    case (.alreadyExists, .alreadyExists), (.migrationRequired, .migrationRequired),
        (.schemaMismatch, .schemaMismatch), (.corrupted, .corrupted), (.fileAccess, .fileAccess),
        (.invalidArgument, .invalidArgument), (.storage, .storage):
        return true
    default:
        return error == expected
    }
}

/// Moves a value across threads in a test that means to misuse (or prove unconfined) it.
public struct Unchecked<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}

/// A small seeded generator (SplitMix64), so that randomised tests replay exactly.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads LMDB's lock file (the reader table of `mdb.c`, 0.9.x on 64-bit Linux): a 64-byte block with
/// the magic number and the number of reader slots used, a 64-byte block for the writer's mutex,
/// then one 64-byte slot per reader (transaction id, then process id at byte 8).
public enum LockFile {
    private static let magic: UInt32 = 0xBEEF_C0DE
    private static let readersOffset = 128
    private static let slotSize = 64
    private static let slotCountOffset = 56

    /// The process ids of the used reader slots; nil when the file is missing or not laid out as
    /// expected (nothing is claimed then).
    public static func readerProcesses(atPath path: String) -> Set<Int32>? {
        guard let data = FileManager.default.contents(atPath: path), data.count >= readersOffset else { return nil }
        return data.withUnsafeBytes { bytes -> Set<Int32>? in
            guard bytes.loadUnaligned(as: UInt32.self) == magic else { return nil }
            let count = Int(bytes.loadUnaligned(fromByteOffset: slotCountOffset, as: UInt32.self))
            guard count >= 0, readersOffset + count * slotSize <= bytes.count else { return nil }
            var pids = Set<Int32>()
            for slot in 0..<count {
                let pid = bytes.loadUnaligned(fromByteOffset: readersOffset + slot * slotSize + 8, as: Int32.self)
                if pid != 0 { pids.insert(pid) }
            }
            return pids
        }
    }
}
