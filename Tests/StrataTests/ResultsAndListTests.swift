import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct ResultsTests {
    @Test func unsortedResultsAreInPrimaryKeyOrder() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write {
            for id in [5, -3, 100, 0, -1_000_000, 42] { try store.add(Person(id: id)) }
        }
        let people = store.objects(Person.self)
        #expect(people.map(\.id) == [-1_000_000, -3, 0, 5, 42, 100])
        #expect(people.count == 6)
        #expect(people.first?.id == -1_000_000)
        #expect(people.last?.id == 100)
        #expect(people[2].id == 0)
        #expect(people.indices == 0..<6)
    }

    @Test func primaryKeyOrderForStringsAndUnsigned() throws {
        let fixture = Fixture([AllTypes.self, ByUInt64.self])
        let store = try fixture.open()
        try store.write {
            for key in ["b", "a", "", "ab", "B"] {
                let object = AllTypes()
                object.key = key
                try store.add(object)
            }
            for id: UInt64 in [.max, 0, 1 << 63, 7] {
                let object = ByUInt64()
                object.id = id
                try store.add(object)
            }
        }
        #expect(store.objects(AllTypes.self).map(\.key) == ["", "B", "a", "ab", "b"])
        #expect(store.objects(ByUInt64.self).map(\.id) == [0, 7, 1 << 63, .max])
    }

    @Test func iterationVisitsWhatTheResultsHeldWhenItBegan() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (1...5).map { Person(id: $0) }) }
        var visited: [Int] = []
        try store.write {
            for person in store.objects(Person.self) {
                visited.append(person.id)
                try store.add(Person(id: person.id + 100))
            }
        }
        #expect(visited == [1, 2, 3, 4, 5])
        #expect(store.objects(Person.self).count == 10)
    }

    @Test func changingEveryObjectInALoop() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (0..<1000).map { Item(id: $0, score: 0, name: "n\($0)") }) }
        let items = store.objects(Item.self)
        try store.write {
            for item in items { item.score += 1 }
            for index in 0..<items.count { items[index].score += 1 }
        }
        #expect(items.allSatisfy { $0.score == 2 })
    }

    @Test func objectForPrimaryKeyOfEveryKeyType() throws {
        let fixture = Fixture([Person.self, ByUUID.self, ByInt8.self, AllTypes.self])
        let store = try fixture.open()
        let uuid = ByUUID()
        let small = ByInt8()
        small.id = -5
        let named = AllTypes()
        named.key = "ü-key"
        try store.write {
            try store.add(contentsOf: [uuid as Object, small, named, Person(id: 1 << 40)])
        }
        #expect(store.object(ofType: ByUUID.self, forPrimaryKey: uuid.id)?.id == uuid.id)
        #expect(store.object(ofType: ByUUID.self, forPrimaryKey: UUID()) == nil)
        #expect(store.object(ofType: ByInt8.self, forPrimaryKey: Int8(-5)) != nil)
        #expect(store.object(ofType: ByInt8.self, forPrimaryKey: -5) != nil)  // an Int, converted
        #expect(store.object(ofType: ByInt8.self, forPrimaryKey: 1000) == nil)  // does not fit Int8
        #expect(store.object(ofType: AllTypes.self, forPrimaryKey: "ü-key") != nil)
        #expect(store.object(ofType: Person.self, forPrimaryKey: Int64(1 << 40)) != nil)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 2) == nil)
    }

    @Test func resultsOfADeletedTypeAfterDeleteAll() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: [Note("a"), Note("b")]) }
        let notes = store.objects(Note.self)
        #expect(notes.count == 2)
        try store.write { try store.deleteAll() }
        #expect(notes.isEmpty)
        #expect(notes.first == nil)
        #expect(notes.map(\.text).isEmpty)
    }

    @Test("objects(type) with a type known only as Object.Type hands out objects of that class (it crashed)")
    func objectsOfAnExistentialType() throws {
        let store = try Fixture([Person.self, Dog.self]).open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let type: Object.Type = Person.self
        let found = store.objects(type).map { $0 }
        #expect(found.count == 1)
        #expect((found.first as? Person)?.name == "Ann")
    }
}

@Suite(.fixtureChecks) struct ListTests {
    @Test func valueListOperationsOnAManagedObject() throws {
        let fixture = Fixture([AllTypes.self])
        let store = try fixture.open()
        let object = AllTypes()
        object.ints.append(contentsOf: [1, 2, 3])
        try store.write { try store.add(object) }
        let ints = object.ints
        #expect(ints.isManaged)
        #expect(Array(ints) == [1, 2, 3])
        try store.write {
            ints.append(4)  // 1 2 3 4
            ints.insert(0, at: 0)  // 0 1 2 3 4
            #expect(ints.remove(at: 2) == 2)  // 0 1 3 4
            ints.move(from: 0, to: 3)  // 1 3 4 0
            ints[0] = 10  // 10 3 4 0
            ints.replace(index: 1, with: 30)  // 10 30 4 0
        }
        #expect(Array(object.ints) == [10, 30, 4, 0])
        try store.write { object.ints.removeAll() }
        #expect(object.ints.isEmpty)
        try store.write { object.optionalDoubles.append(contentsOf: [nil, 2.5]) }
        #expect(Array(object.optionalDoubles) == [nil, 2.5])
    }

    @Test func objectListAddsUnmanagedElements() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        try store.write {
            ann.dogs.append(Dog(name: "Rex"))
            ann.dogs.append(Dog(name: "Fido"))
        }
        #expect(store.objects(Dog.self).count == 2)
        #expect(ann.dogs.map(\.name) == ["Rex", "Fido"])
        try store.write { ann.dogs.swapAt(0, 1) }
        #expect(ann.dogs.map(\.name) == ["Fido", "Rex"])
    }

    @Test func aLinkToADeletedObjectReadsAsNil() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let ann = Person(id: 1)
        let rex = Dog(name: "Rex", owner: ann)
        ann.dogs.append(rex)
        try store.write { try store.add(rex) }
        try store.write { try store.delete(ann) }
        #expect(rex.owner == nil)
        try store.write { try store.delete(rex) }
        try store.verify()
    }

    @Test func settingALinkToAnUnmanagedObjectAddsIt() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let rex = Dog(name: "Rex")
        try store.write { try store.add(rex) }
        try store.write { rex.owner = Person(id: 5, name: "Ed") }
        #expect(rex.owner?.name == "Ed")
        #expect(store.object(ofType: Person.self, forPrimaryKey: 5) != nil)
        try store.write { rex.owner = nil }
        #expect(rex.owner == nil)
    }
}
