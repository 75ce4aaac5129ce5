import Foundation
import StrataTestSupport
import Testing

@testable import Strata

struct Oops: Error {}

@Suite(.fixtureChecks) struct WriteTests {
    @Test func writeCommitsAndIsVisibleAtOnce() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(!store.isInWriteTransaction)
        let result = try store.write {
            #expect(store.isInWriteTransaction)
            try store.add(Person(id: 1, name: "Ann"))
            return 42
        }
        #expect(result == 42)
        #expect(!store.isInWriteTransaction)
        #expect(store.objects(Person.self).count == 1)
    }

    @Test func writeRollsBackEverythingWhenTheBlockThrows() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let person = Person(id: 1, name: "Ann")
        #expect(throws: Oops.self) {
            try store.write {
                try store.add(person)
                try store.add(Person(id: 2))
                throw Oops()
            }
        }
        #expect(store.objects(Person.self).isEmpty)
        #expect(!store.isInWriteTransaction)
        #expect(person.isInvalidated)  // added in a rolled-back write
    }

    @Test func beginCommitCancel() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.beginWrite()
        try store.add(Person(id: 1))
        try store.cancelWrite()
        #expect(store.objects(Person.self).isEmpty)
        try store.beginWrite()
        try store.add(Person(id: 2))
        try store.commitWrite()
        #expect(store.objects(Person.self).map(\.id) == [2])
        #expect(throws: StoreError.notInWriteTransaction) { try store.commitWrite() }
        #expect(throws: StoreError.notInWriteTransaction) { try store.cancelWrite() }
    }

    @Test func nestedWriteThrowsInsteadOfDeadlocking() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write {
            #expect(throws: StoreError.alreadyInWriteTransaction) { try store.write {} }
            #expect(throws: StoreError.alreadyInWriteTransaction) { try store.beginWrite() }
        }
        // A second, uncached Store of the same file on this thread (another schema version would not
        // open; a different type list is another cache entry).
        var other = fixture.configuration
        other.objectTypes = [Person.self]
        let second = try Store(configuration: other)
        #expect(second != store)
        try store.write {
            #expect(throws: StoreError.alreadyInWriteTransaction) { try second.beginWrite() }
        }
        try second.write { try second.add(Person(id: 9)) }  // usable once the first write ended
    }

    @Test func changesOutsideAWriteThrow() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(throws: StoreError.notInWriteTransaction) { try store.add(Person(id: 1)) }
        try store.write { try store.add(Person(id: 1)) }
        let person = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(throws: StoreError.notInWriteTransaction) { try store.delete(person) }
        #expect(throws: StoreError.notInWriteTransaction) { try store.deleteAll() }
        #expect(throws: StoreError.notInWriteTransaction) { try store.add(contentsOf: [Person(id: 3)]) }
    }

    @Test func managedObjectsAndResultsAreLive() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let people = store.objects(Person.self)
        #expect(people.isEmpty)
        try store.write { try store.add(Person(id: 1, name: "Ann", age: 30)) }
        let ann = try #require(people.first)
        let again = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        try store.write { again.age = 31 }
        #expect(ann.age == 31)
        #expect(people.count == 1)
        try store.write {
            ann.name = "Anne"
            #expect(again.name == "Anne")  // inside the write too
            try store.add(Person(id: 2))
            #expect(people.count == 2)
        }
        #expect(people.map(\.id) == [1, 2])
    }

    @Test func propertySetterMaintainsTheIndex() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let ann = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        try store.write { ann.name = "Bea" }
        try store.verify()
    }

    @Test func storeIsCachedPerThread() throws {
        let fixture = Fixture()
        let first = try fixture.open()
        let second = try fixture.open()
        #expect(first == second)
        let configuration = fixture.configuration
        let otherThreadSaw = onAnotherThread { () -> Bool in
            guard let other = try? Store(configuration: configuration) else { return false }
            return (try? other.refresh()) != nil
        }
        #expect(otherThreadSaw)
    }

    @Test func queueConfinedStore() throws {
        let fixture = Fixture()
        let queue = DispatchQueue(label: "strata.tests.queue")
        let configuration = fixture.configuration
        #expect(throws: StoreError.wrongThread) { try Store(configuration: configuration, queue: queue) }
        let count = queue.sync { () -> Int in
            do {
                let store = try Store(configuration: configuration, queue: queue)
                try store.write { try store.add(Person(id: 1)) }
                return store.objects(Person.self).count
            } catch {
                return -1
            }
        }
        #expect(count == 1)
        let sameStore = queue.sync { () -> Bool in
            let a = try? Store(configuration: configuration, queue: queue)
            let b = try? Store(configuration: configuration, queue: queue)
            return a != nil && a == b
        }
        #expect(sameStore)
    }

    /// LMDB's writer lock belongs to the thread that took it: a queue-confined Store's write that
    /// continues in a block run by another thread is refused, and can still be ended where it began.
    @Test func aQueueStoresWriteContinuedOnAnotherThreadIsRefused() throws {
        // this thread (in queue.sync)          another thread (in queue.sync)
        // open the queue's Store
        // beginWrite, add Person 1
        //                                       add Person 2 -> .wrongThread
        //                                       commitWrite -> .wrongThread
        // commitWrite: Person 1 alone is stored
        let fixture = Fixture()
        let queue = DispatchQueue(label: "strata.tests.write-thread")
        let configuration = fixture.configuration
        // `sync` runs the block on the calling thread: each block below runs on a different thread.
        let store = try queue.sync { () throws -> Unchecked<Store> in
            let store = try Store(configuration: configuration, queue: queue)
            try store.beginWrite()
            try store.add(Person(id: 1))
            return Unchecked(store)
        }
        let refused = onAnotherThread { () -> [StoreError?] in
            queue.sync {
                var errors: [StoreError?] = []
                do throws(StoreError) {
                    try store.value.add(Person(id: 2))
                    errors.append(nil)
                } catch {
                    errors.append(error)
                }
                do throws(StoreError) {
                    try store.value.commitWrite()
                    errors.append(nil)
                } catch {
                    errors.append(error)
                }
                return errors
            }
        }
        #expect(refused == [.wrongThread, .wrongThread])
        try queue.sync { try store.value.commitWrite() }  // on the thread that began it
        let count = queue.sync { store.value.objects(Person.self).map(\.id) }
        #expect(count == [1])
    }

    @Test func inMemoryStoresAreSharedByIdentifierAndGoneWhenClosed() throws {
        let identifier = "tests-\(UUID().uuidString)"
        let configuration = Store.Configuration(inMemoryIdentifier: identifier, objectTypes: [Person.self])
        var path = ""
        do {
            let store = try Store(configuration: configuration)
            path = try configuration.resolvedLocation().path
            try store.write { try store.add(Person(id: 1)) }
            let seenElsewhere = onAnotherThread { () -> Int in
                (try? Store(configuration: configuration).objects(Person.self).count) ?? -1
            }
            #expect(seenElsewhere == 1)
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-lock"))
        let fresh = try Store(configuration: configuration)
        #expect(fresh.objects(Person.self).isEmpty)
    }

    @Test func durabilityModesSetLMDBFlags() throws {
        for (durability, expected) in [
            (Store.Durability.full, SyncMode.full), (.noMetaSync, .noMetaSync), (.noSync, .noSync),
        ] {
            let fixture = Fixture { $0.durability = durability }
            let store = try fixture.open()
            #expect(try store.core.environment.syncModeInEffect() == expected)
            try store.write { try store.add(Person(id: 1)) }
        }
    }

    @Test func environmentIsSharedAndClosedWithItsLastStore() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            let configuration = fixture.configuration
            let environment = store.core.environment
            let sameEnvironment = onAnotherThread { () -> Bool in
                guard let other = try? Store(configuration: configuration) else { return false }
                return other.core.environment === environment
            }
            #expect(sameEnvironment)
            #expect(!fixture.isClosed)
        }
        #expect(fixture.isClosed)
    }

    @Test func conflictingOptionsForAnOpenFileAreRejected() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        var other = fixture.configuration
        other.durability = .noSync
        #expect { try Store(configuration: other) } throws: { isCase($0, .invalidArgument("")) }
        _ = store
    }

    @Test func readOnlyStoreRejectsWrites() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            try store.write { try store.add(Person(id: 1)) }
        }
        var readOnly = fixture.configuration
        readOnly.readOnly = true
        let store = try Store(configuration: readOnly)
        #expect(store.objects(Person.self).count == 1)
        #expect(throws: StoreError.readOnly) { try store.beginWrite() }
    }
}

@Suite(.fixtureChecks) struct WriteAfterFailureTests {
    @Test func addAfterAFailedWriteIsOutsideAWrite() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 2)) }
        #expect(throws: StoreError.alreadyExists(primaryKey: "2")) {
            try store.write { try store.add(Person(id: 2)) }
        }
        #expect(!store.isInWriteTransaction)
        #expect(throws: StoreError.notInWriteTransaction) { try store.add(Person(id: 9)) }
    }
}
