import Foundation
import Strata
import StrataTestSupport
import Testing

/// Opening a file from its stored schema alone (what the `strata` CLI does).
@Suite(.fixtureChecks) struct DynamicStoreTests {
    /// A store with two owners, three dogs (links, a List, backlinks) and one object of every type.
    private func populated() throws -> Fixture {
        let fixture = Fixture([Person.self, Dog.self, AllTypes.self])
        let store = try fixture.open()
        try store.write {
            let ann = Person(id: 1, name: "Ann")
            let bob = Person(id: -2, name: "Bob")
            ann.email = "ann@example.com"
            for name in ["Rex", "Fido", "Bella"] {
                let dog = Dog(name: name)
                dog.owner = name == "Bella" ? bob : ann
                ann.dogs.append(dog)
            }
            try store.add(ann)
            try store.add(bob)
            let all = AllTypes()
            all.key = "every type"
            all.ints.append(contentsOf: [3, 1, 2])
            all.optInt = nil
            all.decimal = Decimal(string: "12.50")!
            all.link = ann
            try store.add(all)
        }
        return fixture
    }

    @Test func itReadsTheSchemaAndTheObjectsWithoutTheModelClasses() throws {
        let fixture = try populated()
        let file = try DynamicStore(path: fixture.path)
        #expect(Set(file.types.map(\.name)) == ["Person", "Dog", "AllTypes"])
        let person = try #require(file.types.first { $0.name == "Person" })
        #expect(person.primaryKey?.name == "id")
        #expect(person.properties.map(\.name) == ["id", "name", "age", "email", "dogs"])  // no LinkingObjects column
        #expect(person.properties.first { $0.name == "name" }?.isIndexed == true)
        #expect(person.properties.first { $0.name == "dogs" }?.typeName == "List<Dog>")
        #expect(person.properties.first { $0.name == "dogs" }?.linkedTypeName == "Dog")

        #expect(try file.count(ofType: "Person") == 2)
        #expect(try file.count(ofType: "Dog") == 3)
        let people = try file.objects(ofType: "Person")
        #expect(people.map(\.primaryKey) == ["-2", "1"])  // key order, signed keys readable
        let ann = people[1]
        #expect(ann["name"] as? String == "Ann")
        #expect(ann["age"] as? Int == 18)
        #expect(ann["email"] as? String == "ann@example.com")
        #expect(people[0]["email"] == nil)
        let dogs = try #require(ann["dogs"] as? [Any])
        #expect(dogs.count == 3)
        #expect((dogs.first as? DynamicLink)?.typeName == "Dog")
        let rex = try #require(try file.objects(ofType: "Dog").first { $0["name"] as? String == "Rex" })
        let dogKeys = dogs.compactMap { $0 as? DynamicLink }.map(\.primaryKey)
        #expect(dogKeys.contains(rex.primaryKey))
        #expect(rex["owner"] as? DynamicLink == DynamicLink(typeName: "Person", primaryKey: "1"))

        let all = try #require(try file.objects(ofType: "AllTypes").first)
        #expect(all.primaryKey == "every type")
        #expect(all["ints"] as? [Int] == [3, 1, 2])
        #expect(all["decimal"] as? Decimal == Decimal(string: "12.50"))
        #expect(all["level"] as? Int != nil)  // enums read as their raw values
        #expect(all.values.count == file.types.first { $0.name == "AllTypes" }?.properties.count)
        #expect(all.description.hasPrefix("AllTypes(every type) { key: \"every type\""))
    }

    @Test func anUnknownTypeIsAnInvalidArgument() throws {
        let fixture = try populated()
        let file = try DynamicStore(path: fixture.path)
        #expect { try file.count(ofType: "Cat") } throws: { isCase($0, .invalidArgument("")) }
        #expect { try file.objects(ofType: "Cat") } throws: { isCase($0, .invalidArgument("")) }
    }

    @Test func itOpensAFileThisProcessHasOpenAsAStore() throws {
        let fixture = try populated()
        let store = try fixture.open()
        let file = try DynamicStore(path: fixture.path)
        try store.write { try store.add(Person(id: 3, name: "Cy")) }
        #expect(try file.count(ofType: "Person") == 3)  // each call reads the newest commit
        try file.verify()
    }

    @Test func verifyPassesOnAGoodFileAndReportsProgressToTheEnd() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for id in 0..<3_000 { try store.add(Person(id: id, name: "p\(id)")) }
        }
        var reports: [VerificationProgress] = []
        try DynamicStore(path: fixture.path).verify { reports.append($0) }
        #expect(reports.first == VerificationProgress(checkedRows: 0, totalRows: 3_000))
        #expect(reports.last == VerificationProgress(checkedRows: 3_000, totalRows: 3_000))
        #expect(reports.count >= 4)  // about every thousand rows
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.checkedRows <= $1.checkedRows })
    }

    @Test func verifyFindsALinkToAMissingObject() throws {
        let fixture = try populated()
        do {
            let store = try fixture.open()
            let rex = try #require(store.objects(Dog.self).where { $0.name == "Rex" }.first)
            try store.write { rex.owner = nil }  // so that only Person.dogs still points to it
            try RawAccess.deleteRowBytes(of: Dog.self, key: RawAccess.key(of: rex), in: store)
        }
        #expect {
            try DynamicStore(path: fixture.path).verify()
        } throws: { error in
            guard case .corrupted(let damage) = error as? StoreError else { return false }
            return damage.contains("Person[1].dogs links to a missing Dog")
        }
    }

    @Test func verifyAndReadingFindADamagedRow() throws {
        let fixture = try populated()
        do {
            let store = try fixture.open()
            let key = RawAccess.keys(of: Person.self, in: store)[1]
            try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { $0[1] = 0x7F }  // column count
        }
        let file = try DynamicStore(path: fixture.path)
        for attempt in [{ _ = try file.verify() }, { _ = try file.objects(ofType: "Person") }] {
            #expect {
                try attempt()
            } throws: { error in
                guard case .corrupted(let damage) = error as? StoreError else { return false }
                return damage.hasPrefix("Person[1]")
            }
        }
    }

    @Test func missingEmptyAndForeignFilesGiveTypedErrors() throws {
        let fixture = Fixture()
        #expect {
            try DynamicStore(path: fixture.path)
        } throws: { error in
            guard case .fileAccess(_, let code) = error as? StoreError else { return false }
            return code == ENOENT
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.path))  // nothing created
        _ = FileManager.default.createFile(atPath: fixture.path, contents: Data())
        #expect { try DynamicStore(path: fixture.path) } throws: { isCase($0, .corrupted("")) }
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: fixture.path))
        #expect { try DynamicStore(path: fixture.path) } throws: { isCase($0, .corrupted("")) }
    }

    @Test func compactFileShrinksAFileAndKeepsEveryObject() throws {
        let fixture = Fixture([Person.self, Dog.self])
        do {
            let store = try fixture.open()
            try store.write {
                for id in 0..<4_000 { try store.add(Person(id: id, name: String(repeating: "x", count: 200))) }
            }
            try store.write { try store.delete(store.objects(Person.self).where { $0.id >= 100 }) }
            #expect {
                try DynamicStore.compactFile(atPath: fixture.path)
            } throws: { error in  // open in this process
                guard case .fileAccess(_, let code) = error as? StoreError else { return false }
                return code == EBUSY
            }
        }
        let (before, after) = try DynamicStore.compactFile(atPath: fixture.path)
        #expect(after * 4 < before)
        let file = try DynamicStore(path: fixture.path)
        #expect(try file.count(ofType: "Person") == 100)
        try file.verify()
    }
}
