import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct AddDeleteTests {
    @Test func errorPolicyRejectsAnExistingKey() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let duplicate = Person(id: 1, name: "Other")
        try store.write {
            #expect(throws: StoreError.alreadyExists(primaryKey: "1")) { try store.add(duplicate) }
        }
        #expect(!duplicate.isManaged)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Ann")
        try store.verify()
    }

    @Test func modifiedPolicyUpdatesOnlyWhatChanged() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann", age: 30)) }
        let versionBefore = try store.core.version()
        try store.write { try store.add(Person(id: 1, name: "Ann", age: 30), update: .modified) }
        #expect(try store.core.version() == versionBefore)  // LMDB commits nothing when no page changed
        let update = Person(id: 1, name: "Bea", age: 30)
        try store.write { try store.add(update, update: .modified) }
        #expect(update.isManaged)
        #expect(update.name == "Bea")
        #expect(store.objects(Person.self).count == 1)
        try store.verify()  // the name index moved from Ann to Bea
    }

    @Test func allPolicyRewritesAndInsertsNew() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write {
            try store.add(Person(id: 1, name: "Ann"), update: .all)
            try store.add(Person(id: 1, name: "Cy", age: 5), update: .all)
        }
        let person = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(person.name == "Cy")
        #expect(person.age == 5)
        try store.verify()
    }

    @Test func addingAManagedObjectAgainDoesNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let person = Person(id: 1)
        try store.write {
            try store.add(person)
            try store.add(person)
            try store.add(person, update: .error)
        }
        #expect(store.objects(Person.self).count == 1)
    }

    @Test func addCascadesToLinkedObjects() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        let rex = Dog(name: "Rex", owner: ann)
        let fido = Dog(name: "Fido", owner: ann)
        ann.dogs.append(contentsOf: [rex, fido])
        try store.write { try store.add(rex) }  // reaches ann, and fido through ann.dogs
        #expect(ann.isManaged)
        #expect(rex.isManaged)
        #expect(fido.isManaged)
        #expect(store.objects(Dog.self).count == 2)
        let stored = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(stored.dogs.map(\.name) == ["Rex", "Fido"])
        #expect(stored.dogs.allSatisfy { $0.owner?.id == 1 })
    }

    @Test func cascadeWithErrorPolicyIsAllOrNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 7)) }
        let dog = Dog(name: "Rex", owner: Person(id: 7))  // the owner's key exists
        try store.write {
            #expect(throws: StoreError.alreadyExists(primaryKey: "7")) { try store.add(dog) }
        }
        #expect(store.objects(Dog.self).isEmpty)
        #expect(!dog.isManaged)
        try store.verify()
    }

    @Test func batchIsAllOrNothingEvenWhenTheErrorIsCaught() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 3, name: "existing")) }
        let batch = (1...5).map { Person(id: $0, name: "new \($0)") }
        try store.write {
            do {
                try store.add(contentsOf: batch)
                Issue.record("the batch should fail")
            } catch {
                #expect(error as? StoreError == .alreadyExists(primaryKey: "3"))
            }
            try store.add(Person(id: 10, name: "after"))  // the write goes on
        }
        #expect(store.objects(Person.self).map(\.id) == [3, 10])
        #expect(batch.allSatisfy { !$0.isManaged })
        try store.verify()
    }

    @Test func duplicateKeysInsideOneBatch() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write {
            #expect(throws: StoreError.alreadyExists(primaryKey: "1")) {
                try store.add(contentsOf: [Person(id: 1, name: "a"), Person(id: 1, name: "b")])
            }
            try store.add(contentsOf: [Person(id: 1, name: "a"), Person(id: 1, name: "b")], update: .modified)
        }
        #expect(store.objects(Person.self).map(\.name) == ["b"])
    }

    @Test func typesWithoutPrimaryKeyKeepInsertionOrder() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write {
            for text in ["c", "a", "b"] { try store.add(Note(text)) }
        }
        try store.write { try store.add(contentsOf: [Note("z"), Note("y")]) }
        #expect(store.objects(Note.self).map(\.text) == ["c", "a", "b", "z", "y"])
        try store.write { try store.add(Note("x"), update: .modified) }  // always a new row
        #expect(store.objects(Note.self).count == 6)
    }

    @Test func typeOutsideTheSchemaIsRejected() throws {
        let fixture = Fixture([Note.self])
        let store = try fixture.open()
        try store.write {
            #expect { try store.add(Blob(id: 1, bytes: 1)) } throws: { isCase($0, .schemaMismatch("")) }
        }
    }

    @Test func overlongStringKeyIsRejected() throws {
        final class Named: Object {
            @Persisted(primaryKey: true) var name: String
        }
        let fixture = Fixture([Named.self])
        let store = try fixture.open()
        let named = Named()
        named.name = String(repeating: "x", count: 600)
        try store.write {
            #expect { try store.add(named) } throws: { isCase($0, .invalidArgument("")) }
            named.name = ""  // the empty string is a valid key
            try store.add(named)
        }
        #expect(store.object(ofType: Named.self, forPrimaryKey: "") != nil)
    }

    @Test func anOverlongKeyInABatchWritesNothingAndTheWriteGoesOn() throws {
        final class Named: Object {
            @Persisted(primaryKey: true) var name: String
        }
        let fixture = Fixture([Named.self])
        let store = try fixture.open()
        let batch = ["a", String(repeating: "x", count: 600), "b"].map { name in
            let named = Named()
            named.name = name
            return named
        }
        try store.write {
            #expect { try store.add(contentsOf: batch, update: .modified) } throws: { isCase($0, .invalidArgument("")) }
            #expect(store.objects(Named.self).isEmpty)
            try store.add(contentsOf: [batch[0], batch[2]])  // the transaction is still good
        }
        #expect(store.objects(Named.self).map(\.name) == ["a", "b"])
    }

    @Test func aFailedBatchOfAPlainTypeLeavesNothingAndItsObjectsUnmanaged() throws {
        final class Plain: Object {  // no links, no String key: the direct path
            @Persisted(primaryKey: true) var id: Int
            @Persisted var label: String

            convenience init(_ id: Int, _ label: String) {
                self.init()
                self.id = id
                self.label = label
            }
        }
        let fixture = Fixture([Plain.self])
        let store = try fixture.open()
        try store.write { try store.add(Plain(5, "stored")) }
        let batch = [Plain(1, "a"), Plain(2, "b"), Plain(5, "clash"), Plain(3, "c")]
        try store.write {
            #expect(throws: StoreError.alreadyExists(primaryKey: "5")) { try store.add(contentsOf: batch) }
            #expect(store.objects(Plain.self).map(\.id) == [5])
            #expect(batch.allSatisfy { !$0.isManaged })
            #expect(batch.map(\.label) == ["a", "b", "clash", "c"])  // the values are still theirs
            batch[2].id = 4
            try store.add(contentsOf: batch)  // the transaction is still good
        }
        #expect(store.objects(Plain.self).map(\.label) == ["a", "b", "c", "clash", "stored"])
        #expect(batch.allSatisfy { $0.isManaged })
        try store.verify()
    }

    @Test func theSameObjectTwiceInABatchIsAddedOnce() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let note = Note("once")
        let person = Person(id: 7, name: "p")
        try store.write { try store.add(contentsOf: [note, Note("other"), note]) }
        try store.write { try store.add(contentsOf: [person, person]) }
        #expect(store.objects(Note.self).map(\.text) == ["once", "other"])
        #expect(note.isManaged)
        #expect(store.objects(Person.self).count == 1)
        #expect(person.isManaged)
    }

    @Test func deleteObjectSequenceResultsAndAll() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write {
            try store.add(contentsOf: (1...6).map { Person(id: $0, name: "p\($0)") })
            try store.add(contentsOf: [Note("a"), Note("b")])
        }
        let people = store.objects(Person.self)
        let first = try #require(people.first)
        try store.write { try store.delete(first) }
        #expect(first.isInvalidated)
        #expect(people.count == 5)
        try store.write { try store.delete([people[0], people[1], people[0]]) }
        #expect(people.map(\.id) == [4, 5, 6])
        try store.write { try store.delete(store.objects(Note.self)) }
        #expect(store.objects(Note.self).isEmpty)
        try store.verify()
        try store.write { try store.deleteAll() }
        #expect(people.isEmpty)
        try store.write { try store.add(Person(id: 1, name: "again")) }
        try store.verify()
    }

    @Test func deletingUnmanagedOrDeletedObjectsThrowsAndDeletesNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: [Person(id: 1), Person(id: 2)]) }
        let one = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        let two = try #require(store.object(ofType: Person.self, forPrimaryKey: 2))
        try store.write {
            #expect(throws: StoreError.notManaged) { try store.delete([two, Person(id: 3)]) }
            try store.delete(one)
            // A stale reference on this thread: .invalidated (.deletedInAnotherThread is for handoffs).
            #expect(throws: StoreError.invalidated) { try store.delete([two, one]) }
            #expect(throws: StoreError.invalidated) { try store.delete(one) }
            #expect(throws: StoreError.invalidated) { try store.add(Dog(name: "Rex", owner: one)) }
        }
        #expect(!two.isInvalidated)
    }
}
