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

    /// Sets and maps print their contents as lists do (Realm's do too), in their order, objects by
    /// key; a collection whose owner was deleted says so instead of trapping.
    @Test func setsAndMapsPrintTheirContents() throws {
        let fixture = Fixture([Contact.self, Dog.self, Person.self])
        let store = try fixture.open()
        #expect("\(MutableSet(["b", "a"]))" == "MutableSet<String> (2): [\"b\", \"a\"]")
        let contact = Contact(name: "Ann")
        contact.tags.insert(objectsIn: ["work", "gym"])
        contact.lucky.insert(objectsIn: Array(1...12))
        contact.phones["home"] = "555"
        contact.phones["cell"] = "556"
        contact.pets["rex"] = Dog(name: "Rex")
        contact.maybe.insert(objectsIn: [3, nil])
        contact.scores["a"] = .some(nil)
        contact.scores["b"] = 2
        try store.write { try store.add(contact) }
        #expect("\(contact.maybe)" == "MutableSet<Optional<Int>> (2): [nil, 3]")
        #expect("\(contact.scores)" == "Map<String, Optional<Int>> (2): [\"a\": nil, \"b\": 2]")
        #expect("\(contact.tags)" == "MutableSet<String> (2): [\"gym\", \"work\"]")
        #expect("\(contact.lucky)" == "MutableSet<Int> (12): [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … 2 more]")
        #expect("\(contact.phones)" == "Map<String, String> (2): [\"cell\": \"556\", \"home\": \"555\"]")
        #expect("\(contact.pets)".hasPrefix("Map<String, Optional<Dog>> (1): [\"rex\": Dog("))
        #expect("\(contact)".contains("tags = [\"gym\", \"work\"]"))
        #expect("\(contact)".contains("phones = [\"cell\": \"556\", \"home\": \"555\"]"))
        #expect("\(contact)".contains("name = \"Ann\""))
        let elsewhere = Unchecked((contact.tags, contact.phones, contact.pets))
        let printedElsewhere = onAnotherThread {
            ["\(elsewhere.value.0)", "\(elsewhere.value.1)", "\(elsewhere.value.2)"]
        }
        #expect(
            printedElsewhere == [
                "MutableSet<String> (on another thread)", "Map<String, String> (on another thread)",
                "Map<String, Optional<Dog>> (on another thread)",
            ])
        let person = Person(id: 1, name: "Ann")
        try store.write { try store.add(person) }
        let dogs = person.dogs
        let (tags, phones) = (contact.tags, contact.phones)
        try store.write { try store.delete([contact, person]) }
        #expect("\(tags)" == "MutableSet<String> (invalidated)")
        #expect("\(phones)" == "Map<String, String> (invalidated)")
        #expect("\(dogs)" == "List<Dog> (invalidated)")
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
