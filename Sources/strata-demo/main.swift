// strata-demo: opens a store in a temporary directory, adds, queries, updates and deletes a few
// objects, shows typed errors, and prints what it did. Pass a directory to keep the store there.
import Foundation
import Strata

func step(_ title: String) { print("\n== \(title)") }
func say(_ line: String) { print("   \(line)") }

let arguments = CommandLine.arguments.dropFirst()
let keep = !arguments.isEmpty
let directory =
    arguments.first.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(getpid())")

do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { if !keep { try? FileManager.default.removeItem(at: directory) } }

    var configuration = Store.Configuration(fileURL: directory.appendingPathComponent("demo.strata"))
    configuration.objectTypes = [Person.self]  // Dog joins through Person.dogs
    let store = try Store(configuration: configuration)
    print("Strata demo: a store at \(configuration.fileURL!.path)")

    step("1. Add three people and their dogs in one write")
    let ann = Person(id: 1, name: "Ann", age: 34)
    ann.dogs.append(Dog(name: "Rex"))
    let bea = Person(id: 2, name: "Bea", age: 41)
    bea.dogs.append(contentsOf: [Dog(name: "Fido"), Dog(name: "Luna")])
    let cy = Person(id: 3, name: "Cy", age: 27)
    try store.write {
        try store.add(contentsOf: [ann, bea, cy])
        for person in [ann, bea, cy] {
            for dog in person.dogs { dog.owner = person }
        }
    }
    for person in store.objects(Person.self) { say("+ \(person)") }

    step("2. Query")
    let people = store.objects(Person.self)
    say("people: \(people.count), dogs: \(store.objects(Dog.self).count)")
    say("in primary-key order: \(people.map(\.name).joined(separator: ", "))")
    if let found = store.object(ofType: Person.self, forPrimaryKey: 2) {
        say("object(ofType: Person.self, forPrimaryKey: 2) -> \(found.name), dogs: \(found.dogs.map(\.name))")
    }
    let owners = store.objects(Dog.self).compactMap { $0.owner?.name }
    say("dog owners through links: \(owners.sorted().joined(separator: ", "))")

    step("3. Update")
    try store.write { bea.age += 1 }
    say("bea.age = \(bea.age) (the managed object reads the store)")
    let renamed = Person(id: 3, name: "Cyrus", age: 27)
    try store.write { try store.add(renamed, update: .modified) }
    say("add(update: .modified) of Person 3 -> \(store.object(ofType: Person.self, forPrimaryKey: 3)!.name)")

    step("4. Delete")
    let rex = ann.dogs[0]
    try store.write {
        try store.delete(rex)
        try store.delete(ann)
    }
    say("deleted Ann and Rex; people left: \(people.map(\.name).joined(separator: ", "))")
    say("ann.isInvalidated = \(ann.isInvalidated)")

    step("5. Typed errors, nothing half-written")
    do {
        try store.write { try store.add(Person(id: 2, name: "Another Bea", age: 1)) }
    } catch {
        say("add of an existing primary key -> StoreError.\(error)")
    }
    do {
        try store.add(Person(id: 9, name: "Outside", age: 1))
    } catch {
        say("add outside a write -> StoreError.\(error)")
    }
    do {
        try store.write { try store.delete(ann) }
    } catch {
        say("delete of a deleted object -> StoreError.\(error)")
    }
    var tooSmall = configuration
    tooSmall.fileURL = directory.appendingPathComponent("small.strata")
    tooSmall.maximumSize = 1 << 20
    let small = try Store(configuration: tooSmall)
    do {
        let big = Person(id: 1, name: String(repeating: "x", count: 2 << 20), age: 1)
        try small.write { try small.add(big) }
    } catch {
        say("a write past maximumSize (1 MiB) -> StoreError.\(error); stored: \(small.objects(Person.self).count)")
    }
    say("people still: \(people.count), and the file verifies: \((try? store.verify()) != nil)")

    print("\nDone.\(keep ? " The store stays in \(directory.path)." : "")")
} catch {
    print("strata-demo failed: \(error)")
    exit(1)
}
