import Dispatch
import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Who deleted an object decides the error (Docs/Errors.md): `.deletedInAnotherThread` when another
/// thread, queue, actor or process committed the deletion; `.invalidated` only when this Store's own
/// writes deleted it, or `invalidate()` dropped it.
@Suite(.fixtureChecks) struct DeletionAttributionTests {
    /// Every throwing API that meets `object` (a Person) reports `expected`, and nothing is written.
    static func expectEveryAPI(
        _ expected: StoreError, for object: Person, in store: Store, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(object.isInvalidated, sourceLocation: sourceLocation)
        try store.write {
            #expect(throws: expected, sourceLocation: sourceLocation) { try store.delete(object) }
            #expect(throws: expected, sourceLocation: sourceLocation) { try store.delete([object]) }
            #expect(throws: expected, sourceLocation: sourceLocation) { try store.add(object) }
            #expect(throws: expected, sourceLocation: sourceLocation) { try store.add(object, update: .modified) }
            #expect(throws: expected, sourceLocation: sourceLocation) {
                try store.add(Dog(name: "Rex", owner: object))
            }
        }
        #expect(throws: expected, sourceLocation: sourceLocation) { try object.observe { _ in } }
        #expect(throws: expected, sourceLocation: sourceLocation) { try object.freeze() }
        // A handoff of a deleted object is always .deletedInAnotherThread (DESIGN §3).
        #expect(throws: StoreError.deletedInAnotherThread, sourceLocation: sourceLocation) {
            try ThreadSafeReference(to: object)
        }
        #expect(store.objects(Dog.self).isEmpty, sourceLocation: sourceLocation)
    }

    static func deleteOnAnotherThread(_ configuration: Store.Configuration, id: Int) -> Bool {
        onAnotherThread {
            guard let store = try? Store(configuration: configuration),
                let person = store.object(ofType: Person.self, forPrimaryKey: id)
            else { return false }
            return (try? store.write { try store.delete(person) }) != nil
        }
    }

    @Test func deletedOnAnotherThreadIsDeletedInAnotherThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: [Person(id: 1), Person(id: 2)]) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(Self.deleteOnAnotherThread(fixture.configuration, id: 1))
        try store.refresh()
        try Self.expectEveryAPI(.deletedInAnotherThread, for: one, in: store)
    }

    @Test func deletedOnAQueueStoreIsDeletedInAnotherThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        let queue = DispatchQueue(label: "deleter")
        try queue.sync {
            let there = try Store(configuration: fixture.configuration, queue: queue)
            try there.write { try there.delete(there.objects(Person.self)) }
        }
        try store.refresh()
        try Self.expectEveryAPI(.deletedInAnotherThread, for: one, in: store)
    }

    @Test func deletedByAnActorsStoreIsDeletedInAnotherThread() async throws {
        let fixture = Fixture()
        let deleter = Deleter()
        try await deleter.open(fixture.configuration)
        let ids = try await onAnotherThreadStore(fixture) { store in
            try store.write { try store.add(contentsOf: [Person(id: 1), Person(id: 2)]) }
            return store.objects(Person.self).map(\.id)
        }
        #expect(ids == [1, 2])
        // The thread's Store fetched its object before the actor deleted it, and its own delete of the
        // other one is .invalidated: one Store, two deleters.
        let outcome = await onAnotherThread { [configuration = fixture.configuration] () -> [String] in
            do {
                let store = try Store(configuration: configuration)
                let one = store.object(ofType: Person.self, forPrimaryKey: 1)!
                let two = store.object(ofType: Person.self, forPrimaryKey: 2)!
                try store.write { try store.delete(two) }
                let deleted = DispatchSemaphore(value: 0)
                Task {
                    try? await deleter.delete(id: 1)
                    deleted.signal()
                }
                deleted.wait()
                try store.refresh()
                var errors: [String] = []
                for object in [one, two] {
                    do { try store.write { try store.delete(object) } } catch { errors.append("\(error)") }
                }
                return errors
            } catch {
                return ["unexpected \(error)"]
            }
        }
        #expect(outcome == ["deletedInAnotherThread", "invalidated"])
        await deleter.close()
    }

    @Test func deletedByAnotherProcessIsDeletedInAnotherThread() throws {
        let fixture = Fixture()
        let configuration = reliabilityConfiguration(path: fixture.path)
        let store = try Store(configuration: configuration)
        try store.write {
            for id in 1...3 {
                let entry = ProcessEntry()
                entry.id = id
                try store.add(entry)
            }
        }
        let two = try #require(store.object(ofType: ProcessEntry.self, forPrimaryKey: 2))
        let deleter = try StressProcess(["delete-range", fixture.path, "2", "1"])
        #expect(deleter.remainingLines() == ["done"])
        #expect(deleter.wait().status == 0)
        try store.refresh()
        #expect(two.isInvalidated)
        try store.write {
            #expect(throws: StoreError.deletedInAnotherThread) { try store.delete(two) }
            #expect(throws: StoreError.deletedInAnotherThread) { try store.add(two) }
        }
        #expect(throws: StoreError.deletedInAnotherThread) { try two.observe { _ in } }
        #expect(throws: StoreError.deletedInAnotherThread) { try two.freeze() }
        #expect(store.objects(ProcessEntry.self).map(\.id) == [1, 3])
    }

    @Test func deletedByThisStoreIsInvalidated() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: [Person(id: 1), Person(id: 2)]) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        let again = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))  // a second accessor
        try store.write { try store.delete(one) }
        try Self.expectEveryAPI(.invalidated, for: one, in: store)
        try Self.expectEveryAPI(.invalidated, for: again, in: store)
        // Deleted through a Results, and by deleteAll: this Store's writes all the same.
        let two = try #require(store.object(ofType: Person.self, forPrimaryKey: 2))
        try store.write { try store.delete(store.objects(Person.self)) }
        try Self.expectEveryAPI(.invalidated, for: two, in: store)
        try store.write { try store.add(Person(id: 3)) }
        let three = try #require(store.object(ofType: Person.self, forPrimaryKey: 3))
        try store.write { try store.deleteAll() }
        try Self.expectEveryAPI(.invalidated, for: three, in: store)
    }

    @Test func deletedEarlierInTheSameWriteIsInvalidated() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        try store.write {
            try store.delete(one)
            #expect(throws: StoreError.invalidated) { try store.delete(one) }
            #expect(throws: StoreError.invalidated) { try store.add(Dog(name: "Rex", owner: one)) }
        }
    }

    @Test func aCancelledDeletionLeavesTheObjectValid() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        try store.beginWrite()
        try store.delete(one)
        try store.cancelWrite()
        #expect(!one.isInvalidated)
        #expect(one.name == "Ann")
        // Deleted later by another thread: that deletion decides.
        #expect(Self.deleteOnAnotherThread(fixture.configuration, id: 1))
        try store.refresh()
        #expect(throws: StoreError.deletedInAnotherThread) { try store.write { try store.delete(one) } }
    }

    @Test func invalidateIsInvalidated() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        store.invalidate()
        #expect(one.isInvalidated)
        #expect(throws: StoreError.invalidated) { try store.write { try store.delete(one) } }
        #expect(throws: StoreError.invalidated) { try one.observe { _ in } }
    }

    @Test func theLatestDeletionDecides() throws {
        // this thread                          other thread
        // delete Person 1 (old accessor: ours)
        //                                       add Person 1 again, commit
        // refresh, fetch Person 1 (new accessor)
        //                                       delete Person 1, commit
        // refresh: the old accessor was ours to delete, the new one was deleted elsewhere
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        let old = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        try store.write { try store.delete(old) }
        #expect(ThreadingTests.addOnAnotherThread(fixture.configuration, id: 1))
        try store.refresh()
        let new = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(!new.isInvalidated)
        #expect(Self.deleteOnAnotherThread(fixture.configuration, id: 1))
        try store.refresh()
        try store.write {
            #expect(throws: StoreError.invalidated) { try store.delete(old) }
            #expect(throws: StoreError.deletedInAnotherThread) { try store.delete(new) }
        }
    }

    @Test(.offThePool) func aStoreRemembersManyOfItsDeletions() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let count = 70_000
        try store.write { try store.add(contentsOf: (1...count).map { Person(id: $0) }) }
        let first = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        let last = try #require(store.object(ofType: Person.self, forPrimaryKey: count))
        try store.write { try store.delete(store.objects(Person.self)) }
        #expect(throws: StoreError.invalidated) { try first.observe { _ in } }
        #expect(throws: StoreError.invalidated) { try last.observe { _ in } }
    }
}

/// An actor with a Store of its own, which deletes on request.
private actor Deleter {
    private var store: Store?

    func open(_ configuration: Store.Configuration) async throws {
        store = try await Store(configuration: configuration, actor: self)
    }

    func delete(id: Int) throws {
        guard let store, let person = store.object(ofType: Person.self, forPrimaryKey: id) else { return }
        try store.write { try store.delete(person) }
    }

    func close() {
        store = nil
    }
}

/// Runs `body` with a Store of a new thread.
private func onAnotherThreadStore<R: Sendable>(
    _ fixture: Fixture, _ body: @escaping @Sendable (Store) throws -> R
) async throws -> R {
    let outcome = await onAnotherThread { () -> Result<R, any Error> in
        Result { try body(try Store(configuration: fixture.configuration)) }
    }
    return try outcome.get()
}
