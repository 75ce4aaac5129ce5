import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Where the string language used to differ from Realm Query Language: `@size` of a string, `$0 IN
/// list`, objects as arguments, `SORT`/`DISTINCT` through to-one links, a nil string through a link,
/// the clauses' order in `DynamicStore`. Each is checked against a plain Swift reference.
@Suite(.fixtureChecks, .offThePool) struct QueryLanguageRealmTests {
    /// What the reference holds of a QueryRow.
    struct Values {
        var id: Int
        var int: Int
        var name: String
        var optName: String?
        var double: Double
        var weight: Int?
    }

    /// A key of SORT and DISTINCT, as the language names it and as the reference reads it (nil: a
    /// nil link on the way; `.some(nil)`: a null value).
    enum Key: CaseIterable {
        case int, name, optName, double, weight

        var text: String { self == .weight ? "target.weight" : "\(self)" }

        func value(_ row: Values) -> [UInt8]?? {
            switch self {
            case .int: .some(Self.number(Double(row.int)))
            case .name: .some(Array(row.name.utf8))
            case .optName: .some(row.optName.map { Array($0.utf8) })
            case .double: .some(Self.number(row.double))
            case .weight: row.weight.map { .some(Self.number(Double($0))) } ?? .none
            }
        }

        /// An order-preserving byte form of a number (0 and -0 one value).
        static func number(_ value: Double) -> [UInt8] {
            let bits = (value == 0 ? 0 : value).bitPattern
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            return withUnsafeBytes(of: ordered.bigEndian) { Array($0) }
        }
    }

    /// Null first, then values by bytes.
    static func order(_ lhs: [UInt8]?, _ rhs: [UInt8]?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case (let a?, let b?): a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
        }
    }

    enum Clause {
        case sort([(Key, Bool)])
        case distinct([Key])
        case limit(Int)

        var text: String {
            switch self {
            case .sort(let keys):
                "SORT(\(keys.map { "\($0.0.text) \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ")))"
            case .distinct(let keys): "DISTINCT(\(keys.map(\.text).joined(separator: ", ")))"
            case .limit(let count): "LIMIT(\(count))"
            }
        }

        /// The reference: the clause applied to `rows` as Realm applies it.
        func applied(to rows: [Values]) -> [Values] {
            switch self {
            case .limit(let count): return Array(rows.prefix(count))
            case .sort(let keys):
                return rows.enumerated().sorted { lhs, rhs in
                    for (key, ascending) in keys {
                        // A nil link sorts as a null value.
                        let order = QueryLanguageRealmTests.order(
                            key.value(lhs.element) ?? nil, key.value(rhs.element) ?? nil)
                        if order != 0 { return ascending ? order < 0 : order > 0 }
                    }
                    return lhs.offset < rhs.offset
                }.map(\.element)
            case .distinct(let keys):
                var seen = Set<[[UInt8]?]>()
                return rows.filter { row in
                    var values: [[UInt8]?] = []
                    for key in keys {
                        guard let value = key.value(row) else { return false }  // a nil link: left out
                        values.append(value)
                    }
                    return seen.insert(values).inserted
                }
            }
        }
    }

    static let names = ["", "a", "Ab", "ab", "b", "é", "Zz", "abc", "日本"]

    func populated(seed: UInt64, count: Int) throws -> (Fixture, Store, [Values]) {
        let fixture = Fixture([QueryRow.self, QueryTarget.self])
        let store = try fixture.open()
        var random = SplitMix64(state: seed)
        var values: [Values] = []
        try store.write {
            let targets = (0...3).map { weight in
                let target = QueryTarget()
                target.id = weight
                target.weight = weight
                return target
            }
            try store.add(contentsOf: targets)
            for index in 0..<count {
                let row = Values(
                    id: index * 2 - 20, int: Int.random(in: -2...2, using: &random),
                    name: Self.names.randomElement(using: &random)!,
                    optName: Bool.random(using: &random) ? nil : Self.names.randomElement(using: &random)!,
                    double: [-1.5, -0.0, 0.0, 2.0].randomElement(using: &random)!,
                    weight: Int.random(in: 0..<5, using: &random) == 0 ? nil : Int.random(in: 0...3, using: &random))
                values.append(row)
                let object = QueryRow()
                object.id = row.id
                object.int = row.int
                object.name = row.name
                object.optName = row.optName
                object.double = row.double
                object.target = row.weight.map { targets[$0] }
                try store.add(object)
            }
        }
        return (fixture, store, values)
    }

    @Test("SORT, DISTINCT (through a link too) and LIMIT in any order: Results, DynamicStore and the reference agree")
    func generatedClauses() throws {
        let (fixture, store, rows) = try populated(seed: 3, count: 120)
        let file = try DynamicStore(path: fixture.path)
        var random = SplitMix64(state: 5)
        func keys(_ limit: Int) -> [Key] {
            (0..<Int.random(in: 1...limit, using: &random)).map { _ in Key.allCases.randomElement(using: &random)! }
        }
        for round in 0..<400 {
            let conditions = [
                ("TRUEPREDICATE", { (_: Values) in true }), ("int > 0", { $0.int > 0 }),
                ("target.weight >= 1", { ($0.weight ?? -1) >= 1 }),
            ]
            let (conditionText, holds) = conditions.randomElement(using: &random)!
            var clauses: [Clause] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: clauses.append(.sort(keys(2).map { ($0, Bool.random(using: &random)) }))
                case 1: clauses.append(.distinct(keys(2)))
                default: clauses.append(.limit(Int.random(in: 0...30, using: &random)))
                }
            }
            let query = ([conditionText] + clauses.map(\.text)).joined(separator: " ")
            let expected = clauses.reduce(rows.filter(holds)) { $1.applied(to: $0) }.map(\.id)
            let viaResults = try store.objects(QueryRow.self).where(query).map(\.id)
            let viaFile = try file.objects(ofType: "QueryRow", where: query).map { Int($0.primaryKey)! }
            #expect(viaResults == expected, "round \(round): \(query)")
            #expect(viaFile == expected, "round \(round): \(query) (DynamicStore)")
            if viaResults != expected || viaFile != expected { return }
        }
    }

    @Test("LIMIT(2) SORT(int DESC) sorts the first two; SORT(int DESC) LIMIT(2) keeps the two largest, in both")
    func clauseOrder() throws {
        let (fixture, store, rows) = try populated(seed: 9, count: 30)
        let file = try DynamicStore(path: fixture.path)
        for query in ["TRUEPREDICATE LIMIT(2) SORT(int DESC)", "TRUEPREDICATE SORT(int DESC) LIMIT(2)"] {
            let viaResults = try store.objects(QueryRow.self).where(query).map(\.id)
            let viaFile = try file.objects(ofType: "QueryRow", where: query).map { Int($0.primaryKey)! }
            #expect(viaResults == viaFile, "\(query)")
        }
        let firstTwo = try store.objects(QueryRow.self).where("TRUEPREDICATE LIMIT(2) SORT(int DESC)").map(\.id)
        #expect(Set(firstTwo) == Set(rows.prefix(2).map(\.id)))
    }

    @Test("name.@size (and @count) is the string's length in UTF-8 bytes, as in Realm, in both forms")
    func stringSize() throws {
        let (fixture, store, rows) = try populated(seed: 4, count: 80)
        let file = try DynamicStore(path: fixture.path)
        for size in 0...7 {
            for (symbol, holds) in [(">", { (a: Int, b: Int) in a > b }), ("==", { $0 == $1 }), ("<=", { $0 <= $1 })] {
                for property in ["name", "optName", "target.weight"] where property != "target.weight" {
                    let query = "\(property).@size \(symbol) \(size)"
                    let expected = rows.filter { row in
                        let text = property == "name" ? row.name : row.optName
                        return text.map { holds($0.utf8.count, size) } ?? false
                    }.map(\.id)
                    #expect(try store.objects(QueryRow.self).where(query).map(\.id) == expected, "\(query)")
                    #expect(
                        try file.objects(ofType: "QueryRow", where: query).map { Int($0.primaryKey)! } == expected,
                        "\(query) (DynamicStore)")
                    let counted = query.replacingOccurrences(of: "@size", with: "@count")
                    #expect(try store.objects(QueryRow.self).where(counted).map(\.id) == expected, "\(counted)")
                }
            }
        }
    }

    /// Dogs with owners (some with an email, some without) and people walking them.
    func people() throws -> (Fixture, Store, [Person], [Dog]) {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let people = (1...4).map { Person(id: $0, name: "p\($0)") }
        people[0].email = "ann@x"
        people[2].email = "zed@x"
        let dogs = (0..<6).map { Dog(name: "d\($0)", owner: $0 == 5 ? nil : people[$0 % 4]) }
        people[0].dogs.append(objectsIn: [dogs[0], dogs[1]])
        people[1].dogs.append(dogs[1])
        people[3].dogs.append(objectsIn: [dogs[2], dogs[3], dogs[4]])
        try store.write {
            try store.add(contentsOf: people)
            try store.add(contentsOf: dogs)
        }
        return (fixture, store, people, dogs)
    }

    @Test("an object as an argument: a link == / != / IN it, ANY / NONE of a List == it, $0 IN a List")
    func objectArguments() throws {
        let (_, store, people, dogs) = try people()
        let allDogs = store.objects(Dog.self)
        let allPeople = store.objects(Person.self)
        func names(_ results: Results<Dog>) -> [String] { results.map(\.name).sorted() }
        func ids(_ results: Results<Person>) -> [Int] { results.map(\.id).sorted() }
        for person in people {
            let owned = dogs.filter { $0.owner?.id == person.id }.map(\.name).sorted()
            let equal = names(try allDogs.where("owner == $0", person))
            let different = names(try allDogs.where("owner != $0", person))
            #expect(equal == owned)
            #expect(different == dogs.map(\.name).filter { !owned.contains($0) }.sorted())
        }
        let either = names(try allDogs.where("owner IN {$0, $1}", people[0], people[1]))
        #expect(either == ["d0", "d1", "d4"])
        #expect(names(try allDogs.where("owner == nil")) == ["d5"])
        for dog in dogs {
            let walkers = people.filter { $0.dogs.contains(dog) }.map(\.id)
            let any = ids(try allPeople.where("ANY dogs == $0", dog))
            let member = ids(try allPeople.where("$0 IN dogs", dog))
            let none = ids(try allPeople.where("NONE dogs == $0", dog))
            #expect(any == walkers, "\(dog.name)")
            #expect(member == walkers, "\(dog.name)")
            #expect(none == people.map(\.id).filter { !walkers.contains($0) })
        }
        // Refused with a typed error: an object of another type, one not stored, an ordering.
        func refusal(_ query: String, _ argument: Object) -> String {
            do {
                _ = try allDogs.where(query, argument)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal("owner == $0", dogs[0]).contains("links to Person, not to Dog"))
        #expect(refusal("owner == $0", Person(id: 9)).contains("is not stored"))
        #expect(refusal("owner > $0", people[0]).contains("is a link: compare it with ==, != or IN"))
    }

    @Test(
        "an ordering comparison with a nil string through a link is false (as Realm), on the type's own column nil sorts first"
    )
    func nilStringThroughALink() throws {
        let (fixture, store, people, dogs) = try people()
        let file = try DynamicStore(path: fixture.path)
        let allDogs = store.objects(Dog.self)
        for (symbol, operand) in [("<", "m"), ("<=", "zzz"), (">", ""), (">=", "a")] {
            let expected = dogs.filter { dog in
                guard let email = dog.owner?.email else { return false }
                switch symbol {
                case "<": return email < operand
                case "<=": return email <= operand
                case ">": return email > operand
                default: return email >= operand
                }
            }.map(\.name).sorted()
            let query = "owner.email \(symbol) $0"
            #expect(try allDogs.where(query, operand).map(\.name).sorted() == expected, "\(query) \(operand)")
            #expect(
                try file.objects(ofType: "Dog", where: query, arguments: [operand]).map { "\($0["name"] ?? "")" }
                    .sorted()
                    == expected, "\(query) \(operand) (DynamicStore)")
        }
        #expect(allDogs.where { $0.owner.email < "m" }.map(\.name).sorted() == ["d0", "d4"])
        // The type's own String? column keeps Realm's order: nil before every string.
        #expect(store.objects(Person.self).where { $0.email < "m" }.map(\.id) == [1, 2, 4])
        #expect(try store.objects(Person.self).where("email < 'm'").map(\.id) == [1, 2, 4])
        _ = people
    }
}
