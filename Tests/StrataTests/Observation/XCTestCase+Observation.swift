import Foundation
import Observation
import Strata
import XCTest

/// What the Observation tests share: tracking a read once, and a commit on another thread's Store.
extension XCTestCase {
    /// Tracks `read` once: the expectation is fulfilled by its `onChange`.
    func track(_ description: String, inverted: Bool = false, _ read: () -> Void) -> XCTestExpectation {
        let changed = expectation(description: description)
        changed.isInverted = inverted
        withObservationTracking(read) { changed.fulfill() }
        return changed
    }

    /// Tracks `read` once and returns the count of its `onChange` calls.
    func countChanges(_ read: () -> Void) -> OnChangeCount {
        let count = OnChangeCount()
        withObservationTracking(read) { count.add() }
        return count
    }

    /// Commits `body` on a Store of another thread and waits until it committed (not until the main
    /// thread's Store delivered it: the wait runs the main queue, where it may).
    func commitInBackground(
        _ configuration: Store.Configuration, _ body: @escaping @Sendable (Store) throws -> Void
    ) {
        let done = expectation(description: "background commit")
        Self.commitOnAnotherThread(configuration, body) { done.fulfill() }
        wait(for: [done], timeout: 30)
    }

    /// Commits `body` on a Store of another thread and waits for it without running the main queue,
    /// so the main thread's Store is not told meanwhile.
    func commitWithoutDelivery(
        _ configuration: Store.Configuration, _ body: @escaping @Sendable (Store) throws -> Void
    ) {
        let done = DispatchSemaphore(value: 0)
        Self.commitOnAnotherThread(configuration, body) { done.signal() }
        done.wait()
    }

    /// Commits `body` on a Store of another thread, then calls `done` there.
    static func commitOnAnotherThread(
        _ configuration: Store.Configuration, _ body: @escaping @Sendable (Store) throws -> Void,
        then done: @escaping @Sendable () -> Void
    ) {
        DispatchQueue.global().async {
            do {
                let background = try Store(configuration: configuration)
                try background.write { try body(background) }
            } catch {
                XCTFail("\(error)")
            }
            done()
        }
    }
}
