import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// What a Realm user types first, and what a new user reads first: spellings, descriptions, messages.
@Suite(.fixtureChecks) struct FirstContactTests {
    @Test func realmsSpellingsWork() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        let bob = Person(id: 2, name: "Bob")
        try store.write { try store.add([ann, bob]) }  // add(_:) of a sequence, all or nothing
        #expect(store.objects(Person.self).count == 2)
        #expect { try store.write { try store.add([Person(id: 3), Person(id: 1)]) } } throws: {
            isCase($0, .alreadyExists(primaryKey: ""))
        }
        #expect(store.objects(Person.self).count == 2)
        let rex = Dog(name: "Rex")
        let fido = Dog(name: "Fido")
        try store.write { ann.dogs.append(objectsIn: [rex, fido]) }
        #expect(ann.dogs.index(of: fido) == 1)
        #expect(ann.dogs.index(of: Dog(name: "Fido")) == nil)  // an unmanaged one is in no list
        #expect(bob.dogs.index(of: rex) == nil)
    }

    @Test func twoReferencesToOneStoredObjectAreEqual() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write { try store.add([Person(id: 1, name: "Ann"), Person(id: 2, name: "Bob")]) }
        let first = try #require(store.objects(Person.self).first)
        let byKey = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(first == byKey)
        #expect(first !== byKey)
        #expect(first != store.object(ofType: Person.self, forPrimaryKey: 2))
        #expect(Set([first, byKey]).count == 1)
        #expect(store.objects(Person.self).contains(byKey))
        let unmanaged = Person(id: 1, name: "Ann")
        #expect(unmanaged != first)
        #expect(unmanaged == unmanaged)
    }

    @Test func printingShowsTypesCountsAndValues() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write {
            try store.add([ann, Person(id: 2, name: "Bob"), Person(id: 3, name: "Cy"), Person(id: 4, name: "Dee")])
            ann.dogs.append(Dog(name: "Rex"))
        }
        let people = "\(store.objects(Person.self))"
        #expect(people.hasPrefix("Results<Person> (4): [Person { id = 1; name = \"Ann\""))
        #expect(people.hasSuffix(", … 1 more]"))
        #expect(!people.contains("StoreCore"))
        #expect("\(List(["a", "b"]))" == "List<String> (2): [\"a\", \"b\"]")
        #expect("\(ann.dogs)".hasPrefix("List<Dog> (1): [Dog("))
        var changes: [String] = []
        let token = try store.objects(Person.self).where { $0.id < 3 }.observe { changes.append("\($0)") }
        try store.refresh()
        try store.write { ann.name = "Anne" }
        try store.refresh()
        #expect(changes.first?.hasPrefix(".initial(Results<Person> (2): [Person { id = 1;") == true)
        #expect(changes.last?.hasSuffix("deletions: [], insertions: [], modifications: [0])") == true)
        withExtendedLifetime(token) {}
    }

    @Test func errorMessagesSayWhatAndWhichOne() throws {
        let fixture = Fixture([Person.self, Note.self, StringKeyed.self])
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1)) }
        do {
            try store.write { try store.add(Person(id: 1)) }
            Issue.record("no error")
        } catch let error as StoreError {
            #expect(error == .alreadyExists(primaryKey: "1"))
            #expect(error.localizedDescription == "a Person with primary key 1 exists already")
        }
        // One rule for String keys: 510 bytes of UTF-8 are accepted, 511 are not.
        try store.write { try store.add(StringKeyed(String(repeating: "k", count: 510))) }
        #expect { try store.write { try store.add(StringKeyed(String(repeating: "k", count: 511))) } } throws: {
            error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("511 bytes of UTF-8") && message.contains("at most 510")
        }
        // A short text file is another kind of file, not a truncated store.
        let text = fixture.directory.appendingPathComponent("notes.txt")
        try Data("just a text file, 24 b\n".utf8).write(to: text)
        #expect { try DynamicStore(path: text.path) } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("is not a Strata file") && !message.contains("truncated")
        }
    }
}

final class StringKeyed: Object {
    @Persisted(primaryKey: true) var code: String  // not `key`: `_key` is Object's, visible to @testable

    convenience init(_ code: String) {
        self.init()
        self.code = code
    }
}
