import Foundation
import PrivatePostgres
import Testing

/// A test's teardown: after the test function returns (every value it made is gone, Stores
/// included), checks each `Fixture` the test made, then removes its directory; and checks that each
/// private PostgreSQL cluster the test registered (`registerForTeardown`) was stopped (one left
/// running is stopped, and recorded as an issue).
///
/// ```swift
/// @Suite(.fixtureChecks) struct WriteTests { … }
/// ```
/// A problem is recorded as an issue of that test (see `Fixture.teardownProblems`).
public struct FixtureChecks: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // a suite: its tests are scoped one by one
        let fixtures = FixtureRegistry()
        defer { fixtures.checkAndRemove() }
        try await FixtureRegistry.$current.withValue(fixtures) { try await function() }
    }
}

extension Trait where Self == FixtureChecks {
    /// Checks the fixtures of each test at its teardown (`FixtureChecks`).
    public static var fixtureChecks: Self { Self() }
}

/// The fixtures a test made, known by what the teardown needs: the file and the directory.
final class FixtureRegistry: @unchecked Sendable {  // state under `lock`
    @TaskLocal static var current: FixtureRegistry?

    private let lock = NSLock()
    private var made: [(path: String, directory: URL)] = []
    private var clusters: [PostgresCluster] = []

    func add(path: String, directory: URL) {
        lock.withLock { made.append((path, directory)) }
    }

    func add(_ cluster: PostgresCluster) {
        lock.withLock { clusters.append(cluster) }
    }

    func checkAndRemove() {
        for cluster in lock.withLock({ clusters }) where cluster.isRunning {
            Issue.record("teardown: the PostgreSQL cluster at \(cluster.directory.path) is still running (stop it)")
            cluster.stop()
        }
        for (path, directory) in lock.withLock({ made }) {
            for problem in Fixture.teardownProblems(path: path, directory: directory) {
                Issue.record("fixture teardown: \(problem)")
            }
            try? FileManager.default.removeItem(at: directory)  // a leftover directory is only disk space
        }
    }
}

/// Has the test's teardown (`.fixtureChecks`) check that `cluster` was stopped.
public func registerForTeardown(_ cluster: PostgresCluster) {
    FixtureRegistry.current?.add(cluster)
}
