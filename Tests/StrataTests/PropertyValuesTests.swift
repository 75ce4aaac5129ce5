import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Counts the accessors made, to show which reads make none.
final class Counted: Object {
    nonisolated(unsafe) static var made = 0
    @Persisted(primaryKey: true) var id: Int
    @Persisted var score: Double
    @Persisted var bonus: Int?

    required init() {
        super.init()
        Counted.made += 1
    }

    var doubled: Double { score * 2 }
}

/// `values(of:)` reads a column without objects; aggregates read it the same way.
@Suite(.fixtureChecks, .serialized) struct PropertyValuesTests {
    static func counted(_ count: Int, _ fixture: Fixture) throws -> Store {
        let store = try fixture.open()
        try store.write {
            for id in 1...count {
                let object = Counted()
                object.id = id
                object.score = Double(id) / 4
                object.bonus = id % 3 == 0 ? nil : id
                try store.add(object)
            }
        }
        return store
    }

    @Test func valuesOfAColumnMatchTheObjectsAndMakeNoObject() throws {
        let fixture = Fixture([Counted.self])
        let store = try Self.counted(50, fixture)
        let results = store.objects(Counted.self)
        let expectedScores = (1...50).map { Double($0) / 4 }
        let expectedBonuses = (1...50).map { $0 % 3 == 0 ? nil : $0 }
        // Making the sequences resolves their key paths (on recorder objects), once per key path.
        let scoreValues = results.values(of: \.score)
        let bonusValues = results.values(of: \.bonus)
        let idValues = results.values(of: \.id)
        let before = Counted.made
        let scores = Array(scoreValues)
        let bonuses = Array(bonusValues)
        let ids = Array(idValues)
        #expect(Counted.made == before)
        #expect(scores == expectedScores)
        #expect(bonuses == expectedBonuses)
        #expect(ids == Array(1...50))
    }

    @Test func aggregatesReadTheColumnAndMakeNoObject() throws {
        let fixture = Fixture([Counted.self])
        let store = try Self.counted(40, fixture)
        let results = store.objects(Counted.self)
        _ = (results.values(of: \.score), results.values(of: \.bonus))  // resolves the key paths
        let before = Counted.made
        let sum = results.sum(of: \.score)
        let bonusSum = results.sum(of: \.bonus)
        let minimum = results.min(of: \.score)
        let maximum = results.max(of: \.bonus)
        let mean = results.average(of: \.score)
        let bonusMean = results.average(of: \.bonus)
        #expect(Counted.made == before)
        let bonuses = (1...40).filter { $0 % 3 != 0 }
        let scores: [Double] = (1...40).map { Double($0) / 4 }
        let scoreTotal: Double = scores.reduce(0, +)
        #expect(sum == scoreTotal)
        #expect(bonusSum == bonuses.reduce(0, +))
        #expect(minimum == 0.25)
        #expect(maximum == 40)
        #expect(mean == scoreTotal / 40)
        #expect(bonusMean == Double(bonuses.reduce(0, +)) / Double(bonuses.count))
    }

    @Test func aQueryGivesItsValuesInItsOrder() throws {
        let fixture = Fixture([Counted.self])
        let store = try Self.counted(30, fixture)
        let query = store.objects(Counted.self).where { $0.score > 5 }.sorted(by: \.score, ascending: false)
        #expect(Array(query.values(of: \.id)) == Array((21...30).reversed()))
        #expect(query.sum(of: \.id) == (21...30).reduce(0, +))
        #expect(query.min(of: \.score) == 5.25)
        #expect(store.objects(Counted.self).where { $0.score > 100 }.average(of: \.score) == nil)
        #expect(store.objects(Counted.self).where { $0.score > 100 }.sum(of: \.score) == 0)
    }

    @Test func aKeyPathThatIsNoColumnIsReadThroughOneReusedObject() throws {
        let fixture = Fixture([Counted.self])
        let store = try Self.counted(20, fixture)
        let values = store.objects(Counted.self).values(of: \.doubled)
        let before = Counted.made
        let doubled = Array(values)
        #expect(doubled == (1...20).map { Double($0) / 2 })
        #expect(Counted.made == before + 1)
    }

    @Test func valuesOfLinksAndListsComeThroughTheObjects() throws {
        let fixture = Fixture([Person.self, Dog.self, Note.self])
        let store = try fixture.open()
        try store.write {
            let owner = Person(id: 1, name: "ann")
            try store.add(owner)
            for name in ["a", "b"] {
                let dog = Dog()
                dog.name = name
                dog.owner = name == "a" ? owner : nil
                try store.add(dog)
            }
            owner.dogs.append(objectsIn: store.objects(Dog.self))
        }
        let owners = store.objects(Dog.self).sorted(by: \.name).values(of: \.owner).map { $0?.id }
        #expect(owners == [1, nil])
        #expect(store.objects(Person.self).values(of: \.dogs).map(\.count) == [2])
    }

    @Test func writingWhileReadingValuesVisitsTheValuesHeldWhenItBegan() throws {
        let fixture = Fixture([Counted.self])
        let store = try Self.counted(10, fixture)
        var seen: [Int] = []
        try store.write {
            for id in store.objects(Counted.self).values(of: \.id) {
                seen.append(id)
                if id == 3 {
                    try store.delete(store.objects(Counted.self).where { $0.id == 7 })
                    let added = Counted()
                    added.id = 11
                    try store.add(added)
                }
            }
        }
        #expect(seen == [1, 2, 3, 4, 5, 6, 8, 9, 10])  // 7 deleted before it was reached; 11 came later
    }

    @Test func anIteratorOfValuesKeepsItsStoreOpen() throws {
        let fixture = Fixture([Counted.self])
        _ = try Self.counted(10, fixture)  // that Store is gone
        var iterator = try fixture.open().objects(Counted.self).values(of: \.id).makeIterator()
        var ids: [Int] = []
        while let id = iterator.next() { ids.append(id) }  // the iterator alone holds the Store
        #expect(ids == Array(1...10))
    }

    @Test func iteratingWithoutKeepingMakesOneObject() throws {
        let fixture = Fixture([Counted.self])
        let store = try Self.counted(100, fixture)
        let before = Counted.made
        var total = 0.0
        for object in store.objects(Counted.self) { total += object.score }
        #expect(Counted.made == before + 1)
        #expect(total == (1...100).map { Double($0) / 4 }.reduce(0, +))
        let filtered = store.objects(Counted.self).where { $0.id > 50 }
        let beforeQuery = Counted.made
        var ids: [Int] = []
        for object in filtered { ids.append(object.id) }
        #expect(Counted.made == beforeQuery + 1)
        #expect(ids == Array(51...100))
    }
}
