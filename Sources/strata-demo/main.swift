import Foundation
import Strata

final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int = 18
    @Persisted var email: String?
    @Persisted var dogs: List<Dog>
}
final class Dog: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var name: String
    @Persisted var owner: Person?
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(getpid())")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
var config = Store.Configuration(fileURL: dir.appendingPathComponent("demo.strata"), objectTypes: [Person.self])
let store = try Store(configuration: config)
let ann = Person(); ann.id = 1; ann.name = "Ann"
let rex = Dog(); rex.name = "Rex"; rex.owner = ann
ann.dogs.append(rex)
try store.write { try store.add(ann) }
print(ann, rex)
print(store.objects(Person.self).count, store.objects(Dog.self).count)
try store.write { ann.age = 30; ann.dogs.append(Dog()) }
print(store.object(ofType: Person.self, forPrimaryKey: 1)!)
do { try store.write { let p = Person(); p.id = 1; try store.add(p) } } catch { print("error:", error) }
try store.write { try store.delete(rex) }
print(ann.dogs.count, ann.isInvalidated, rex.isInvalidated)
