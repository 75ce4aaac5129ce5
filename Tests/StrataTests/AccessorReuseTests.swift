import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A model with a stored property that is not `@Persisted`: its accessors are never reused (the
/// property would carry one row's value to the next).
final class Annotated: Object {
    @Persisted(primaryKey: true) var id: Int
    var scratch = ""
}

/// Iterating a Results re-points the object it handed out last at the next row when nothing else
/// holds it any more; an object the caller kept is never changed under it (Docs/Performance.md).
@Suite(.fixtureChecks) struct AccessorReuseTests {
    static func people(_ count: Int, _ fixture: Fixture) throws -> Store {
        let store = try fixture.open()
        try store.write {
            try store.add(contentsOf: (1...count).map { Person(id: $0, name: "p\($0)") })
            for id in stride(from: 1, through: count, by: 2) {
                let dog = Dog()
                dog.name = "d\(id)"
                dog.owner = store.object(ofType: Person.self, forPrimaryKey: id)
                try store.add(dog)
            }
        }
        return store
    }

    @Test func everyThirdObjectKeptReadsItsOwnRow() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try Self.people(30, fixture)
        var kept: [Person] = []
        var seen: [Int] = []
        for person in store.objects(Person.self) {
            seen.append(person.id)
            if person.id % 3 == 0 { kept.append(person) }
        }
        #expect(seen == Array(1...30))
        #expect(kept.map(\.id) == Array(stride(from: 3, through: 30, by: 3)))
        #expect(kept.map(\.name) == kept.map { "p\($0.id)" })
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
    }

    @Test func anObjectKeptPastTheLoopStaysValid() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try Self.people(10, fixture)
        var fifth: Person?
        for person in store.objects(Person.self) where person.id == 5 { fifth = person }
        let kept = try #require(fifth)
        #expect(!kept.isInvalidated)
        #expect(kept.id == 5)
        #expect(kept.name == "p5")
        #expect(kept.ownedDogs.map(\.name) == ["d5"])
    }

    @Test func anObjectNothingHoldsIsReusedForTheNextRow() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (0..<20).map { Note("n\($0)") }) }
        weak var previous: Note?
        var reused = 0
        var texts: [String] = []
        for note in store.objects(Note.self) {
            if previous === note { reused += 1 }
            previous = note  // a weak reference does not keep the object
            texts.append(note.text)
        }
        #expect(reused == 19)
        #expect(texts == (0..<20).map { "n\($0)" })
    }

    @Test func aQueryIterationReusesAndReadsEachRow() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try Self.people(40, fixture)
        weak var previous: Person?
        var reused = 0
        var kept: [Person] = []
        var ids: [Int] = []
        for person in store.objects(Person.self).where({ $0.id > 20 }) {
            if previous === person { reused += 1 }
            previous = person
            ids.append(person.id)
            if person.id % 5 == 0 { kept.append(person) }
        }
        #expect(ids == Array(21...40))
        #expect(kept.map(\.id) == [25, 30, 35, 40])
        #expect(kept.map(\.name) == ["p25", "p30", "p35", "p40"])
        #expect(reused > 0)
    }

    @Test func aKeptListOrLinkingObjectsKeepsItsOwnRow() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try Self.people(12, fixture)
        try store.write {
            for person in store.objects(Person.self) where person.id % 4 == 0 {
                let dog = Dog()
                dog.name = "walked by \(person.id)"
                person.dogs.append(dog)
            }
        }
        var lists: [(Int, List<Dog>)] = []
        var owned: [(Int, LinkingObjects<Dog>)] = []
        for person in store.objects(Person.self) {
            lists.append((person.id, person.dogs))
            owned.append((person.id, person.ownedDogs))
        }
        for (id, dogs) in lists {
            #expect(dogs.map(\.name) == (id % 4 == 0 ? ["walked by \(id)"] : []), "person \(id)")
        }
        for (id, dogs) in owned {
            #expect(dogs.map(\.name) == (id % 2 == 1 ? ["d\(id)"] : []), "person \(id)")
        }
    }

    @Test func aTypeWithAPropertyThatIsNotPersistedIsNeverReused() throws {
        let fixture = Fixture([Annotated.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...5 { try store.add(Annotated(value: id)) }
        }
        weak var previous: Annotated?
        var scratches: [String] = []
        for object in store.objects(Annotated.self) {
            #expect(previous !== object)
            scratches.append(object.scratch)
            object.scratch = "set on \(object.id)"
            previous = object
        }
        #expect(scratches == Array(repeating: "", count: 5))
    }

    @Test func anIteratorThatAloneHoldsItsStoreEndsCleanly() throws {
        let fixture = Fixture([Annotated.self])
        try fixture.open().write {
            for id in 1...3 { try fixture.open().add(Annotated(value: id)) }
        }
        // A type whose accessors are not reused: the iterator keeps no object, only its Results.
        var iterator = try fixture.open().objects(Annotated.self).makeIterator()
        var ids: [Int] = []
        while let object = iterator.next() { ids.append(object.id) }
        #expect(ids == [1, 2, 3])
    }

    @Test func anObservationMadeInALoopFollowsItsOwnRow() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (0..<6).map { Note("n\($0)") }) }
        var token: NotificationToken?
        var changes: [String] = []
        for note in store.objects(Note.self) where note.text == "n2" {
            token = try note.observe { change in
                if case .change(let object, let properties) = change {
                    changes.append("\(object.text): \(properties.map(\.name))")
                }
            }
        }
        try store.write {
            for note in store.objects(Note.self) where note.text != "n5" { note.text += "!" }
        }
        try store.refresh()
        #expect(changes == ["n2!: [\"text\"]"])
        token?.invalidate()
    }

    @Test func updatingEveryObjectWhileReusingWritesEachRow() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try Self.people(50, fixture)
        try store.write {
            for person in store.objects(Person.self) { person.age = person.id * 2 }
        }
        #expect(store.objects(Person.self).map(\.age) == (1...50).map { $0 * 2 })
        try store.verify()
    }

    @Test func deletingEachObjectWhileReusingDeletesEveryRow() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try Self.people(30, fixture)
        var deleted: [Int] = []
        try store.write {
            for person in store.objects(Person.self) where person.id % 2 == 0 {
                deleted.append(person.id)
                try store.delete(person)
            }
        }
        #expect(deleted == Array(stride(from: 2, through: 30, by: 2)))
        #expect(store.objects(Person.self).map(\.id) == Array(stride(from: 1, through: 29, by: 2)))
        try store.verify()
    }
}

extension Annotated {
    convenience init(value id: Int) {
        self.init()
        self.id = id
    }
}
