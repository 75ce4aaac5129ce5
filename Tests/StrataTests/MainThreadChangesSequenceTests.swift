import Foundation
import StrataTestSupport
import XCTest

@testable import Strata

/// A Store of the main thread, iterated on the main actor (XCTest: its methods run on the main thread,
/// and `wait(for:)` runs the main queue).
final class MainThreadChangesSequenceTests: XCTestCase {
    func testEachElementIsExactWhileMainMovesCommitByCommit() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let shared = Unchecked((store, store.objects(Person.self)))
        let configuration = fixture.configuration
        let done = expectation(description: "the model reached the last commit")
        let mismatches = Locked<[String]>([])
        Task { @MainActor in
            let (store, results) = shared.value
            var model: [Int] = []
            var first = true
            for await change in results.changes {
                let found = apply(change, to: &model)
                mismatches.withLock { $0 += found }
                if first {
                    // Main moves to each commit on its own before it asks for the next element.
                    first = false
                    for commit in ChangesSequenceTests.commits {
                        let committed = await onAnotherThread { () -> Bool in
                            guard let there = try? Store(configuration: configuration) else { return false }
                            do {
                                try there.write { () throws -> Void in
                                    if let id = commit.insert { try there.add(Person(id: id)) }
                                    if let id = commit.delete {
                                        try there.delete(there.objects(Person.self).where { $0.id == id })
                                    }
                                }
                                return true
                            } catch {
                                return false
                            }
                        }
                        XCTAssertTrue(committed)
                        _ = try? store.refresh()
                    }
                }
                if model == ChangesSequenceTests.finalIDs || !found.isEmpty { break }
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(mismatches.withLock { $0 }, [])
    }
}
