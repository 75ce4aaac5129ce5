// What the Swift blocks of README.md and Docs/ take as given (scripts/check-doc-snippets.py): "the
// store", "a person", the models the documents share. A block's own declarations shadow these. Only
// compiled, never run.
import Foundation
import Strata

public final class Person: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: true) public var name: String
    @Persisted public var age: Int = 18
    @Persisted public var email: String?
    @Persisted public var score: Double
    @Persisted public var active: Bool
    @Persisted public var dogs: List<Dog>

    public convenience init(id: Int, name: String) {
        self.init()
        self.id = id
        self.name = name
    }
}

public final class Dog: Object {
    @Persisted(primaryKey: true) public var id = UUID()
    @Persisted public var name: String
    @Persisted public var age: Int
    @Persisted(originProperty: "dogs") public var walkers: LinkingObjects<Person>
}

public final class Book: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var title: String
    @Persisted public var year: Int
    @Persisted public var lent: Bool
}

public final class Player: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var score: Double
    @Persisted public var level: Int
}

public final class Todo: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var title: String
    @Persisted public var done: Bool
    @Persisted public var priority: Int
    @Persisted public var ownerID: String
    @Persisted public var listID: String?

    public convenience init(id: Int, title: String) {
        self.init()
        self.id = id
        self.title = title
    }
}

public final class Item: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var score: Double
}

/// A stand-in for a table view of a UI toolkit.
public final class TableView: Sendable {
    public func reload<C: Collection>(_ rows: C) {}
    public func performBatchUpdates(deletions: [Int], insertions: [Int], modifications: [Int]) {}
}

public let directory = FileManager.default.temporaryDirectory
public let url = directory.appendingPathComponent("app.strata")
public let backupURL = directory.appendingPathComponent("backup.strata")
public let configuration = Store.Configuration(
    fileURL: url, objectTypes: [Person.self, Dog.self, Book.self, Player.self, Todo.self, Item.self])
nonisolated(unsafe) public var config = configuration
public let secret = "password"
nonisolated(unsafe) public let store = try! Store(configuration: configuration)
nonisolated(unsafe) public let person = Person(id: 1, name: "Ann")
nonisolated(unsafe) public let ann = person
nonisolated(unsafe) public let a = Person(id: 2, name: "A")
nonisolated(unsafe) public let b = Person(id: 3, name: "B")
nonisolated(unsafe) public let rex = Dog()
nonisolated(unsafe) public let fido = Dog()
nonisolated(unsafe) public let spot = Dog()
nonisolated(unsafe) public let people = store.objects(Person.self)
nonisolated(unsafe) public let adults = people.where { $0.age >= 18 }
public let tableView = TableView()
public let pool = try! StorePool(configuration: configuration)

public func notifySomeone() async {}

extension Person {
    /// The section key of the sections examples.
    public var firstLetter: String { name.first.map(String.init) ?? "" }
}
