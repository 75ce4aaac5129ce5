import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Iterating a Results walks a live cursor until something would change the table's keys or the
/// snapshot; then it continues from the keys it had left. Either way it visits exactly the objects
/// the Results held when the iteration began.
@Suite(.fixtureChecks) struct IterationTests {
    static func store(with ids: ClosedRange<Int>, _ fixture: Fixture) throws -> Store {
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: ids.map { Person(id: $0, name: "p\($0)") }) }
        return store
    }

    @Test func deletingDuringAWriteIterationVisitsTheOriginalObjects() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...6, fixture)
        var visited: [(Int, Bool)] = []
        try store.write {
            for person in store.objects(Person.self) {
                if person.isInvalidated {
                    visited.append((-1, true))
                    continue
                }
                visited.append((person.id, false))
                if person.id == 2 {
                    try store.delete(person)  // the current one
                    try store.delete(store.objects(Person.self).filter { $0.id == 5 })  // a later one
                }
            }
        }
        #expect(visited.map(\.0) == [1, 2, 3, 4, -1, 6])
        #expect(store.objects(Person.self).map(\.id) == [1, 3, 4, 6])
        try store.verify()
    }

    @Test func updatingEveryObjectInPlaceKeepsTheIndexes() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...200, fixture)
        try store.write {
            for person in store.objects(Person.self) {
                person.name = "renamed \(person.id)"  // an indexed property: the index moves too
                person.age += person.id
                person.email = person.id % 2 == 0 ? String(repeating: "x", count: 300) : nil  // the row grows
            }
        }
        let people = store.objects(Person.self)
        #expect(people.count == 200)
        #expect(people.allSatisfy { $0.name == "renamed \($0.id)" && $0.age == 18 + $0.id })
        #expect(people.filter { $0.email != nil }.count == 100)
        try store.verify()
    }

    @Test func otherThreadsCommitDuringAReadIterationIsNotSeen() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...5, fixture)
        let configuration = fixture.configuration
        var visited: [Int] = []
        for person in store.objects(Person.self) {
            visited.append(person.isInvalidated ? -1 : person.id)  // deleted meanwhile: visited, invalid
            if !person.isInvalidated, person.id == 2 {
                let added = onAnotherThread { () -> Bool in
                    guard let other = try? Store(configuration: configuration) else { return false }
                    do {
                        try other.write { () throws -> Void in
                            try other.add(Person(id: 100))
                            try other.delete(other.objects(Person.self).filter { $0.id == 4 })
                        }
                        return true
                    } catch {
                        return false
                    }
                }
                #expect(added)
                try store.refresh()  // the snapshot moves in the middle of the walk
            }
        }
        #expect(visited == [1, 2, 3, -1, 5])  // not 100: it came after the iteration began
        #expect(store.objects(Person.self).map(\.id) == [1, 2, 3, 5, 100])
    }

    @Test func aWriteBegunInTheMiddleOfAReadIteration() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...4, fixture)
        var visited: [Int] = []
        for person in store.objects(Person.self) {
            visited.append(person.id)
            try store.write { person.age = 40 }  // begins and commits a write mid-walk
        }
        #expect(visited == [1, 2, 3, 4])
        #expect(store.objects(Person.self).allSatisfy { $0.age == 40 })
    }

    @Test func nestedIterationsAndAbandonedOnes() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...3, fixture)
        var pairs = 0
        try store.write {
            for outer in store.objects(Person.self) {
                for inner in store.objects(Person.self) where inner.id != outer.id {
                    inner.age += 1
                    pairs += 1
                }
            }
            for person in store.objects(Person.self) where person.id == 1 {
                person.age += 100
                break  // abandoned: its cursor closes before the commit
            }
        }
        #expect(pairs == 6)
        #expect(store.objects(Person.self).map(\.age) == [120, 20, 20])
        try store.verify()
    }

    @Test func anIteratorKeptAcrossACommitContinuesFromItsKeys() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...4, fixture)
        try store.beginWrite()
        var iterator = store.objects(Person.self).makeIterator()
        #expect(iterator.next()?.id == 1)
        try store.add(Person(id: 50))
        try store.commitWrite()
        var rest: [Int] = []
        while let person = iterator.next() { rest.append(person.id) }
        #expect(rest == [2, 3, 4])
    }

    @Test func aFailedWriteMidIterationIsReportedNotHidden() throws {
        let fixture = Fixture()
        let store = try Self.store(with: 1...3, fixture)
        defer { LMDBFaults.clear() }
        #expect(throws: StoreError.mapFull) {
            try store.write {
                for person in store.objects(Person.self) {
                    if person.id == 2 {
                        LMDBFaults.inject(.mapFull, into: .put)
                        try store.add(Person(id: 10))
                    }
                }
            }
        }
        #expect(store.objects(Person.self).map(\.id) == [1, 2, 3])
    }
}
