import Foundation
import Strata

final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int = 18
    @Persisted var email: String?
    @Persisted var dogs: List<Dog>

    convenience init(id: Int, name: String, age: Int) {
        self.init()
        self.id = id
        self.name = name
        self.age = age
    }
}

final class Dog: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var name: String
    @Persisted var owner: Person?

    convenience init(name: String) {
        self.init()
        self.name = name
    }
}
