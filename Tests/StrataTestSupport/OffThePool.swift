import Foundation
import Testing

/// Runs each test of a suite on a thread of its own (a task executor preference), not on the
/// cooperative pool: a long synchronous test (damage trials, kill loops, CLI processes) would
/// otherwise hold one of the pool's threads (2 on this machine) for its whole run, and two of them
/// starve every async test of the run, whose waits then time out.
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
        let executor = DedicatedThreadExecutor(name: "test \(test.name)")
        defer { executor.stop() }
        try await withTaskExecutorPreference(executor) { try await function() }
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
