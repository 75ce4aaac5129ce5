import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The rows of conditions, and of a whole sort by one numeric property, collected as the cursor walks
/// (`Results.collectedRows`, `CollectedRows`): the matches in key order, and the values read and
/// radix-sorted in the order a plain stable sort of the objects gives — nil first ascending and last
/// descending, ties in key order, 0 equal to -0 — for every column type it reads, with and without
/// a condition, and again after a write.
@Suite(.fixtureChecks) struct CollectedRowsTests {
    static let count = 700

    /// Objects keyed "k000"…, with values drawn from small sets (many ties, nil, both zeros, both
    /// signs, the extremes).
    static func filled(in fixture: Fixture, seed: UInt64 = 7, count: Int = count) throws -> Store {
        let store = try Store(configuration: fixture.configuration)
        var random = SplitMix64(state: seed)
        let doubles: [Double?] = [nil, 0, -0.0, 1.5, -1.5, .infinity, -.infinity, 1e300, -2e-300, 42]
        let ints: [Int?] = [nil, 0, 1, -1, .max, .min, 7]
        try store.write {
            for index in 0..<count {
                let object = AllTypes()
                object.key = String(format: "k%04d", index)
                object.optDouble = doubles.randomElement(using: &random)!
                object.double = object.optDouble ?? 3
                object.optInt = ints.randomElement(using: &random)!
                object.indexedOptionalInt = object.optInt
                object.int = Int(random.next() % 50) - 25
                object.int8 = Int8(truncatingIfNeeded: random.next() % 9) - 4
                object.uint64 = [0, 1, .max, 1 << 63][Int(random.next() % 4)]
                object.float = [Float(-0.0), 0, 2.5, -2.5, .greatestFiniteMagnitude][Int(random.next() % 5)]
                object.optFloat = random.next() % 3 == 0 ? nil : object.float
                object.bool = random.next() % 2 == 0
                object.optBool = random.next() % 3 == 0 ? nil : object.bool
                object.date = Date(timeIntervalSince1970: Double(Int(random.next() % 20)) * 1000 - 9000)
                object.optDate = random.next() % 4 == 0 ? nil : object.date
                try store.add(object)
            }
        }
        return store
    }

    /// The objects' keys sorted by `value` the plain way: stable, nil first ascending, last descending.
    static func reference<V>(
        _ objects: [AllTypes], _ value: (AllTypes) -> V?, ascending: Bool, _ less: (V, V) -> Bool
    ) -> [String] {
        let ordered = objects.enumerated().sorted { lhs, rhs in
            switch (value(lhs.element), value(rhs.element)) {
            case (nil, nil): return lhs.offset < rhs.offset
            case (nil, _): return ascending
            case (_, nil): return !ascending
            case (let a?, let b?):
                if less(a, b) { return ascending }
                if less(b, a) { return !ascending }
                return lhs.offset < rhs.offset
            }
        }
        return ordered.map(\.element.key)
    }

    /// The keys of `results`, checked to come from the collected walk (not the staged path).
    static func sortedKeys(_ results: Results<AllTypes>) throws -> [String] {
        let sorted = try #require(try results.collectedRows())
        #expect(sorted.keys.count == sorted.rows.count)
        let iterated = Array(results)
        #expect(iterated.map { RawAccess.key(of: $0).value } == sorted.keys)
        return iterated.map(\.key)
    }

    @Test(arguments: [true, false])
    func everyNumericColumnTypeSortsAsTheObjectsDo(ascending: Bool) throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try Self.filled(in: fixture)
        let all = store.objects(AllTypes.self)
        let objects = Array(all)
        func check<V: Comparable & _QueryComparable & _OptionalPersistable>(
            _ keyPath: KeyPath<AllTypes, V?>, _ name: String
        ) throws {
            let expected = Self.reference(objects, { $0[keyPath: keyPath] }, ascending: ascending, <)
            #expect(try Self.sortedKeys(all.sorted(by: keyPath, ascending: ascending)) == expected, "\(name)")
        }
        func check<V: Comparable & _QueryComparable>(_ keyPath: KeyPath<AllTypes, V>, _ name: String) throws {
            let expected = Self.reference(objects, { $0[keyPath: keyPath] }, ascending: ascending, <)
            #expect(try Self.sortedKeys(all.sorted(by: keyPath, ascending: ascending)) == expected, "\(name)")
        }
        try check(\.optDouble, "optDouble")
        try check(\.double, "double")
        try check(\.optInt, "optInt")
        try check(\.int, "int")
        try check(\.int8, "int8")
        try check(\.uint64, "uint64")
        try check(\.float, "float")
        try check(\.optFloat, "optFloat")
        try check(\.date, "date")
        try check(\.optDate, "optDate")
        let bools = Self.reference(objects, { $0.optBool.map { $0 ? 1 : 0 } }, ascending: ascending, <)
        #expect(try Self.sortedKeys(all.sorted(by: \.optBool, ascending: ascending)) == bools)
    }

    @Test func aConditionBeforeTheSortKeepsOnlyItsMatches() throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try Self.filled(in: fixture)
        let all = store.objects(AllTypes.self)
        let objects = Array(all)
        for bound in [-26, -3, 0, 24, 25] {
            let matching = objects.filter { $0.int > bound }
            let expected = Self.reference(matching, { $0.optDouble }, ascending: false, <)
            let results = all.where { $0.int > bound }.sorted(by: \.optDouble, ascending: false)
            #expect(try Self.sortedKeys(results) == expected, "int > \(bound)")
        }
        // Two conditions in a row are one conjunction (no column scan reads it: the rows are visited).
        let twice = all.where { $0.int > -10 }.where { $0.int8 < 2 }.sorted(by: \.date)
        let expected = Self.reference(objects.filter { $0.int > -10 && $0.int8 < 2 }, { $0.date }, ascending: true, <)
        #expect(try Self.sortedKeys(twice) == expected)
        // A condition an index serves: its candidates, then the sort.
        let indexed = all.where { $0.indexedOptionalInt == 7 }.sorted(by: \.double, ascending: false)
        let sevens = Self.reference(objects.filter { $0.optInt == 7 }, { $0.double }, ascending: false, <)
        #expect(try Self.sortedKeys(indexed) == sevens)
    }

    @Test func conditionsAloneKeepTheirMatchesInKeyOrder() throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try Self.filled(in: fixture)
        let all = store.objects(AllTypes.self)
        let objects = Array(all)
        #expect(try Self.sortedKeys(all.where { $0.int > 20 }) == objects.filter { $0.int > 20 }.map(\.key))
        #expect(try Self.sortedKeys(all.where { $0.int > 100 }).isEmpty)
        // A few matches keep no room reserved for every row of the table.
        let few = try #require(try all.where { $0.int > 20 }.collectedRows())
        #expect(few.keys.count == objects.filter { $0.int > 20 }.count)
        #expect(few.keys.capacity < Self.count / 2)
        #expect(few.rows.capacity < Self.count / 2)
        let both = all.where { $0.optDouble == nil }.where { $0.bool }
        #expect(try Self.sortedKeys(both) == objects.filter { $0.optDouble == nil && $0.bool }.map(\.key))
        let indexed = all.where { $0.indexedOptionalInt == 7 }
        #expect(try Self.sortedKeys(indexed) == objects.filter { $0.optInt == 7 }.map(\.key))
    }

    @Test func otherShapesTakeTheStagedPath() throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try Self.filled(in: fixture)
        let all = store.objects(AllTypes.self)
        #expect(try all.collectedRows() == nil)  // the whole table: its own walk
        #expect(try all.sorted(by: \.string).collectedRows() == nil)  // bytes
        #expect(try all.sorted(by: [SortKey(\.int), SortKey(\.double)]).collectedRows() == nil)
        #expect(try all.filter { $0.int > 0 }.sorted(by: \.int).collectedRows() == nil)  // a closure filter
        #expect(try all.sorted(by: \.int).distinct(by: [\.int8]).collectedRows() == nil)
        #expect(try all.sorted(by: \.int).prefix(5).collectedRows() == nil)  // a first page
        #expect(try all.sorted(by: \.int).collectedRows() != nil)
    }

    @Test func aWriteIsSeenByTheSameResults() throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try Self.filled(in: fixture)
        let sorted = store.objects(AllTypes.self).sorted(by: \.optDouble, ascending: true)
        let before = sorted.map(\.key)
        try store.write {
            let object = AllTypes()
            object.key = "new"
            object.optDouble = -.infinity  // ties with others: placed among them by its key
            try store.add(object)
            try store.delete(sorted.last!)
        }
        let after = sorted.map(\.key)
        #expect(after.count == before.count)
        #expect(after.contains("new"))
        #expect(!after.contains(before.last!))
        let objects = Array(store.objects(AllTypes.self))
        #expect(after == Self.reference(objects, { $0.optDouble }, ascending: true, <))
    }
}

extension Results {
    /// The keys and rows the collected route reads, when the plan takes it (nil otherwise).
    func collectedRows() throws -> (keys: [RowKey], rows: [RowView])? {
        guard case .collected(let access, let sort) = plan.route else { return nil }
        return try QueryEngine(core: core, binding: binding).collect(access, sortedBy: sort)
    }
}
