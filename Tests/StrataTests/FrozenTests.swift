import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Frozen values cross tasks and actors", .fixtureChecks)
struct FrozenTests {
    @Test("Results frozen in a pool's read are read by 8 tasks at once, and keep their version")
    func frozenResultsAcrossTasks() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration)
        try await pool.write { store in
            for id in 0..<50 { try store.add(Person(id: id, name: "p\(id)", age: id)) }
        }
        let people = try await pool.read { store in try Frozen(store.objects(Person.self).where { $0.age >= 10 }) }
        try await pool.write { store in try store.add(Person(id: 100, name: "late", age: 99)) }
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { people.value.reduce(0) { $0 + $1.age } }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sums == Array(repeating: (10..<50).reduce(0, +), count: 8))  // not the later commit
        #expect(people.value.isFrozen)
        let detached = await Task.detached { people.value.count }.value
        #expect(detached == 40)
    }

    @Test("an object, a Store: frozen when made, and kept as they are when already frozen")
    func objectsAndStores() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration)
        try await pool.write { store in try store.add(Person(id: 1, name: "Ann")) }
        let (ann, snapshot) = try await pool.read { store in
            let ann = try Frozen(store.object(ofType: Person.self, forPrimaryKey: 1)!)
            return (ann, try Frozen(store))
        }
        #expect(ann.value.isFrozen)
        #expect(snapshot.value.isFrozen)
        let again = try Frozen(ann.value)
        #expect(again.value === ann.value)
        #expect(await Task.detached { ann.value.name }.value == "Ann")
        #expect(await Task.detached { snapshot.value.objects(Person.self).count }.value == 1)
    }

    @Test("what cannot be frozen says why: an object never added, a Results with a filter closure")
    func refusals() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(throws: StoreError.notManaged) { try Frozen(Person(id: 9)) }
        let filtered = store.objects(Person.self).filter { $0.age > 1 }
        #expect(throws: StoreError.invalidArgument("a Results with a filter closure cannot be frozen")) {
            try Frozen(filtered)
        }
    }
}
