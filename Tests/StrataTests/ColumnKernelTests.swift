import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The scan loops that read rows a batch at a time (`RowBatch`, 64 rows per call into C) and one
/// column of each (`ColumnLocator`, `ColumnTestKernel`): every row counted once across batch
/// boundaries, rows of every offset width read, the same answers as the objects give.
@Suite(.fixtureChecks) struct ColumnKernelTests {
    /// Items 0..<count; every seventh has a name long enough (300 bytes) that its row's offsets are
    /// 2 bytes wide, so that the locator's general path runs beside its 1-byte path.
    static func items(_ count: Int, in fixture: Fixture) throws -> Store {
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for id in 0..<count {
                let name = id % 7 == 0 ? String(repeating: "é", count: 150) : "n\(id % 11)"
                try store.add(Item(id: id, score: Double(id % 10) - 0.5, name: name))
            }
        }
        return store
    }

    @Test(arguments: [0, 1, 63, 64, 65, 127, 128, 129, 300])
    func countsAndValuesAcrossBatchBoundaries(count: Int) throws {
        let fixture = Fixture([Item.self])
        let store = try Self.items(count, in: fixture)
        let items = store.objects(Item.self)
        let all = Array(items).map { (id: $0.id, score: $0.score, name: $0.name) }
        #expect(all.count == count)

        let above = items.where { $0.score > 3 }
        #expect(above.count == all.filter { $0.score > 3 }.count)
        #expect(Array(above.values(of: \.score)) == all.filter { $0.score > 3 }.map(\.score))
        #expect(Array(above.values(of: \.name)) == all.filter { $0.score > 3 }.map(\.name))
        #expect(items.where { $0.name == "n5" }.count == all.filter { $0.name == "n5" }.count)
        #expect(items.where { $0.score <= -0.5 }.count == all.filter { $0.score <= -0.5 }.count)
        #expect(items.sum(of: \.score) == all.reduce(0.0) { $0 + $1.score })
        #expect(items.count == count)
    }

    @Test func anIntegerComparisonUsesItsOwnTestAndAgreesWithTheObjects() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for id in 0..<200 { try store.add(Person(id: id, name: "p\(id)", age: (id * 37) % 90)) }
        }
        let people = store.objects(Person.self)
        for age in [-1, 0, 17, 45, 89, 90] {
            let reference = Array(people).filter { $0.age >= age }.count
            #expect(people.where { $0.age >= age }.count == reference, "age >= \(age)")
            #expect(people.where { $0.age != age }.count == Array(people).filter { $0.age != age }.count)
        }
    }
}
