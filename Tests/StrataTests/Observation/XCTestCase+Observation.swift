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

    /// Commits `body` on a Store of another thread and waits until it committed (not until the main
    /// thread's Store delivered it).
    func commitInBackground(
        _ configuration: Store.Configuration, _ body: @escaping @Sendable (Store) throws -> Void
    ) {
        let done = expectation(description: "background commit")
        DispatchQueue.global().async {
            do {
                let background = try Store(configuration: configuration)
                try background.write { try body(background) }
            } catch {
                XCTFail("\(error)")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
    }
}
