import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct ObjectModelTests {
    static let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
    static let uuid = UUID(uuidString: "12345678-1234-1234-1234-1234567890AB")!

    /// An object with a non-zero value in every property.
    static func filled(key: String, linking person: Person?) -> AllTypes {
        let object = AllTypes()
        object.key = key
        object.bool = true
        object.int = -42
        object.int8 = -8
        object.int16 = -1600
        object.int32 = .min
        object.int64 = .max
        object.uint8 = 255
        object.uint16 = 65535
        object.uint32 = .max
        object.uint64 = .max
        object.float = 1.5
        object.double = -.pi
        object.string = "héllo, wörld 🌍"
        object.data = Data([0, 1, 2, 255])
        object.date = date
        object.uuid = uuid
        object.decimal = Decimal(string: "-123.456789012345678901234567")!
        object.mood = .sad
        object.level = .low
        object.optBool = false
        object.optInt = 7
        object.optInt8 = -1
        object.optUInt64 = 99
        object.optFloat = -0.25
        object.optDouble = 1e300
        object.optString = ""
        object.optData = Data()
        object.optDate = date
        object.optUUID = uuid
        object.optDecimal = .nan
        object.optMood = .calm
        object.link = person
        object.ints.append(contentsOf: [3, 1, 2])
        object.strings.append(contentsOf: ["a", "", "ü"])
        object.optionalDoubles.append(contentsOf: [1.5, nil, -2])
        object.moods.append(contentsOf: [.happy, .sad])
        if let person { object.people.append(person) }
        object.indexedDate = date
        object.indexedOptionalInt = nil
        object.indexedBool = true
        object.indexedUUID = uuid
        return object
    }

    static func expectFilled(_ object: AllTypes, key: String) {
        #expect(object.key == key)
        #expect(object.bool == true)
        #expect(object.int == -42)
        #expect(object.int8 == -8)
        #expect(object.int16 == -1600)
        #expect(object.int32 == .min)
        #expect(object.int64 == .max)
        #expect(object.uint8 == 255)
        #expect(object.uint16 == 65535)
        #expect(object.uint32 == .max)
        #expect(object.uint64 == .max)
        #expect(object.float == 1.5)
        #expect(object.double == -.pi)
        #expect(object.string == "héllo, wörld 🌍")
        #expect(object.data == Data([0, 1, 2, 255]))
        #expect(object.date == date)
        #expect(object.uuid == uuid)
        #expect(object.decimal == Decimal(string: "-123.456789012345678901234567")!)
        #expect(object.mood == .sad)
        #expect(object.level == .low)
        #expect(object.optBool == false)
        #expect(object.optInt == 7)
        #expect(object.optInt8 == -1)
        #expect(object.optUInt64 == 99)
        #expect(object.optFloat == -0.25)
        #expect(object.optDouble == 1e300)
        #expect(object.optString == "")
        #expect(object.optData == Data())
        #expect(object.optDate == date)
        #expect(object.optUUID == uuid)
        #expect(object.optDecimal?.isNaN == true)
        #expect(object.optMood == .calm)
        #expect(object.link?.id == 5)
        #expect(Array(object.ints) == [3, 1, 2])
        #expect(Array(object.strings) == ["a", "", "ü"])
        #expect(Array(object.optionalDoubles) == [1.5, nil, -2])
        #expect(Array(object.moods) == [.happy, .sad])
        #expect(object.people.map(\.id) == [5])
        #expect(object.indexedDate == date)
        #expect(object.indexedOptionalInt == nil)
        #expect(object.indexedBool == true)
        #expect(object.indexedUUID == uuid)
    }

    @Test func everyValueTypeRoundTripsThroughTheStore() throws {
        let fixture = Fixture([AllTypes.self])
        do {
            let store = try fixture.open()
            let object = Self.filled(key: "k", linking: Person(id: 5, name: "linked"))
            Self.expectFilled(object, key: "k")  // unmanaged: plain Swift storage
            try store.write { try store.add(object) }
            #expect(object.isManaged)
            Self.expectFilled(object, key: "k")  // managed: decoded from the row
            let fetched = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: "k"))
            Self.expectFilled(fetched, key: "k")
            #expect(store.objects(Person.self).count == 1)  // the linked Person was added too
            try store.verify()
        }
        // Reopened from disk, in a fresh process-level environment.
        #expect(fixture.isClosed)
        let reopened = try fixture.open()
        Self.expectFilled(try #require(reopened.object(ofType: AllTypes.self, forPrimaryKey: "k")), key: "k")
    }

    @Test func zeroAndDeclaredDefaults() {
        let object = AllTypes()
        #expect(object.key == "")
        #expect(object.int == 0)
        #expect(object.bool == false)
        #expect(object.double == 0)
        #expect(object.data.isEmpty)
        #expect(object.optInt == nil)
        #expect(object.link == nil)
        #expect(object.ints.isEmpty)
        #expect(object.mood == .happy)  // the first case
        #expect(object.level == .high)  // declared
        #expect(Person().age == 18)
    }

    @Test func unmanagedObjectsArePlainSwiftObjects() {
        let person = Person(id: 1, name: "Ann")
        #expect(!person.isManaged)
        #expect(!person.isInvalidated)
        #expect(person.store == nil)
        let moved = Unchecked(person)  // unmanaged objects are not confined
        let sameValues = onAnotherThread {
            moved.value.name = "Bea"
            return moved.value.name
        }
        #expect(sameValues == "Bea")
        person.dogs.append(Dog(name: "Rex"))
        #expect(person.dogs.count == 1)
        #expect(!person.dogs.isManaged)
    }

    @Test func schemaIsDiscoveredOnceAndCached() throws {
        let first = try ObjectSchema.of(Person.self)
        let second = try ObjectSchema.of(Person.self)
        #expect(first === second)
        #expect(first.properties.map(\.name) == ["id", "name", "age", "email", "dogs"])
        #expect(first.primaryKey?.name == "id")
        #expect(first.properties[1].isIndexed)
        #expect(first.properties[3].type == .optional(.string))
        #expect(first.properties[4].type == .list(.link("Dog")))
    }

    @Test func subclassesStoreInheritedProperties() throws {
        let schema = try ObjectSchema.of(Cat.self)
        #expect(schema.properties.map(\.name) == ["id", "legs", "indoor"])
        let fixture = Fixture([Cat.self])
        let store = try fixture.open()
        let cat = Cat()
        cat.id = 3
        cat.legs = 3
        try store.write { try store.add(cat) }
        let fetched = try #require(store.object(ofType: Cat.self, forPrimaryKey: 3))
        #expect(fetched.legs == 3)
        #expect(fetched.indoor)
    }

    @Test func linkedTypesJoinTheSchema() throws {
        let fixture = Fixture([Person.self])  // Dog only through Person.dogs
        let store = try fixture.open()
        try store.write { try store.add(Dog(name: "Rex")) }
        #expect(store.objects(Dog.self).count == 1)
    }

    @Test func invalidModelsAreRejected() throws {
        #expect { try ObjectSchema.of(TwoPrimaryKeys.self) } throws: { isCase($0, .schemaMismatch("")) }
        #expect { try ObjectSchema.of(NothingPersisted.self) } throws: { isCase($0, .schemaMismatch("")) }
        let fixture = Fixture([TwoPrimaryKeys.self])
        #expect { try fixture.open() } throws: { isCase($0, .schemaMismatch("")) }
        let empty = Fixture([])
        #expect { try empty.open() } throws: { isCase($0, .invalidArgument("")) }
    }

    @Test func descriptionShowsValues() throws {
        let person = Person(id: 1, name: "Ann")
        #expect(person.description == #"Person { id = 1; name = "Ann"; age = 18; email = nil; dogs = [] }"#)
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(person) }
        #expect(person.description.contains(#"name = "Ann""#))
    }
}
