import Foundation
import Testing

/// Runs each test of a suite on a thread of its own (a task executor preference), not on the
/// cooperative pool: a long synchronous test (damage trials, kill loops, CLI processes) or one that
/// blocks in its setup (a PostgreSQL cluster's `initdb`, `psql`) would otherwise hold one of the
/// pool's threads (2 on this machine) for its whole run, and two of them starve every async test of
/// the run, whose waits then time out (two sync tests making their clusters held both for 70–90 s
/// at the start of every run until their suites were moved off the pool, 2026-11-27).
///
/// At most `OffThePool.slots` such tests run at once; the others wait, suspended, for a slot. With
/// all of them started together (90 tests, a dozen PostgreSQL clusters, their helper processes), no
/// test of the pool ended in the first 66 s of a run; with the slots, the pool's last test ends at 18 s.
///
/// ```swift
/// @Suite(.fixtureChecks, .offThePool) struct FileDamageTests { … }
/// ```
public struct OffThePool: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // a suite: its tests are scoped one by one
        await Self.slots.enter()
        defer { Self.slots.leave() }
        let executor = DedicatedThreadExecutor(name: "test \(test.name)")
        defer { executor.stop() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }

    /// How many tests run off the pool at once: the cores, and as many again for tests that mostly
    /// wait (on PostgreSQL, on a helper process).
    static let slots = TestSlots(count: 2 * max(ProcessInfo.processInfo.activeProcessorCount, 1))
}

/// A counting semaphore that suspends, not blocks: `enter()` waits for a free slot, first come first
/// served; `leave()` hands the slot to the next waiting task. Its state is under an `NSLock`, not
/// `Synchronization.Mutex`: on Linux the Mutex locks with futex calls ThreadSanitizer cannot see, and
/// `make test-tsan` runs suites of tests that take these slots.
final class TestSlots: @unchecked Sendable {  // state under `lock`
    private let lock = NSLock()
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = lock.withLock {
                guard free > 0 else {
                    waiting.append(continuation)
                    return false
                }
                free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func leave() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard !waiting.isEmpty else {
                free += 1
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }
}

extension Trait where Self == OffThePool {
    /// Runs each test on a thread of its own (`OffThePool`).
    public static var offThePool: Self { Self() }
}

/// A task executor with one thread: jobs run there, one at a time, in the order they came. Once
/// `stop()` was called the thread ends when no job is left; a job that comes later (a task the test
/// left running inherits the preference) starts a thread again.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {  // state under `condition`
    private let condition = NSCondition()
    private let name: String
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var hasThread = false

    init(name: String) {
        self.name = name
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let start = condition.withLock {
            jobs.append(job)
            condition.signal()
            defer { hasThread = true }
            return !hasThread
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        while true {
            let next: UnownedJob? = condition.withLock {
                while jobs.isEmpty && !stopped { condition.wait() }
                if jobs.isEmpty { hasThread = false }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
