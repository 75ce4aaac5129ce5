import Foundation
import Strata
import StrataReactive
import StrataTestSupport
import XCTest

/// `add`, `update` and `remove` on `.main` and `.background` (Docs/ReactiveContracts.md, "The Store wrapper").
final class ReactiveWriteTests: ReactiveTestCase {
    func testMainAddRunsSynchronouslyInsideStart() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        let outcome = start(ann.reactive.add(to: store, on: .main))
        XCTAssertEqual(outcome.descriptions, ["value ()", "completed"])  // before start returned
        XCTAssertTrue(ann.isManaged)
        XCTAssertEqual(store.objects(Person.self).count, 1)
    }

    func testStartedOffTheMainThreadFailsWrongThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let producers = Unchecked([
            Person(id: 1).reactive.add(to: store, on: .main), Person(id: 2).reactive.add(to: store, on: .background),
        ])
        let errors = onAnotherThread { () -> [String] in
            producers.value.map { producer in
                var error: StoreError?
                producer.startWithFailed { error = $0 }
                return "\(error.map { "\($0)" } ?? "none")"
            }
        }
        XCTAssertEqual(errors, ["\(StoreError.wrongThread)", "\(StoreError.wrongThread)"])
        XCTAssertEqual(store.objects(Person.self).count, 0)
    }

    func testBackgroundAddDeliversOnMainAfterTheMainStoreSeesTheWrite() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        var log: [String] = []
        var initial: Int?
        let token = try store.objects(Person.self).observe { change in
            switch change {
            case .initial(let results): initial = results.count
            case .update(let results, _, let insertions, _): log.append("update \(results.count) \(insertions)")
            case .error(let error): log.append("error \(error)")
            }
        }
        // The observer must have started before the write: else the write lands in its `.initial`
        // (it waited on `{ true }`, which returned at once: 1 run in 6-12 failed).
        waitUntil { initial != nil }
        XCTAssertEqual(initial, 0)
        let ann = Person(id: 1, name: "Ann")
        let outcome = start(
            ann.reactive.add(to: store, on: .background).on(value: {
                log.append("value: main store sees \(store.objects(Person.self).count)")
            }))
        XCTAssertTrue(outcome.events.isEmpty)  // the work is on the background queue
        waitUntil { outcome.isTerminated }
        XCTAssertEqual(outcome.descriptions, ["value ()", "completed"])
        XCTAssertEqual(outcome.offMainEvents, 0)
        XCTAssertEqual(log, ["update 1 [0]", "value: main store sees 1"])
        // Managed by the main thread's Store, as after `store.add` (the background Store wrote it).
        XCTAssertTrue(ann.isManaged)
        XCTAssertEqual(ann.store, store)
        XCTAssertEqual(ann.name, "Ann")
        try store.write { ann.age = 40 }
        XCTAssertEqual(store.object(ofType: Person.self, forPrimaryKey: 1)?.age, 40)
        token.invalidate()
    }

    func testTheMainStoreSeesABackgroundWriteEvenWithoutAutorefresh() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        store.autorefresh = false
        XCTAssertEqual(store.objects(Person.self).count, 0)  // the snapshot is taken
        var seen: Int?
        run(
            Person(id: 1).reactive.add(to: store, on: .background).on(value: { seen = store.objects(Person.self).count }
            ))
        XCTAssertEqual(seen, 1)
    }

    func testBackgroundAddOfAGraphLinkingToAManagedObject() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        let rex = Dog(name: "Rex", owner: ann)  // unmanaged, links to a managed object of main's Store
        let bob = Person(id: 2, name: "Bob")
        bob.dogs.append(Dog(name: "Fido"))
        let outcome = run(
            [rex].reactive.add(to: store, on: .background).concat(bob.reactive.add(to: store, on: .background)))
        XCTAssertEqual(outcome.descriptions, ["value ()", "value ()", "completed"])
        XCTAssertEqual(rex.owner?.name, "Ann")
        XCTAssertEqual(ann.ownedDogs.map(\.name), ["Rex"])
        XCTAssertEqual(bob.dogs.first?.name, "Fido")
        XCTAssertEqual(store.objects(Dog.self).count, 2)
        // A link to an object deleted before the background write: `.deletedInAnotherThread`, nothing written.
        let carl = Person(id: 3, name: "Carl")
        try store.write { try store.add(carl) }
        let orphan = Dog(name: "Orphan", owner: carl)
        let release = holdBackgroundQueue()
        let failed = start(orphan.reactive.add(to: store, on: .background))
        try store.write { try store.delete(carl) }
        release()
        waitUntil { failed.isTerminated }
        XCTAssertEqual(failed.error, .deletedInAnotherThread)
        XCTAssertEqual(store.objects(Dog.self).count, 2)
        XCTAssertFalse(orphan.isManaged)
    }

    func testErrorPolicyOnAnExistingKeyWritesNothingSingleOrArray() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        for context in [ReactiveContext.main, .background] {
            let single = run(Person(id: 1, name: "Other").reactive.add(to: store, update: .error, on: context))
            XCTAssertEqual(single.error, .alreadyExists(primaryKey: "1"), "\(context)")
            let batch = [Person(id: 2, name: "New"), Person(id: 1, name: "Clash")]
            let outcome = run(batch.reactive.add(to: store, update: .error, on: context))
            XCTAssertEqual(outcome.error, .alreadyExists(primaryKey: "1"), "\(context)")
            XCTAssertEqual(outcome.offMainEvents, 0)
            XCTAssertEqual(store.objects(Person.self).map(\.name), ["Ann"], "\(context)")
            XCTAssertFalse(batch[0].isManaged)
        }
        let updated = run(
            [Person(id: 1, name: "Ann 2"), Person(id: 2, name: "Bob")].reactive.add(
                to: store, update: .modified, on: .background))
        XCTAssertEqual(updated.descriptions, ["value ()", "completed"])
        XCTAssertEqual(store.objects(Person.self).map(\.name), ["Ann 2", "Bob"])
    }

    func testUpdateOnMainAndInTheBackground() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        XCTAssertEqual(
            run(ann.reactive.update(in: store, on: .main) { $0.age = 30 }).descriptions, ["value ()", "completed"])
        XCTAssertEqual(ann.age, 30)
        let ranOnMain = Unchecked(ResultBox<Bool>())
        let outcome = run(
            ann.reactive.update(in: store, on: .background) { person in
                ranOnMain.value.value = Thread.isMainThread
                person.name = "New"
            })
        XCTAssertEqual(outcome.descriptions, ["value ()", "completed"])
        XCTAssertEqual(ranOnMain.value.value, false)
        XCTAssertEqual(ann.name, "New")  // main's object shows the write when the value arrives
    }

    func testRemoveOnMainAndInTheBackground() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let people = [Person(id: 1), Person(id: 2), Person(id: 3)]
        try store.write { try store.add(contentsOf: people) }
        XCTAssertEqual(run(people[0].reactive.remove(from: store, on: .main)).descriptions, ["value ()", "completed"])
        XCTAssertTrue(people[0].isInvalidated)
        XCTAssertEqual(
            run(Array(people[1...]).reactive.remove(from: store, on: .background)).descriptions,
            ["value ()", "completed"])
        XCTAssertTrue(people[2].isInvalidated)
        XCTAssertEqual(store.objects(Person.self).count, 0)
    }

    func testUnmanagedObjectsFailNotManaged() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for context in [ReactiveContext.main, .background] {
            XCTAssertEqual(run(Person(id: 1).reactive.update(in: store, on: context) { $0.age = 1 }).error, .notManaged)
            XCTAssertEqual(run(Person(id: 1).reactive.remove(from: store, on: context)).error, .notManaged)
        }
    }

    func testAnObjectDeletedBeforeTheWriteFailsDeletedInAnotherThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let people = [Person(id: 1, name: "Ann"), Person(id: 2, name: "Bob")]
        try store.write { try store.add(contentsOf: people) }
        // Deleted after the producer started, before the background queue ran it: the reference is nil.
        let release = holdBackgroundQueue()
        let update = start(people.reactive.update(in: store, on: .background) { $0.name = "Changed" })
        let remove = start(people.reactive.remove(from: store, on: .background))
        try onAnotherThreadWrite(fixture) { store in
            try store.delete(store.object(ofType: Person.self, forPrimaryKey: 2)!)
        }
        release()
        waitUntil { update.isTerminated && remove.isTerminated }
        XCTAssertEqual(update.error, .deletedInAnotherThread)
        XCTAssertEqual(remove.error, .deletedInAnotherThread)
        XCTAssertEqual(update.offMainEvents + remove.offMainEvents, 0)
        XCTAssertEqual(people[0].name, "Ann")  // all or nothing: the object still there is unchanged
        XCTAssertFalse(people[0].isInvalidated)
        // Deleted by the other thread before the start (main's Store has moved to that commit): the
        // failure comes at once, and it is still the other thread's deletion.
        for context in [ReactiveContext.main, .background] {
            XCTAssertEqual(
                start(people[1].reactive.update(in: store, on: context) { $0.age = 1 }).error,
                .deletedInAnotherThread, "\(context)")
            XCTAssertEqual(start(people[1].reactive.remove(from: store, on: context)).error, .deletedInAnotherThread)
            XCTAssertEqual(start([people[1]].reactive.remove(from: store, on: context)).error, .deletedInAnotherThread)
        }
    }

    func testAnObjectDeletedElsewhereAndSeenByMainFailsDeletedInAnotherThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let people = [Person(id: 1, name: "Ann"), Person(id: 2, name: "Bob")]
        try store.write { try store.add(contentsOf: people) }
        for (id, deleter) in [(1, "thread"), (2, "queue")] {
            if deleter == "thread" {
                try onAnotherThreadWrite(fixture) { store in
                    try store.delete(store.object(ofType: Person.self, forPrimaryKey: id)!)
                }
            } else {
                let queue = DispatchQueue(label: "deleter")
                try queue.sync {
                    let there = try Store(configuration: fixture.configuration, queue: queue)
                    try there.write { try there.delete(there.object(ofType: Person.self, forPrimaryKey: id)!) }
                }
            }
            try store.refresh()  // main's Store meets the deletion
            let person = people[id - 1]
            XCTAssertTrue(person.isInvalidated)
            for context in [ReactiveContext.main, .background] {
                XCTAssertEqual(run(person.reactive.remove(from: store, on: context)).error, .deletedInAnotherThread)
                XCTAssertEqual(
                    run(person.reactive.update(in: store, on: context) { $0.age = 1 }).error, .deletedInAnotherThread)
                XCTAssertEqual(
                    run(person.reactive.add(to: store, update: .modified, on: context)).error,
                    .deletedInAnotherThread, "\(deleter) \(context)")
            }
        }
        XCTAssertEqual(store.objects(Person.self).count, 0)
    }

    func testAnObjectMainDeletedItselfFailsInvalidated() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        XCTAssertEqual(run(ann.reactive.remove(from: store, on: .main)).descriptions, ["value ()", "completed"])
        for context in [ReactiveContext.main, .background] {
            XCTAssertEqual(run(ann.reactive.remove(from: store, on: context)).error, .invalidated)
            XCTAssertEqual(run(ann.reactive.update(in: store, on: context) { $0.age = 1 }).error, .invalidated)
        }
        // Deleted by a background write: that queue's Store deleted it, not main's.
        let bob = Person(id: 2, name: "Bob")
        try store.write { try store.add(bob) }
        XCTAssertEqual(run(bob.reactive.remove(from: store, on: .background)).descriptions, ["value ()", "completed"])
        XCTAssertEqual(run(bob.reactive.remove(from: store, on: .main)).error, .deletedInAnotherThread)
    }

    func testDisposingABackgroundWriteBeforeItRunsCancelsIt() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let release = holdBackgroundQueue()
        let ann = Person(id: 1, name: "Ann")
        let outcome = start(ann.reactive.add(to: store, on: .background))
        outcome.disposable?.dispose()
        XCTAssertEqual(outcome.descriptions, ["interrupted"])
        release()
        drainMainQueue()  // a (wrong) delivery, enqueued by the background queue, would run now
        XCTAssertEqual(store.objects(Person.self).count, 0)
        XCTAssertFalse(ann.isManaged)
        XCTAssertEqual(outcome.descriptions, ["interrupted"])
    }

    func testAStorageFailureArrivesAsFailedAndWritesNothing() throws {
        let fixture = Fixture { $0.maximumSize = 256 << 10 }
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 0, name: "kept")) }
        let big = (1...3_000).map { Person(id: $0, name: String(repeating: "x", count: 200)) }
        for context in [ReactiveContext.main, .background] {
            let outcome = run(big.reactive.add(to: store, on: context))
            XCTAssertEqual(outcome.error, .mapFull, "\(context)")
            XCTAssertEqual(store.objects(Person.self).map(\.name), ["kept"], "\(context)")
        }
        XCTAssertEqual(
            run(Person(id: 5).reactive.add(to: store, on: .background)).descriptions, ["value ()", "completed"])
    }

    /// A write on a Store of another thread, waited for.
    private func onAnotherThreadWrite(_ fixture: Fixture, _ body: @escaping @Sendable (Store) throws -> Void) throws {
        let failure = onAnotherThread { () -> String? in
            do {
                let store = try fixture.open()
                try store.write { try body(store) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure { XCTFail(failure) }
    }
}

extension SignalProducer {
    /// Test helper: this producer's events, then those of `next` once it completes.
    func concat(_ next: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        SignalProducer<SignalProducer<Value, Error>, Error>([self, next]).flatten(.concat)
    }
}
