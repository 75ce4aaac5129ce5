import Foundation
import Strata
import StrataReactive
import StrataTestSupport
import XCTest

/// `store.reactive.object/objects` and `results.reactive.changes` (Docs/ReactiveContracts.md, "The Store wrapper").
final class ReactiveReadTests: ReactiveTestCase {
    func testObjectAndObjectsSendOneValueThenComplete() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let found = start(store.reactive.object(ofType: Person.self, forPrimaryKey: 1))
        XCTAssertEqual(found.events.count, 2)
        XCTAssertEqual(found.events.first?.value??.name, "Ann")
        XCTAssertEqual(found.descriptions.last, "completed")
        let missing = start(store.reactive.object(ofType: Person.self, forPrimaryKey: 2))
        XCTAssertEqual(missing.descriptions, ["value nil", "completed"])
        let all = start(store.reactive.objects(Person.self).map(\.count))
        XCTAssertEqual(all.descriptions, ["value 1", "completed"])
    }

    func testReadsFailWithTypedErrorsInsteadOfTrapping() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        XCTAssertTrue(isCase(start(store.reactive.objects(Town.self)).error!, .schemaMismatch("")))
        XCTAssertTrue(
            isCase(start(store.reactive.object(ofType: Town.self, forPrimaryKey: "Oslo")).error!, .schemaMismatch("")))
        let producers = Unchecked(
            (
                store.reactive.objects(Person.self).map { _ in () },
                store.reactive.object(ofType: Person.self, forPrimaryKey: 1).map { _ in () },
                store.objects(Person.self).reactive.changes.map { _ in () }
            ))
        let errors = onAnotherThread { () -> [StoreError?] in
            let (objects, object, changes) = producers.value
            return [objects, object, changes].map { producer in
                var error: StoreError?
                producer.startWithFailed { error = $0 }
                return error
            }
        }
        XCTAssertEqual(errors, [.wrongThread, .wrongThread, .wrongThread])
    }

    func testChangesSendsTheInitialValueSynchronouslyThenEachChange() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: [Person(id: 1, name: "Ann"), Person(id: 2, name: "Bob")]) }
        let adults = store.objects(Person.self).where { $0.age >= 18 }
        var log: [String] = []
        let disposable = adults.reactive.changes.startWithResult { result in
            XCTAssertTrue(Thread.isMainThread)
            switch result {
            case .success(.initial(let results)): log.append("initial \(results.map(\.id))")
            case .success(.update(let results, let deletions, let insertions, let modifications)):
                log.append("update \(results.map(\.id)) -\(deletions) +\(insertions) ~\(modifications)")
            case .success(.error(let error)), .failure(let error): log.append("error \(error)")
            }
        }
        XCTAssertEqual(log, ["initial [1, 2]"])  // before start returned
        run(
            [Person(id: 3, name: "Cy"), Person(id: 0, name: "Kid", age: 9)].reactive.add(to: store, on: .background)
                .concat(
                    store.objects(Person.self).where { $0.id == 1 }.first!.reactive.update(in: store, on: .background) {
                        $0.age = 17
                    }))
        waitUntil { log.count == 3 }
        XCTAssertEqual(log, ["initial [1, 2]", "update [1, 2, 3] -[] +[2] ~[]", "update [2, 3] -[0] +[] ~[]"])
        disposable.dispose()
        run(Person(id: 4, name: "Di").reactive.add(to: store, on: .background))
        drainMainQueue()
        XCTAssertEqual(log.count, 3)  // disposing stopped the observation
    }

    func testDisposingChangesInterruptsAndInvalidatesTheToken() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let outcome = start(store.objects(Person.self).reactive.changes.map(\.kind))
        XCTAssertEqual(outcome.descriptions, ["value initial"])
        outcome.disposable?.dispose()
        XCTAssertEqual(outcome.descriptions, ["value initial", "interrupted"])
        try onAnotherThreadAdd(fixture, Person(id: 1))
        XCTAssertTrue(try store.refresh())
        drainMainQueue()
        XCTAssertEqual(outcome.descriptions, ["value initial", "interrupted"])
    }

    private func onAnotherThreadAdd(_ fixture: Fixture, _ person: Person) throws {
        let object = Unchecked(person)
        let failure = onAnotherThread { () -> String? in
            do {
                let store = try fixture.open()
                try store.write { try store.add(object.value) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure { XCTFail(failure) }
    }
}

extension CollectionChange {
    /// Test helper: the case's name.
    var kind: String {
        switch self {
        case .initial: "initial"
        case .update: "update"
        case .error: "error"
        }
    }
}
