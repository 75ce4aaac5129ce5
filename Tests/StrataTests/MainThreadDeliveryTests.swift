import Foundation
import StrataTestSupport
import XCTest

@testable import Strata

/// A Store of the main thread is told on the main queue; `wait(for:)` spins the main run loop.
final class MainThreadDeliveryTests: XCTestCase {
    func testResultsAndObjectObserversRunOnMainAfterABackgroundCommit() throws {
        XCTAssertTrue(Thread.isMainThread)
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        try store.write { try store.add(Item(id: 1, score: 0, name: "one")) }
        let one = try XCTUnwrap(store.object(ofType: Item.self, forPrimaryKey: 1))
        let initial = expectation(description: "initial")
        let update = expectation(description: "update")
        let objectChange = expectation(description: "object change")
        var order: [String] = []
        let token = try store.objects(Item.self).observe { change in
            XCTAssertTrue(Thread.isMainThread)
            switch change {
            case .initial(let results):
                order.append("initial \(results.count)")
                initial.fulfill()
            case .update(let results, let deletions, let insertions, let modifications):
                order.append("update \(results.count) \(deletions) \(insertions) \(modifications)")
                update.fulfill()
            case .error(let error):
                XCTFail("\(error)")
            }
        }
        let objectToken = try one.observe(keyPaths: [\.score]) { change in
            XCTAssertTrue(Thread.isMainThread)
            if case .change(let item, let properties) = change {
                order.append("object \(item.score) \(properties.map(\.name))")
                objectChange.fulfill()
            }
        }
        wait(for: [initial], timeout: 30)
        let configuration = fixture.configuration
        DispatchQueue.global().async {
            do {
                let background = try Store(configuration: configuration)
                try background.write {
                    try background.add(Item(id: 2, score: 0, name: "two"))
                    background.object(ofType: Item.self, forPrimaryKey: 1)!.score = 7
                }
            } catch {
                XCTFail("\(error)")
            }
        }
        wait(for: [update, objectChange], timeout: 30)
        XCTAssertEqual(order.sorted(), ["initial 1", "object 7.0 [\"score\"]", "update 2 [] [1] [0]"])
        XCTAssertEqual(store.objects(Item.self).count, 2)  // autorefresh moved the Store
        token.invalidate()
        objectToken.invalidate()
    }

    func testAutorefreshOffKeepsTheSnapshot() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        store.autorefresh = false
        let configuration = fixture.configuration
        let written = expectation(description: "written")
        DispatchQueue.global().async {
            let background = try? Store(configuration: configuration)
            try? background?.write { try background?.add(Item(id: 1, score: 0, name: "")) }
            DispatchQueue.main.async { written.fulfill() }
        }
        wait(for: [written], timeout: 30)
        XCTAssertEqual(store.objects(Item.self).count, 0)
        try store.refresh()
        XCTAssertEqual(store.objects(Item.self).count, 1)
    }
}
