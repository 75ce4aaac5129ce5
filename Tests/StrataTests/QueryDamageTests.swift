import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The query engine reads rows in place: a damaged row still stops it with `.corrupted` naming the
/// object, in every path (a count, a sum, a first page, a whole sort, the string language on the dynamic API),
/// and never reads as another value.
@Suite(.fixtureChecks) struct QueryDamageTests {
    /// People 1…`count`, then a flipped byte inside person `damaged`'s stored row (its seal no longer
    /// matches).
    static func damagedStore(_ path: String, count: Int = 20, damaged: Int = 7) -> Store {
        let configuration = Store.Configuration(
            fileURL: URL(fileURLWithPath: path), objectTypes: [Person.self, Dog.self])
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                for id in 1...count { try store.add(Person(id: id, name: "person \(id)", age: id)) }
            }
            let key = RawAccess.key(of: store.object(ofType: Person.self, forPrimaryKey: damaged)!)
            try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { $0[$0.count / 2] ^= 0x20 }
            return store
        } catch {
            fatalError("setting up the child failed: \(error)")
        }
    }

    /// The engine's paths over the damaged table.
    enum Reading: String, Codable, CaseIterable, Sendable {
        case filteredCount, columnSum, firstPage, wholeSort

        func run(_ path: String, damaged: Int) {
            let people = QueryDamageTests.damagedStore(path, count: 200, damaged: damaged).objects(Person.self)
            switch self {
            case .filteredCount: _ = people.where { $0.age > 3 }.count
            case .columnSum: _ = people.sum(of: \.age)
            case .firstPage: _ = people.sorted(by: \.age, ascending: false).prefix(3).map(\.id)
            case .wholeSort: _ = people.sorted(by: \.age, ascending: false).map(\.id)
            }
        }
    }

    /// Person 7 lies in the first batch of rows a scan reads (`RowBatch`, 64 rows), 65 is the first
    /// of the second batch, 130 the second of the third.
    @Test(arguments: Reading.allCases, [7, 65, 130])
    func aReadTrapsNamingTheDamagedObject(_ reading: Reading, damaged: Int) async throws {
        let fixture = Fixture([Person.self, Dog.self])
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = fixture.path as String, reading, damaged] in
            reading.run(path, damaged: damaged)
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.corrupted), "\(reading): \(output)")
        #expect(output.contains("Person[\(damaged)]"), "\(reading), person \(damaged): \(output)")
    }

    /// A read walk's batch stops at a damaged row after reading the pairs beyond it (`RowBatch`): the
    /// cursor must be back on that row, so that a walk detached before reaching it (here by a write of
    /// this Store, in the first or the second batch of 64) still visits every object after it. The
    /// damaged object is visited, not read.
    @Test(arguments: zip([7, 40, 64, 100, 128, 130], [0, 0, 0, 64, 64, 64]))
    func aWalkDetachedBeforeADamagedRowVisitsEveryObjectAfterIt(damaged: Int, detachAt: Int) throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = Self.damagedStore(fixture.path, count: 200, damaged: damaged)
        var visited: [Int] = []
        for (step, person) in store.objects(Person.self).enumerated() {
            if step == detachAt { try store.write { try store.add(Dog(name: "detaches the walk")) } }
            visited.append(step + 1 == damaged ? damaged : person.id)
        }
        #expect(visited == Array(1...200))
    }

    /// A row whose seal matches but whose structure does not (as a bug writing a bad row would leave
    /// it): the null bit of an optional column that holds bytes, not the column the query tests. The
    /// objects the dynamic API returns are read from the rows the engine found, every column checked:
    /// `.corrupted` naming the object, never the email read as nil.
    @Test func theDynamicAPIChecksEveryColumnOfWhatItReturns() throws {
        let fixture = Fixture([Person.self, Dog.self])
        do {
            let store = try fixture.open()
            try store.write {
                for id in 1...20 {
                    let person = Person(id: id, name: "person \(id)", age: id)
                    person.email = "p\(id)@example.com"
                    try store.add(person)
                }
            }
            let key = RawAccess.key(of: store.object(ofType: Person.self, forPrimaryKey: 7)!)
            try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { row in
                let width = Int(row[0])
                let columns = Int(row[1]) | Int(row[2]) << 8
                row[3 + width * columns] |= 1 << 3  // the null bit of column 3, the email
            }
        }
        let file = try DynamicStore(path: fixture.path)
        #expect(try file.objects(ofType: "Person", where: "age < 7").count == 6)
        #expect {
            _ = try file.objects(ofType: "Person", where: "age > 3")
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("Person[7]")
        }
    }

    /// The dynamic API throws (its open check already finds the row): a tool reports the damage.
    @Test func theDynamicAPIThrowsCorrupted() throws {
        let fixture = Fixture([Person.self, Dog.self])
        do {
            _ = Self.damagedStore(fixture.path)
        }
        #expect {
            _ = try DynamicStore(path: fixture.path).objects(ofType: "Person", where: "age > 3")
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("Person")
        }
    }
}
