import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct QueryTests {
    /// Ann 30, bob 17, Cy 45 (no email), Dee 17, Eve 62; Rex and Fido belong to Ann, Spot to nobody.
    private func populated() throws -> (Fixture, Store) {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            let people = [(1, "Ann", 30), (2, "bob", 17), (3, "Cy", 45), (4, "Dee", 17), (5, "Eve", 62)].map {
                Person(id: $0.0, name: $0.1, age: $0.2)
            }
            for person in people where person.id != 3 { person.email = "\(person.name.lowercased())@example.com" }
            try store.add(contentsOf: people)
            people[0].dogs.append(contentsOf: [Dog(name: "Rex", owner: people[0]), Dog(name: "Fido", owner: people[0])])
            try store.add(Dog(name: "Spot"))
        }
        return (fixture, store)
    }

    @Test func theDesignExampleQuery() throws {
        let (_, store) = try populated()
        let found = store.objects(Person.self).where { $0.age >= 18 && ($0.name.starts(with: "A") || $0.email == nil) }
        #expect(found.map(\.id) == [1, 3])
        #expect(found.count == 2)
        #expect(found.first?.id == 1)
        #expect(found.last?.id == 3)
        #expect(found[1].name == "Cy")
    }

    @Test func resultsStayLiveAfterWrites() throws {
        let (_, store) = try populated()
        let minors = store.objects(Person.self).where { $0.age < 18 }
        #expect(minors.map(\.id) == [2, 4])
        try store.write {
            store.object(ofType: Person.self, forPrimaryKey: 2)!.age = 18
            #expect(minors.map(\.id) == [4])  // inside the write as well
            try store.add(Person(id: 9, name: "Kid", age: 3))
            #expect(minors.map(\.id) == [4, 9])
        }
        #expect(minors.map(\.id) == [4, 9])
        try store.write { try store.delete(store.object(ofType: Person.self, forPrimaryKey: 4)!) }
        #expect(minors.map(\.id) == [9])
        #expect(minors.count == 1)
    }

    @Test func resultsAreLazyUntilRead() throws {
        let (_, store) = try populated()
        var calls = 0
        let filtered = store.objects(Person.self).filter { _ in
            calls += 1
            return true
        }
        #expect(calls == 0)
        #expect(filtered.count == 5)
        #expect(calls == 5)
        _ = filtered.count  // cached for the snapshot
        #expect(calls == 5)
    }

    @Test func queriesThroughLinksAndLists() throws {
        let (_, store) = try populated()
        let dogs = store.objects(Dog.self)
        #expect(dogs.where { $0.owner.name == "Ann" }.map(\.name).sorted() == ["Fido", "Rex"])
        #expect(dogs.where { $0.owner.age > 40 }.isEmpty)
        #expect(dogs.where { $0.owner == nil }.map(\.name) == ["Spot"])
        #expect(dogs.where { $0.owner != nil }.count == 2)
        let people = store.objects(Person.self)
        #expect(people.where { $0.dogs.count == 2 }.map(\.id) == [1])
        #expect(people.where { $0.dogs.count == 0 }.count == 4)
        let rex = dogs.where { $0.name == "Rex" }.first!
        #expect(people.where { $0.dogs.contains(rex) }.map(\.id) == [1])
        #expect(people.where { !$0.dogs.contains(rex) }.count == 4)
        #expect(people.where { $0.dogs.contains(Dog(name: "unmanaged")) }.isEmpty)
    }

    @Test func stringOperators() throws {
        let (_, store) = try populated()
        let people = store.objects(Person.self)
        #expect(people.where { $0.name.starts(with: "b") }.map(\.id) == [2])
        #expect(people.where { $0.name.starts(with: "B", options: .caseInsensitive) }.map(\.id) == [2])
        #expect(people.where { $0.name.ends(with: "E", options: .caseInsensitive) }.map(\.id) == [4, 5])
        #expect(people.where { $0.name.contains("n") }.map(\.id) == [1])
        #expect(people.where { $0.email.contains("@example") }.count == 4)
        #expect(people.where { $0.name.in(["Cy", "Eve", "nobody"]) }.map(\.id) == [3, 5])
        #expect(people.where { $0.name < "a" }.map(\.id) == [1, 3, 4, 5])  // UTF-8 order: uppercase first
    }

    @Test func queryPlanNamesTheIndexItUses() throws {
        let (_, store) = try populated()
        let people = store.objects(Person.self)
        #expect(people.where { $0.name == "Ann" }.queryPlan.access == .index(property: "name", ranges: 1))
        #expect(people.where { $0.name.in(["Ann", "Cy"]) }.queryPlan.access == .index(property: "name", ranges: 2))
        #expect(people.where { $0.id >= 2 && $0.id < 4 }.queryPlan.access == .primaryKey(ranges: 1))
        #expect(people.where { $0.id >= 2 && $0.id < 4 }.map(\.id) == [2, 3])
        #expect(people.where { $0.age > 20 }.queryPlan.access == .scan)
        #expect(people.where { $0.age > 20 || $0.name == "Ann" }.queryPlan.index == nil)
        #expect(people.where { $0.age > 20 && $0.name == "Ann" }.queryPlan.index == "name")
        #expect(people.where { $0.name != "Ann" }.queryPlan.access == .scan)
        let plan = people.where { $0.name == "Ann" }.sorted(by: \.age).queryPlan
        #expect(plan.description == "index Person.name: 1 range, then test name == Ann, then radix sort by age")
        #expect(plan.route == .collected)
        #expect(people.where { $0.id == 3 }.map(\.name) == ["Cy"])
        #expect(people.where { $0.id == 99 }.isEmpty)
    }

    @Test func sortingByOneAndSeveralKeys() throws {
        let (_, store) = try populated()
        let people = store.objects(Person.self)
        #expect(people.sorted(by: \.name).map(\.name) == ["Ann", "Cy", "Dee", "Eve", "bob"])
        #expect(people.sorted(by: \.age, ascending: false).map(\.id) == [5, 3, 1, 2, 4])
        #expect(people.sorted(by: [SortKey(\.age), SortKey(\.name, ascending: false)]).map(\.id) == [2, 4, 1, 3, 5])
        #expect(people.sorted(by: \.email).map(\.id) == [3, 1, 2, 4, 5])  // nil first
        let sortedMinors = people.where { $0.age < 40 }.sorted(by: \.name, ascending: false)
        #expect(sortedMinors.map(\.id) == [2, 4, 1])
        try store.write { try store.add(Person(id: 7, name: "Abe", age: 1)) }
        #expect(sortedMinors.map(\.id) == [2, 4, 1, 7])
        #expect(sortedMinors.index(of: store.object(ofType: Person.self, forPrimaryKey: 7)!) == 3)
        #expect(sortedMinors.index(of: store.object(ofType: Person.self, forPrimaryKey: 5)!) == nil)
        #expect(sortedMinors.index(of: Person(id: 7)) == nil)
        let dogs = store.objects(Dog.self)
        #expect(dogs.sorted(by: \.owner?.name).map(\.name).first == "Spot")
    }

    @Test func distinctKeepsTheFirstOfEachValue() throws {
        let (_, store) = try populated()
        let people = store.objects(Person.self)
        #expect(people.distinct(by: [\.age]).map(\.id) == [1, 2, 3, 5])
        #expect(people.sorted(by: \.age, ascending: false).distinct(by: [\.age]).map(\.id) == [5, 3, 1, 2])
        #expect(people.distinct(by: [\.age, \.name]).count == 5)
        #expect(store.objects(Dog.self).distinct(by: [\.owner]).count == 2)  // the link itself: nil is a value
        // Through a link, an object whose link is nil is left out, as in Realm (Spot was kept).
        let byOwnerID = store.objects(Dog.self).distinct(by: [\.owner?.id])
        #expect(byOwnerID.count == 1)
        #expect(byOwnerID.allSatisfy { $0.owner?.id == 1 })
        #expect(store.objects(Dog.self).distinct(by: [\.owner?.name, \.name]).map(\.name).sorted() == ["Fido", "Rex"])
    }

    @Test func aggregates() throws {
        let (_, store) = try populated()
        let people = store.objects(Person.self)
        #expect(people.min(of: \.age) == 17)
        #expect(people.max(of: \.age) == 62)
        #expect(people.sum(of: \.age) == 171)
        #expect(people.average(of: \.age) == 171.0 / 5)
        #expect(people.max(of: \.name) == "bob")
        #expect(people.min(of: \.email) == "ann@example.com")
        let none = people.where { $0.age > 100 }
        #expect(none.min(of: \.age) == nil)
        #expect(none.sum(of: \.age) == 0)
        #expect(none.average(of: \.age) == nil)
        let fixture = Fixture([AllTypes.self, Person.self])
        let other = try fixture.open()
        try other.write {
            for (index, value) in [nil, 2.5, nil, -1.0].enumerated() {
                let object = AllTypes()
                object.key = "\(index)"
                object.optDouble = value
                object.decimal = Decimal(index)
                try other.add(object)
            }
        }
        let all = other.objects(AllTypes.self)
        #expect(all.min(of: \.optDouble) == -1)
        #expect(all.max(of: \.optDouble) == 2.5)
        #expect(all.sum(of: \.optDouble) == 1.5)
        #expect(all.average(of: \.optDouble) == 0.75)
        #expect(all.sum(of: \.decimal) == 6)
        #expect(all.average(of: \.decimal) == 1.5)
        #expect(all.where { $0.optDouble == nil }.min(of: \.optDouble) == nil)
    }

    @Test func firstWhereAndFilterEscapeHatch() throws {
        let (_, store) = try populated()
        let people = store.objects(Person.self)
        #expect(people.first(where: { $0.name.count == 3 && $0.age > 40 })?.id == 5)
        let evenIDs = people.filter { $0.id % 2 == 0 }
        #expect(evenIDs.map(\.id) == [2, 4])
        #expect(evenIDs.where { $0.age > 16 }.sorted(by: \.name).map(\.id) == [4, 2])
        try store.write { try store.delete(evenIDs) }
        #expect(people.count == 3)
        #expect(evenIDs.isEmpty)
    }

    @Test func iteratingAQueryWhileDeletingVisitsTheHeldObjects() throws {
        let (_, store) = try populated()
        let minors = store.objects(Person.self).where { $0.age < 18 }
        var visited: [Int] = []
        try store.write {
            for person in minors {
                visited.append(person.id)
                try store.delete(person)
            }
        }
        #expect(visited == [2, 4])
        #expect(minors.isEmpty)
    }

    @Test func queriesOnOtherKeyTypesAndValues() throws {
        let fixture = Fixture([AllTypes.self, Person.self])
        let store = try fixture.open()
        let date = Date(timeIntervalSince1970: 1_000_000)
        try store.write {
            for index in 0..<20 {
                let object = AllTypes()
                object.key = String(format: "k%02d", index)
                object.indexedDate = date.addingTimeInterval(Double(index - 10))
                object.indexedOptionalInt = index % 3 == 0 ? nil : index
                object.indexedBool = index % 2 == 0
                object.mood = index % 2 == 0 ? .calm : .happy
                object.optMood = index % 4 == 0 ? .sad : nil
                object.int8 = Int8(index - 10)
                object.uint64 = UInt64(index) << 60
                object.ints.append(contentsOf: [index, index * 2])
                try store.add(object)
            }
        }
        let all = store.objects(AllTypes.self)
        #expect(all.where { $0.key >= "k05" && $0.key < "k08" }.map(\.key) == ["k05", "k06", "k07"])
        #expect(all.where { $0.key.starts(with: "k1") }.queryPlan.access == .primaryKey(ranges: 1))
        #expect(all.where { $0.key.starts(with: "k1") }.count == 10)
        #expect(all.where { $0.indexedDate < date }.count == 10)
        #expect(all.where { $0.indexedDate < date }.queryPlan.index == "indexedDate")
        #expect(all.where { $0.indexedOptionalInt == nil }.count == 7)
        #expect(all.where { $0.indexedOptionalInt > 15 }.map(\.key) == ["k16", "k17", "k19"])
        #expect(all.where { $0.indexedBool == true }.count == 10)
        #expect(all.where { $0.mood == .calm && $0.optMood == .sad }.count == 5)
        #expect(all.where { $0.optMood != nil }.count == 5)
        #expect(all.where { $0.int8 < 0 }.count == 10)
        #expect(all.where { $0.uint64 >= 1 << 63 }.count == 8)  // 8...15; 16... wrap to small values
        #expect(all.where { $0.ints.contains(38) }.map(\.key) == ["k19"])
        #expect(all.where { $0.ints.count == 2 }.count == 20)
    }
}
