import Foundation
import StrataTestSupport
import XCTest

@testable import Strata

/// The main queue and the main thread are one (as in Realm), and a Store needs a serial queue.
final class MainQueueTests: XCTestCase {
    func testTheMainQueuesStoreIsTheMainThreadsStore() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let viaQueue = try Store(configuration: fixture.configuration, queue: .main)
        XCTAssertEqual(store, viaQueue)  // was a second Store, whose objects the first refused
        try viaQueue.write { try viaQueue.add(Item(id: 1, score: 0, name: "one")) }
        let one = try XCTUnwrap(store.object(ofType: Item.self, forPrimaryKey: 1))
        try viaQueue.write { try viaQueue.delete(one) }
        XCTAssertTrue(store.objects(Item.self).isEmpty)

        let configuration = fixture.configuration
        let offMain = onAnotherThread { () -> StoreError? in
            do throws(StoreError) {
                _ = try Store(configuration: configuration, queue: .main)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(offMain, .wrongThread)
    }

    func testObservingOnTheMainQueueIsTheMainStoresOwnObservation() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        var changes: [String] = []
        let token = try store.objects(Item.self).observe(on: .main) { change in
            XCTAssertTrue(Thread.isMainThread)
            switch change {
            case .initial(let results): changes.append("initial \(results.count)")
            case .update(_, let deletions, let insertions, _): changes.append("update \(deletions) \(insertions)")
            case .error(let error): changes.append("error \(error)")
            }
        }
        waitUntil { changes.count == 1 }
        XCTAssertEqual(changes, ["initial 0"])
        // The token is this Store's: skipping it is accepted (it threw .invalidArgument("a token of another Store")).
        try store.beginWrite()
        try store.add(Item(id: 1, score: 0, name: "skipped"))
        try store.commitWrite(withoutNotifying: [token])
        try store.write { try store.add(Item(id: 2, score: 0, name: "told")) }
        waitUntil { changes.count == 2 }
        XCTAssertEqual(changes, ["initial 0", "update [] [1]"])  // only the second write
        token.invalidate()
    }

    func testAConcurrentQueueIsRefused() throws {
        let fixture = Fixture([Item.self])
        let configuration = fixture.configuration
        let concurrent = DispatchQueue(label: "strata.tests.concurrent", attributes: .concurrent)
        for queue in [concurrent, DispatchQueue.global(), DispatchQueue.global(qos: .utility)] {
            let error = queue.sync { () -> StoreError? in
                do throws(StoreError) {
                    _ = try Store(configuration: configuration, queue: queue)
                    return nil
                } catch {
                    return error
                }
            }
            guard case .invalidArgument(let message)? = error else {
                return XCTFail("\(queue.label): expected .invalidArgument, got \(String(describing: error))")
            }
            XCTAssertTrue(message.contains("concurrent queue"))
        }
        let store = try fixture.open()
        XCTAssertThrowsError(try store.objects(Item.self).observe(on: concurrent) { _ in }) { error in
            guard case .invalidArgument = error as? StoreError else { return XCTFail("\(error)") }
        }
        // Serial queues, one targeting a global queue among them, still confine Stores.
        for serial in [DispatchQueue(label: "strata.tests.serial"), DispatchQueue(label: "t", target: .global())] {
            XCTAssertNoThrow(try serial.sync { _ = try Store(configuration: configuration, queue: serial) })
        }
    }

    /// Spins the main run loop until `condition` holds (or 10 s pass, failing).
    private func waitUntil(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline {
            RunLoop.main.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertTrue(condition(), "timed out", file: file, line: line)
    }
}
