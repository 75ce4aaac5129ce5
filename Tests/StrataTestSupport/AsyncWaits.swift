/// Waits, suspended, until `condition` holds, looking every millisecond. Returns false when it looked
/// for `timeout` first.
///
/// The timeout counts the time the waiting task was given to look, not the time the host kept it
/// from running: a look that comes late (the test run's first minute queues 400 tests on the
/// cooperative pool's two threads) counts as at most 100 ms. A condition that never holds still
/// fails the wait, after `timeout` of looks.
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
