/// Waits, suspended, until `condition` holds, looking every millisecond. Returns false when it looked
/// for `timeout` first.
///
/// The timeout counts the time the waiting task was given to look, not the time the host kept it
/// from running: a look that comes late (the test run's first minute queues 400 tests on the
/// cooperative pool's two threads) counts as at most 100 ms. Each look also passes through the pool
/// (a job queued behind whatever the pool holds), so that a test on a thread of its own (`offThePool`)
/// waiting for an actor's work counts only the time the pool could run that work: its first minute
/// passed while the pool's backlog held the job it waited for, and the wait failed (2026-11-30).
/// A condition that never holds still fails the wait, after `timeout` of looks.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(60), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    var looked = Duration.zero
    while try await !condition() {
        guard looked < timeout else { return false }
        let asleep = clock.now
        try? await Task.sleep(for: .milliseconds(1))
        await Task.detached {}.value
        looked += min(asleep.duration(to: clock.now), .milliseconds(100))
    }
    return true
}

/// Starts 8 tasks on the cooperative pool (more than its threads on a small machine) and returns how
/// many got to run: 8, unless something holds the pool's threads (then it waits until they are free).
public func cooperativeTasksThatRun() async -> Int {
    await withTaskGroup(of: Int.self) { group in
        for _ in 0..<8 {
            group.addTask {
                await Task.yield()
                return 1
            }
        }
        return await group.reduce(0, +)
    }
}
