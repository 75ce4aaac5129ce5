import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct ThreadingTests {
    /// Adds a Person on another thread, through that thread's own Store.
    static func addOnAnotherThread(_ configuration: Store.Configuration, id: Int) -> Bool {
        onAnotherThread {
            guard let store = try? Store(configuration: configuration) else { return false }
            return (try? store.write { try store.add(Person(id: id)) }) != nil
        }
    }

    @Test func otherThreadsCommitsAppearAfterRefresh() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let people = store.objects(Person.self)
        #expect(people.isEmpty)
        // this thread                          other thread
        //                                       add Person 1, commit
        // still sees its snapshot: empty
        // refresh() -> true: sees Person 1
        // refresh() -> false: nothing new
        #expect(Self.addOnAnotherThread(fixture.configuration, id: 1))
        #expect(people.isEmpty)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 1) == nil)
        #expect(try store.refresh())
        #expect(people.map(\.id) == [1])
        #expect(try store.refresh() == false)
    }

    @Test func aWriteStartsFromTheNewestCommit() throws {
        // this thread                          other thread
        // open a Store (empty snapshot)
        //                                       add Person 1, commit
        // write {: sees Person 1 without refresh()
        //   add Person 1 -> .alreadyExists
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(Self.addOnAnotherThread(fixture.configuration, id: 1))
        try store.write {
            #expect(store.objects(Person.self).count == 1)  // beginWrite moved the snapshot
            #expect(throws: StoreError.alreadyExists(primaryKey: "1")) { try store.add(Person(id: 1)) }
        }
    }

    @Test func everyThrowingAPIReportsTheWrongThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        let person = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        let shared = Unchecked((store, person, store.objects(Person.self)))
        let failures = onAnotherThread { () -> [String] in
            let (store, person, results) = shared.value
            var failures: [String] = []
            func expectWrongThread(_ name: String, _ call: () throws -> Void) {
                do {
                    try call()
                    failures.append("\(name) did not throw")
                } catch {
                    if error as? StoreError != .wrongThread { failures.append("\(name) threw \(error)") }
                }
            }
            expectWrongThread("write") { try store.write {} }
            expectWrongThread("beginWrite") { try store.beginWrite() }
            expectWrongThread("commitWrite") { try store.commitWrite() }
            expectWrongThread("cancelWrite") { try store.cancelWrite() }
            expectWrongThread("refresh") { try store.refresh() }
            expectWrongThread("add") { try store.add(Person(id: 2)) }
            expectWrongThread("add(contentsOf:)") { try store.add(contentsOf: [Person(id: 3)]) }
            expectWrongThread("delete") { try store.delete(person) }
            expectWrongThread("delete(sequence)") { try store.delete([person]) }
            expectWrongThread("delete(results)") { try store.delete(results) }
            expectWrongThread("deleteAll") { try store.deleteAll() }
            expectWrongThread("verify") { try store.verify() }
            return failures
        }
        #expect(failures == [])
        #expect(store.objects(Person.self).count == 1)
    }

    @Test func addingAnObjectManagedOnAnotherThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let configuration = fixture.configuration
        let foreign = onAnotherThread { () -> Unchecked<Person?> in
            guard let other = try? Store(configuration: configuration) else { return Unchecked(nil) }
            let person = Person(id: 4)
            try? other.write { try other.add(person) }
            return Unchecked(person)
        }
        let person = try #require(foreign.value)
        try store.write {
            #expect(throws: StoreError.wrongThread) { try store.add(person) }
            #expect(throws: StoreError.wrongThread) { try store.delete(person) }
        }
    }

    @Test func objectsDeletedOnAnotherThread() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: [Person(id: 1), Person(id: 2)]) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        let configuration = fixture.configuration
        // this thread                          other thread
        //                                       delete Person 1, commit
        // snapshot still shows Person 1
        // refresh(): Person 1 is invalidated
        let deleted = onAnotherThread { () -> Bool in
            guard let other = try? Store(configuration: configuration),
                let target = other.object(ofType: Person.self, forPrimaryKey: 1)
            else { return false }
            return (try? other.write { try other.delete(target) }) != nil
        }
        #expect(deleted)
        // the snapshot is stable
        #expect(!one.isInvalidated)
        #expect(one.id == 1)
        try store.refresh()
        #expect(one.isInvalidated)
        try store.write {  // the other thread deleted it (DeletionAttributionTests has every API)
            #expect(throws: StoreError.deletedInAnotherThread) { try store.delete(one) }
            #expect(throws: StoreError.deletedInAnotherThread) { try store.add(one) }
            let dog = Dog(name: "Rex", owner: one)
            #expect(throws: StoreError.deletedInAnotherThread) { try store.add(dog) }
            #expect(!dog.isManaged)
        }
        #expect(store.objects(Dog.self).isEmpty)
    }

    @Test func invalidateInvalidatesObjectsAndTheStoreGoesOn() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        let person = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        store.invalidate()
        #expect(person.isInvalidated)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 1)?.id == 1)
        try store.beginWrite()
        store.invalidate()  // rolls back the open write
        #expect(!store.isInWriteTransaction)
    }

    @Test func writersOnTwoThreadsTakeTurns() throws {
        // thread 0        thread 1        thread 2        thread 3
        // write {          write { waits   write { waits   write { waits
        // commit }         (LMDB's writer lock: one write at a time)
        //                  ...              ...             ...
        // 200 writes each, interleaved in any order; none fails, 800 objects at the end.
        let fixture = Fixture()
        let configuration = fixture.configuration
        let perThread = 200
        let group = DispatchGroup()
        let failures = ResultBox<Int>()
        failures.value = 0
        let lock = NSLock()
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let store = try Store(configuration: configuration)
                    for index in 0..<perThread {
                        try store.write { try store.add(Person(id: thread * perThread + index)) }
                    }
                } catch {
                    lock.withLock { failures.value! += 1 }
                }
            }.start()
        }
        group.wait()
        #expect(failures.value == 0)
        let store = try fixture.open()
        #expect(store.objects(Person.self).count == 4 * perThread)
        try store.verify()
    }
}
