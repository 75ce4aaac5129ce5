import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct ThreadSafeReferenceTests {
    @Test func anObjectCrossesToAnotherThreadOnce() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        let reference = try ThreadSafeReference(to: ann)
        let outcome = onAnotherThread { [configuration = fixture.configuration] () -> String in
            do {
                let there = try Store(configuration: configuration)
                guard let resolved = try there.resolve(reference) else { return "nil" }
                let name = resolved.name
                do {
                    _ = try there.resolve(reference)
                    return "resolved twice"
                } catch {
                    return isCase(error, .alreadyResolved) ? name : "\(error)"
                }
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == "Ann")
    }

    @Test func aDeletedObjectResolvesToNil() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        let reference = try ThreadSafeReference(to: ann)
        try store.write { try store.delete(ann) }
        let outcome = onAnotherThread { [configuration = fixture.configuration] () -> String in
            do {
                return try Store(configuration: configuration).resolve(reference) == nil ? "nil" : "found"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == "nil")
    }

    @Test func unmanagedDeletedAndForeignObjectsAreRefused() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        #expect(throws: StoreError.notManaged) { try ThreadSafeReference(to: Person(id: 1)) }
        #expect(throws: StoreError.notManaged) { try ThreadSafeReference(to: Person(id: 1).dogs) }
        let ann = Person(id: 1)
        try store.write { try store.add(ann) }
        try store.write { try store.delete(ann) }
        #expect(throws: StoreError.deletedInAnotherThread) { try ThreadSafeReference(to: ann) }
        let bob = Person(id: 2)
        try store.write { try store.add(bob) }
        let other = Fixture([Person.self, Dog.self])
        let otherStore = try other.open()
        let reference = try ThreadSafeReference(to: bob)
        #expect { try otherStore.resolve(reference) } throws: { isCase($0, .invalidArgument("")) }
        #expect {
            try ThreadSafeReference(to: store.objects(Person.self).filter { _ in true })
        } throws: { isCase($0, .invalidArgument("")) }
        let wrongThread = Unchecked(bob)
        let outcome = onAnotherThread { () -> StoreError? in
            do throws(StoreError) {
                _ = try ThreadSafeReference(to: wrongThread.value)
                return nil
            } catch {
                return error
            }
        }
        #expect(outcome == .wrongThread)
    }

    @Test func resultsAndListsKeepTheirQueryAndOwner() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...5 { try store.add(Person(id: id, name: "p\(id)", age: id * 10)) }
            store.object(ofType: Person.self, forPrimaryKey: 3)!.dogs.append(contentsOf: [
                Dog(name: "Rex"), Dog(name: "Fido"),
            ])
        }
        let olderThan20 = store.objects(Person.self).where { $0.age > 20 }.sorted(by: \.age, ascending: false)
        let results = try ThreadSafeReference(to: olderThan20)
        let dogs = try ThreadSafeReference(to: store.object(ofType: Person.self, forPrimaryKey: 3)!.dogs)
        let outcome = onAnotherThread { [configuration = fixture.configuration] () -> [String] in
            do {
                let there = try Store(configuration: configuration)
                let resolved = try there.resolve(results)!
                let list = try there.resolve(dogs)!
                try there.write { try there.add(Person(id: 9, age: 90)) }
                return resolved.map { "\($0.id)" } + list.map(\.name)  // still live there
            } catch {
                return ["\(error)"]
            }
        }
        #expect(outcome == ["9", "5", "4", "3", "Rex", "Fido"])
    }

    @Test func aStoreBehindTheReferenceMovesUpToIt() throws {
        // this thread                          other thread
        //                                       open a Store, read: its snapshot is empty
        // (waits for `opened`)                  signal `opened`, wait for `handed`
        // add Ann, commit
        // make a reference to Ann, signal `handed`
        //                                       resolve: the Store moves up to the reference's
        //                                       version and finds Ann
        let fixture = Fixture([Person.self, Dog.self])
        let opened = DispatchSemaphore(value: 0)
        let handed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<ThreadSafeReference<Person>>()
        let result = ResultBox<String>()
        let configuration = fixture.configuration
        let thread = Thread {
            do {
                let there = try Store(configuration: configuration)
                _ = there.objects(Person.self).count  // pins its snapshot before the commit
                opened.signal()
                handed.wait()
                result.value = try there.resolve(box.value!)?.name ?? "nil"
            } catch {
                result.value = "\(error)"
                opened.signal()
            }
            done.signal()
        }
        thread.start()
        opened.wait()
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        box.value = try ThreadSafeReference(to: ann)
        handed.signal()
        done.wait()
        #expect(result.value == "Ann")
    }
}
