import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The waits every other test relies on (Tests/StrataTestSupport/AsyncWaits.swift).
@Suite("Test waits", .offThePool)
struct TestWaitTests {
    @Test("a wait on a thread of its own counts only the time the pool could run the work it waits for")
    func aHeldPoolDoesNotUseUpTheTimeout() async {
        // Every thread of the cooperative pool held for 2 s by a synchronous job, as a run's first
        // minute holds them with synchronous tests; the awaited work is queued behind them.
        let threads = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        let holding = Locked(0)
        for _ in 0..<threads {
            Task.detached {
                holding.withLock { $0 += 1 }
                usleep(2_000_000)  // blocks the thread, as a synchronous test does
            }
        }
        while holding.withLock({ $0 }) < threads { usleep(1_000) }
        let done = Locked(false)
        Task.detached { done.withLock { $0 = true } }
        #expect(await waitUntil(timeout: .milliseconds(300)) { done.withLock { $0 } })
    }

    @Test("a condition that never holds fails the wait once it looked for the timeout")
    func aConditionThatNeverHoldsTimesOut() async {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await waitUntil(timeout: .milliseconds(200)) { false } == false)
        #expect(start.duration(to: clock.now) >= .milliseconds(200))
    }
}
