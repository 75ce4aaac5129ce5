/// Waits, suspended, until `condition` holds, looking every millisecond. Returns false when `timeout`
/// passed first.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(60), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while try await !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
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
