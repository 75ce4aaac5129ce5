import Foundation
import Strata
import StrataReactive
import StrataTestSupport
import XCTest

// The README's 30-line tour, compiled and run, so that it stays true. The waits between its steps
// are the test's; the README's lines are otherwise unchanged.

private final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var dogs: List<Dog>
}

private final class Dog: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var name: String
}

final class ReadmeTourTests: ReactiveTestCase {
    func testTheTourRunsAsWritten() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let url = fixture.configuration.fileURL!

        let store = try Store(configuration: .init(fileURL: url, objectTypes: [Person.self, Dog.self]))
        let ann = Person()
        ann.id = 1
        ann.name = "Ann"
        try store.write { try store.add(ann) }
        try store.write { ann.dogs.append(Dog()) }

        let anns = store.objects(Person.self).where { $0.name.starts(with: "A") }
        var changes: [String] = []
        let token = try anns.observe { change in changes.append("\(change)") }
        waitUntil { changes.count == 1 }  // .initial, delivered on the main queue

        let reference = try ThreadSafeReference(to: ann)
        let configuration = store.configuration
        let renamed = expectation(description: "renamed on another thread")
        DispatchQueue.global().async {
            let there = try! Store(configuration: configuration)
            if let ann = try! there.resolve(reference) { try! there.write { ann.name = "Anne" } }
            renamed.fulfill()
        }
        wait(for: [renamed], timeout: 10)
        waitUntil { changes.count == 2 && ann.name == "Anne" }

        var failure: StoreError?
        XCTAssertEqual(
            run(ann.reactive.update(in: store, on: .background) { $0.name = "Ann B." }).descriptions.last, "completed")
        XCTAssertEqual(ann.name, "Ann B.")
        try store.write { try store.delete(ann) }
        ann.reactive.update(in: store, on: .main) { $0.name = "x" }.startWithFailed { failure = $0 }
        // deleted on main before the start (on the background queue: .deletedInAnotherThread)
        XCTAssertEqual(failure, .invalidated)

        try store.verify()
        XCTAssertEqual(store.objects(Dog.self).count, 1)
        try store.write { try store.add(Person(value: 2)) }
        XCTAssertThrowsError(try store.write { try store.add(Person(value: 2)) }) { error in
            XCTAssertEqual(error as? StoreError, .alreadyExists(primaryKey: "2"))
        }
        token.invalidate()
    }
}

extension Person {
    fileprivate convenience init(value id: Int) {
        self.init()
        self.id = id
    }
}
