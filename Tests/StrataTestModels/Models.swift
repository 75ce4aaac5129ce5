import Foundation
import Strata

public final class Person: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: true) public var name: String
    @Persisted public var age: Int = 18
    @Persisted public var email: String?
    @Persisted public var dogs: List<Dog>
    @Persisted(originProperty: "owner") public var ownedDogs: LinkingObjects<Dog>

    public convenience init(id: Int, name: String = "", age: Int = 18) {
        self.init()
        self.id = id
        self.name = name
        self.age = age
    }
}

public final class Dog: Object {
    @Persisted(primaryKey: true) public var id = UUID()
    @Persisted public var name: String
    @Persisted public var owner: Person?
    @Persisted(originProperty: "dogs") public var walkers: LinkingObjects<Person>

    public convenience init(name: String, owner: Person? = nil) {
        self.init()
        self.name = name
        self.owner = owner
    }
}

/// No primary key: rows are kept in insertion order.
public final class Note: Object {
    @Persisted public var text: String

    public convenience init(_ text: String) {
        self.init()
        self.text = text
    }
}

public enum Mood: String, PersistableEnum {
    case happy, sad, calm
}

public enum Level: Int, PersistableEnum {
    case low = 1
    case high = 10
}

/// Every value type `@Persisted` stores (Docs/Queries.md, README), optional and not, and lists.
public final class AllTypes: Object {
    @Persisted(primaryKey: true) public var key: String
    @Persisted public var bool: Bool
    @Persisted public var int: Int
    @Persisted public var int8: Int8
    @Persisted public var int16: Int16
    @Persisted public var int32: Int32
    @Persisted public var int64: Int64
    @Persisted public var uint8: UInt8
    @Persisted public var uint16: UInt16
    @Persisted public var uint32: UInt32
    @Persisted public var uint64: UInt64
    @Persisted public var float: Float
    @Persisted public var double: Double
    @Persisted public var string: String
    @Persisted public var data: Data
    @Persisted public var date: Date
    @Persisted public var uuid: UUID
    @Persisted public var decimal: Decimal
    @Persisted public var mood: Mood
    @Persisted public var level: Level = .high
    @Persisted public var optBool: Bool?
    @Persisted public var optInt: Int?
    @Persisted public var optInt8: Int8?
    @Persisted public var optUInt64: UInt64?
    @Persisted public var optFloat: Float?
    @Persisted public var optDouble: Double?
    @Persisted public var optString: String?
    @Persisted public var optData: Data?
    @Persisted public var optDate: Date?
    @Persisted public var optUUID: UUID?
    @Persisted public var optDecimal: Decimal?
    @Persisted public var optMood: Mood?
    @Persisted public var link: Person?
    @Persisted public var ints: List<Int>
    @Persisted public var strings: List<String>
    @Persisted public var optionalDoubles: List<Double?>
    @Persisted public var moods: List<Mood>
    @Persisted public var people: List<Person>
    @Persisted(indexed: true) public var indexedDate: Date
    @Persisted(indexed: true) public var indexedOptionalInt: Int?
    @Persisted(indexed: true) public var indexedBool: Bool
    @Persisted(indexed: true) public var indexedUUID: UUID
}

/// Keys of other types.
public final class ByUUID: Object {
    @Persisted(primaryKey: true) public var id = UUID()
    @Persisted public var value: Int
}

public final class ByInt8: Object {
    @Persisted(primaryKey: true) public var id: Int8
    @Persisted public var value: Int
}

public final class ByUInt64: Object {
    @Persisted(primaryKey: true) public var id: UInt64
    @Persisted public var value: Int
}

/// A class hierarchy: the subclass stores the superclass's properties too.
public class Animal: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var legs: Int = 4
}

public final class Cat: Animal {
    @Persisted public var indoor: Bool = true
}

public final class Blob: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var payload: Data

    public convenience init(id: Int, bytes: Int) {
        self.init()
        self.id = id
        payload = Data(repeating: UInt8(truncatingIfNeeded: id), count: bytes)
    }
}

/// The benchmark record.
public final class Item: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var score: Double
    @Persisted public var name: String

    public convenience init(id: Int, score: Double, name: String) {
        self.init()
        self.id = id
        self.score = score
        self.name = name
    }
}

/// Invalid models.
public final class TwoPrimaryKeys: Object {
    @Persisted(primaryKey: true) public var a: Int
    @Persisted(primaryKey: true) public var b: Int
}

public final class NothingPersisted: Object {
    public var plain = 1
}

/// The queried model of the query tests: indexed properties (`name`, `age`, `nickname`) each have an
/// unindexed twin holding the same values (`city`, `years`, `alias`), so index and scan paths can
/// be compared on one query.
public final class Citizen: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: true) public var name: String
    @Persisted public var city: String
    @Persisted(indexed: true) public var age: Int
    @Persisted public var years: Int
    @Persisted(indexed: true) public var nickname: String?
    @Persisted public var alias: String?
    @Persisted public var score: Double
    @Persisted public var rank: Int?
    @Persisted public var active: Bool
    @Persisted public var mood: Mood
    @Persisted public var joined: Date
    @Persisted public var tags: List<String>
    @Persisted public var friends: List<Citizen>
    @Persisted public var town: Town?
}

public final class Town: Object {
    @Persisted(primaryKey: true) public var name: String
    @Persisted public var population: Int

    public convenience init(name: String, population: Int) {
        self.init()
        self.name = name
        self.population = population
    }
}

/// A LinkingObjects whose origin property does not link back.
public final class BadInverse: Object {
    @Persisted public var name: String
    @Persisted(originProperty: "name") public var fans: LinkingObjects<Person>
}
