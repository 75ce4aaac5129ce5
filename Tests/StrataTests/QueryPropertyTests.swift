// swift-format-ignore-file: OnlyOneTrailingClosureArgument

// (Each condition reads: its text, its query, then the model it is checked against, trailing.)
import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A citizen's values as plain Swift, what the reference evaluation reads.
struct CitizenValues {
    var id: Int, name: String, age: Int, nickname: String?, score: Double, rank: Int?, active: Bool
    var mood: Mood, joined: Date, tags: [String], friends: [Int], town: String?
}

extension Citizen {
    /// A citizen with the values' id, and each indexed value also in its unindexed twin.
    convenience init(_ values: CitizenValues) {
        self.init()
        id = values.id
        name = values.name
        city = values.name
        age = values.age
        years = values.age
        nickname = values.nickname
        alias = values.nickname
    }
}

/// One random condition, as a Strata query and as the same test in plain Swift.
struct RandomCondition {
    let text: String
    let query: (Query<Citizen>) -> Query<Bool>
    let reference: (CitizenValues) -> Bool
}

/// Strings that exercise the byte-wise semantics: shared prefixes, case, non-ASCII, canonically
/// equivalent but different bytes ("é" and "e" + U+0301), the empty string, and strings longer than
/// an index key keeps (480 bytes) that differ only past that point.
enum QueryData {
    static let long = String(repeating: "x", count: 500)
    static let names = [
        "", "A", "Ann", "ann", "Anna", "Bob", "bob", "Böb", "Zoë", "é", "e\u{301}", "Ændre", "日本", "Ann Lee",
        long + "a", long + "b", long, "ß", "SS", "Al", "Albert",
    ]
    static let tags = ["red", "green", "blue", "Red", ""]
    static let towns = ["Oslo", "Bergen", "Åre"]

    static func citizens(_ count: Int, using rng: inout SplitMix64) -> [CitizenValues] {
        (0..<count).map { index in
            CitizenValues(
                id: Int.random(in: -5000...5000, using: &rng) * 10 + index % 10,
                name: names.randomElement(using: &rng)!,
                age: Int.random(in: -3...90, using: &rng),
                nickname: Bool.random(using: &rng) ? nil : names.randomElement(using: &rng)!,
                score: [Double.random(in: -10...10, using: &rng), 0, -0.0, 1.5].randomElement(using: &rng)!,
                rank: Bool.random(using: &rng) ? nil : Int.random(in: 0...5, using: &rng),
                active: Bool.random(using: &rng),
                mood: Mood.allCases.randomElement(using: &rng)!,
                joined: Date(timeIntervalSince1970: Double(Int.random(in: -1000...1000, using: &rng)) * 86400),
                tags: (0..<Int.random(in: 0...3, using: &rng)).map { _ in tags.randomElement(using: &rng)! },
                friends: [],
                town: Bool.random(using: &rng) ? nil : towns.randomElement(using: &rng)!)
        }
    }
}

/// Byte-wise string semantics, as documented on `Query`.
func utf8Less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
func utf8Equal(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
func utf8Contains(_ a: String, _ b: String) -> Bool {
    let hay = Array(a.utf8)
    let needle = Array(b.utf8)
    if needle.isEmpty { return true }
    guard needle.count <= hay.count else { return false }
    return (0...(hay.count - needle.count)).contains { hay[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// Comparison operators applied the same way to a query and to a value.
enum Op: CaseIterable {
    case eq, ne, lt, le, gt, ge

    func query<V: _QueryComparable>(_ lhs: Query<V>, _ rhs: V) -> Query<Bool> {
        switch self {
        case .eq: lhs == rhs
        case .ne: lhs != rhs
        case .lt: lhs < rhs
        case .le: lhs <= rhs
        case .gt: lhs > rhs
        case .ge: lhs >= rhs
        }
    }

    /// `order`: the comparison of value to operand (-1, 0, 1), nil when either is nil.
    func holds(order: Int?, equal: Bool) -> Bool {
        switch self {
        case .eq: return equal
        case .ne: return !equal
        default:
            guard let order else { return false }
            switch self {
            case .lt: return order < 0
            case .le: return order <= 0
            case .gt: return order > 0
            default: return order >= 0
            }
        }
    }
}

func compare<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a == b ? 0 : 1 }
func compareStrings(_ a: String, _ b: String) -> Int { utf8Equal(a, b) ? 0 : utf8Less(a, b) ? -1 : 1 }

extension RandomCondition {
    /// A random leaf over one of the citizen's properties (indexed and unindexed twins alike).
    static func leaf(using rng: inout SplitMix64, objects: [Int: Citizen]) -> RandomCondition {
        let op = Op.allCases.randomElement(using: &rng)!
        let name = QueryData.names.randomElement(using: &rng)!
        let number = Int.random(in: -5...95, using: &rng)
        let folds = Bool.random(using: &rng)
        let options: StringOptions = folds ? .caseInsensitive : []
        func fold(_ s: String) -> String { folds ? s.lowercased() : s }
        switch Int.random(in: 0..<22, using: &rng) {
        case 20:
            let id = objects.keys.randomElement(using: &rng)!
            let friend = objects[id]!
            return RandomCondition(text: "friends contains \(id)", query: { $0.friends.contains(friend) }) {
                $0.friends.contains(id)
            }
        case 21:
            let date = Date(timeIntervalSince1970: Double(Int.random(in: -1000...1000, using: &rng)) * 86400)
            return RandomCondition(text: "joined \(op) \(date)", query: { op.query($0.joined, date) }) {
                op.holds(order: compare($0.joined, date), equal: $0.joined == date)
            }
        case 0:
            return RandomCondition(text: "name \(op) \(name.prefix(8))", query: { op.query($0.name, name) }) {
                op.holds(order: compareStrings($0.name, name), equal: utf8Equal($0.name, name))
            }
        case 1:
            return RandomCondition(text: "city \(op) \(name.prefix(8))", query: { op.query($0.city, name) }) {
                op.holds(order: compareStrings($0.name, name), equal: utf8Equal($0.name, name))
            }
        case 2:
            return RandomCondition(text: "age \(op) \(number)", query: { op.query($0.age, number) }) {
                op.holds(order: compare($0.age, number), equal: $0.age == number)
            }
        case 3:
            return RandomCondition(text: "years \(op) \(number)", query: { op.query($0.years, number) }) {
                op.holds(order: compare($0.age, number), equal: $0.age == number)
            }
        case 4, 5:
            let operand: String? = Bool.random(using: &rng) ? nil : name
            let useIndex = Bool.random(using: &rng)
            return RandomCondition(
                text: "\(useIndex ? "nickname" : "alias") \(op) \(operand?.prefix(8) ?? "nil")",
                query: { op.query(useIndex ? $0.nickname : $0.alias, operand) }
            ) { values in
                let equal: Bool
                switch (values.nickname, operand) {
                case (nil, nil): equal = true
                case (let a?, let b?): equal = utf8Equal(a, b)
                default: equal = false
                }
                // Realm's order for strings: nil before every string.
                switch (values.nickname, operand) {
                case (nil, nil): return op.holds(order: 0, equal: equal)
                case (nil, _): return op.holds(order: -1, equal: equal)
                case (_, nil): return op.holds(order: 1, equal: equal)
                case (let value?, let operand?): return op.holds(order: compareStrings(value, operand), equal: equal)
                }
            }
        case 6:
            let prefix = String(name.prefix(Int.random(in: 0...3, using: &rng)))
            let indexed = Bool.random(using: &rng)
            return RandomCondition(
                text: "\(indexed ? "name" : "city") starts(with: \(prefix)) \(options)",
                query: { (indexed ? $0.name : $0.city).starts(with: prefix, options: options) }
            ) { fold($0.name).utf8.starts(with: fold(prefix).utf8) }
        case 7:
            let suffix = String(name.suffix(Int.random(in: 0...2, using: &rng)))
            return RandomCondition(
                text: "name ends(with: \(suffix)) \(options)", query: { $0.name.ends(with: suffix, options: options) }
            ) { fold($0.name).utf8.reversed().starts(with: fold(suffix).utf8.reversed()) }
        case 8:
            let part = String(name.dropFirst().prefix(2))
            return RandomCondition(
                text: "nickname contains \(part) \(options)", query: { $0.nickname.contains(part, options: options) }
            ) { $0.nickname.map { utf8Contains(fold($0), fold(part)) } ?? false }
        case 9:
            let set = (0..<Int.random(in: 0...4, using: &rng)).map { _ in QueryData.names.randomElement(using: &rng)! }
            let indexed = Bool.random(using: &rng)
            return RandomCondition(
                text: "\(indexed ? "name" : "city") in \(set.count)",
                query: { row in (indexed ? row.name : row.city).in(set) }
            ) { values in set.contains { utf8Equal($0, values.name) } }
        case 10:
            let ages = (0..<Int.random(in: 0...5, using: &rng)).map { _ in Int.random(in: -3...90, using: &rng) }
            return RandomCondition(text: "age in \(ages)", query: { $0.age.in(ages) }) { ages.contains($0.age) }
        case 11:
            let id = Int.random(in: -50000...50000, using: &rng)
            return RandomCondition(text: "id \(op) \(id)", query: { op.query($0.id, id) }) {
                op.holds(order: compare($0.id, id), equal: $0.id == id)
            }
        case 12:
            let score = Double.random(in: -10...10, using: &rng)
            return RandomCondition(text: "score \(op) \(score)", query: { op.query($0.score, score) }) {
                op.holds(order: compare($0.score, score), equal: $0.score == score)
            }
        case 13:
            let rank: Int? = Bool.random(using: &rng) ? nil : Int.random(in: 0...5, using: &rng)
            return RandomCondition(text: "rank \(op) \(String(describing: rank))", query: { op.query($0.rank, rank) }) {
                values in
                let equal = values.rank == rank
                guard let value = values.rank, let rank else { return op.holds(order: nil, equal: equal) }
                return op.holds(order: compare(value, rank), equal: equal)
            }
        case 14:
            let flag = Bool.random(using: &rng)
            if Bool.random(using: &rng) {
                return RandomCondition(text: "active", query: { flag ? $0.active : !$0.active }) { $0.active == flag }
            }
            return RandomCondition(text: "active \(op) \(flag)", query: { op.query($0.active, flag) }) {
                op.holds(order: compare($0.active ? 1 : 0, flag ? 1 : 0), equal: $0.active == flag)
            }
        case 15:
            let mood = Mood.allCases.randomElement(using: &rng)!
            let equal = Bool.random(using: &rng)
            return RandomCondition(
                text: "mood \(equal ? "==" : "!=") \(mood)", query: { equal ? $0.mood == mood : $0.mood != mood }
            ) {
                ($0.mood == mood) == equal
            }
        case 16:
            let count = Int.random(in: 0...3, using: &rng)
            return RandomCondition(text: "tags.count \(op) \(count)", query: { op.query($0.tags.count, count) }) {
                op.holds(order: compare($0.tags.count, count), equal: $0.tags.count == count)
            }
        case 17:
            let tag = QueryData.tags.randomElement(using: &rng)!
            return RandomCondition(text: "tags contains \(tag)", query: { $0.tags.contains(tag) }) {
                $0.tags.contains(tag)
            }
        case 18:
            let town = QueryData.towns.randomElement(using: &rng)!
            let mode = Int.random(in: 0..<3, using: &rng)
            switch mode {
            case 0:
                return RandomCondition(text: "town.name == \(town)", query: { $0.town.name == town }) {
                    $0.town == town
                }
            case 1:
                return RandomCondition(text: "town.name != \(town)", query: { $0.town.name != town }) {
                    $0.town != nil && $0.town != town
                }
            default:
                let isNil = Bool.random(using: &rng)
                return RandomCondition(
                    text: "town \(isNil ? "==" : "!=") nil", query: { isNil ? $0.town == nil : $0.town != nil }
                ) {
                    ($0.town == nil) == isNil
                }
            }
        default:
            let population = Int.random(in: 0...3, using: &rng) * 1000
            return RandomCondition(
                text: "town.population \(op) \(population)", query: { op.query($0.town.population, population) }
            ) {
                guard let town = $0.town else { return false }
                let value = QueryData.towns.firstIndex(of: town)! * 1000
                return op.holds(order: compare(value, population), equal: value == population)
            }
        }
    }

    /// A random tree of up to `depth` levels of `&&`, `||` and `!` over leaves.
    static func random(depth: Int, using rng: inout SplitMix64, objects: [Int: Citizen]) -> RandomCondition {
        guard depth > 0, Int.random(in: 0..<3, using: &rng) > 0 else { return leaf(using: &rng, objects: objects) }
        let lhs = random(depth: depth - 1, using: &rng, objects: objects)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            let rhs = random(depth: depth - 1, using: &rng, objects: objects)
            return RandomCondition(text: "(\(lhs.text) && \(rhs.text))", query: { lhs.query($0) && rhs.query($0) }) {
                lhs.reference($0) && rhs.reference($0)
            }
        case 1:
            let rhs = random(depth: depth - 1, using: &rng, objects: objects)
            return RandomCondition(text: "(\(lhs.text) || \(rhs.text))", query: { lhs.query($0) || rhs.query($0) }) {
                lhs.reference($0) || rhs.reference($0)
            }
        default:
            return RandomCondition(text: "!\(lhs.text)", query: { !lhs.query($0) }) { !lhs.reference($0) }
        }
    }
}

@Suite(.fixtureChecks, .offThePool) struct QueryPropertyTests {
    /// 1,500 random citizens; each random query gives the ids plain Swift computes over the same values.
    @Test func randomQueriesMatchPlainSwift() throws {
        var rng = SplitMix64(state: 0x5757_2026)
        var values = QueryData.citizens(1500, using: &rng)
        var seenIDs = Set<Int>()
        values = values.filter { seenIDs.insert($0.id).inserted }
        for index in values.indices {
            values[index].friends = (0..<Int.random(in: 0...2, using: &rng)).map { _ in
                values.randomElement(using: &rng)!.id
            }
        }
        let fixture = Fixture([Citizen.self, Town.self])
        let store = try fixture.open()
        try store.write {
            let towns = QueryData.towns.enumerated().map { Town(name: $1, population: $0 * 1000) }
            try store.add(contentsOf: towns)
            var byID: [Int: Citizen] = [:]
            for value in values {
                let citizen = Citizen(value)
                citizen.score = value.score
                citizen.rank = value.rank
                citizen.active = value.active
                citizen.mood = value.mood
                citizen.joined = value.joined
                citizen.tags.append(contentsOf: value.tags)
                citizen.town = value.town.flatMap { name in towns.first { $0.name == name } }
                try store.add(citizen)
                byID[value.id] = citizen
            }
            for value in values where !value.friends.isEmpty {
                byID[value.id]!.friends.append(contentsOf: value.friends.map { byID[$0]! })
            }
        }
        let citizens = store.objects(Citizen.self)
        #expect(citizens.count == values.count)
        let objects = Dictionary(uniqueKeysWithValues: citizens.map { ($0.id, $0) })
        let ordered = values.sorted { $0.id < $1.id }
        var indexed = 0
        for round in 0..<400 {
            let condition = RandomCondition.random(depth: 3, using: &rng, objects: objects)
            let results = citizens.where(condition.query)
            if results.queryPlan.index != nil { indexed += 1 }
            let expected = ordered.filter(condition.reference).map(\.id)
            let actual = results.map(\.id)
            #expect(actual == expected, "round \(round): \(condition.text) [\(results.queryPlan)]")
            #expect(results.count == expected.count)
        }
        // Enough of the rounds went through an index for the comparison to mean something.
        #expect(indexed > 30, "only \(indexed) of 400 queries used an index")
    }

    /// The same condition on an indexed property and on its unindexed twin finds the same objects.
    @Test func indexAndScanPathsAgree() throws {
        var rng = SplitMix64(state: 42)
        let values = QueryData.citizens(1200, using: &rng)
        let fixture = Fixture([Citizen.self, Town.self])
        let store = try fixture.open()
        try store.write {
            for (index, value) in values.enumerated() {
                let citizen = Citizen(value)
                citizen.id = index
                try store.add(citizen)
            }
        }
        let citizens = store.objects(Citizen.self)
        for name in QueryData.names {
            for op in Op.allCases {
                let viaIndex = citizens.where { op.query($0.name, name) }
                let viaScan = citizens.where { op.query($0.city, name) }
                #expect(viaIndex.queryPlan.index == (op == .ne ? nil : "name"), "\(viaIndex.queryPlan)")
                #expect(viaScan.queryPlan.index == nil)
                #expect(viaIndex.map(\.id) == viaScan.map(\.id), "name \(op) \(name.prefix(10))")
                let optionalIndex = citizens.where { op.query($0.nickname, name) }
                let optionalScan = citizens.where { op.query($0.alias, name) }
                #expect(optionalIndex.map(\.id) == optionalScan.map(\.id), "nickname \(op) \(name.prefix(10))")
            }
            let prefix = String(name.prefix(2))
            #expect(
                citizens.where { $0.name.starts(with: prefix) }.map(\.id)
                    == citizens.where { $0.city.starts(with: prefix) }.map(\.id))
        }
        for age in -4...91 {
            for op in Op.allCases {
                #expect(
                    citizens.where { op.query($0.age, age) }.map(\.id)
                        == citizens.where { op.query($0.years, age) }.map(\.id))
            }
            #expect(
                citizens.where { $0.age >= age && $0.age < age + 7 }.map(\.id)
                    == citizens.where { $0.years >= age && $0.years < age + 7 }.map(\.id))
        }
        for op in Op.allCases {
            let viaIndex = citizens.where { op.query($0.nickname, nil) }
            let viaScan = citizens.where { op.query($0.alias, nil) }
            #expect(viaIndex.map(\.id) == viaScan.map(\.id))
        }
    }
}
