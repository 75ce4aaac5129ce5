import Foundation
import StrataTestSupport
import Testing

@testable import Strata

final class QueryRow: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var int: Int
    @Persisted var small: Int8?
    @Persisted var double: Double
    @Persisted var optDouble: Double?
    @Persisted var name: String
    @Persisted var optName: String?
    @Persisted var flag: Bool
    @Persisted var date: Date
    @Persisted(indexed: true) var rank: Int
    @Persisted(indexed: true) var label: String
    @Persisted var target: QueryTarget?
    @Persisted var numbers: List<Int>
}

final class QueryTarget: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var weight: Int
}

/// The values of one QueryRow, held apart from the Store: what the naive reference filters, sorts
/// and compares.
private struct RowValues {
    var id = 0
    var int = 0
    var small: Int8?
    var double = 0.0
    var optDouble: Double?
    var name = ""
    var optName: String?
    var flag = false
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var rank = 0
    var label = ""
    var weight: Int?
    var numbers: [Int] = []
}

/// A value of a field, for the reference: nil, a number (every integer, Double and Date), a Bool, or
/// a String (compared by its UTF-8 bytes).
private enum Scalar: Hashable {
    case null
    case number(Double)
    case text([UInt8])

    /// Query order: nil first; numbers by value (0 equals -0); strings by bytes.
    static func order(_ lhs: Scalar, _ rhs: Scalar) -> Int {
        switch (lhs, rhs) {
        case (.null, .null): 0
        case (.null, _): -1
        case (_, .null): 1
        case (.number(let a), .number(let b)): a < b ? -1 : a == b ? 0 : 1
        case (.text(let a), .text(let b)): a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
        default: 0
        }
    }

    /// Equal for `distinct`: as `order`, so that 0 and -0 are one value.
    var distinctKey: Scalar {
        if case .number(let value) = self, value == 0 { return .number(0) }
        return self
    }
}

private enum Field: CaseIterable {
    case int, small, double, optDouble, name, optName, flag, date, rank, label, weight, numbersCount

    static let sortable: [Field] = [.int, .small, .double, .optDouble, .name, .optName, .flag, .date, .rank, .label]

    func value(_ row: RowValues) -> Scalar {
        switch self {
        case .int: .number(Double(row.int))
        case .small: row.small.map { .number(Double($0)) } ?? .null
        case .double: .number(row.double)
        case .optDouble: row.optDouble.map { .number($0) } ?? .null
        case .name: .text(Array(row.name.utf8))
        case .optName: row.optName.map { .text(Array($0.utf8)) } ?? .null
        case .flag: .number(row.flag ? 1 : 0)
        case .date: .number(row.date.timeIntervalSinceReferenceDate)
        case .rank: .number(Double(row.rank))
        case .label: .text(Array(row.label.utf8))
        case .weight: row.weight.map { .number(Double($0)) } ?? .null
        case .numbersCount: .number(Double(row.numbers.count))
        }
    }

    /// The key path in the string language.
    var queryName: String {
        switch self {
        case .weight: "target.weight"
        case .numbersCount: "numbers.@count"
        default: "\(self)"
        }
    }

    /// Whether `< nil` compares (String? orders nil first) rather than never matching.
    var ordersNil: Bool { self == .optName }
}

private enum Operator: CaseIterable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }
}

/// A generated condition, evaluated both by the query engine and by the reference.
private indirect enum Condition: CustomStringConvertible {
    case compare(Field, Operator, Scalar, operand: Any)
    case oneOf(Field, [Scalar], operands: [Int])
    case and(Condition, Condition)
    case or(Condition, Condition)
    case not(Condition)

    var description: String {
        switch self {
        case .compare(let field, let op, let value, _): "\(field) \(op) \(value)"
        case .oneOf(let field, let values, _): "\(field) IN \(values)"
        case .and(let a, let b): "(\(a) && \(b))"
        case .or(let a, let b): "(\(a) || \(b))"
        case .not(let a): "!(\(a))"
        }
    }

    /// The reference: Query's documented semantics, written out.
    func holds(_ row: RowValues) -> Bool {
        switch self {
        case .compare(let field, let op, let operand, _):
            if field == .weight, row.weight == nil { return false }  // through a nil link: false
            let value = field.value(row)
            switch op {
            case .equal, .notEqual: return op.holds(Scalar.order(value, operand) == 0 ? 0 : 1)
            default:
                if !field.ordersNil, value == .null || operand == .null { return false }
                return op.holds(Scalar.order(value, operand))
            }
        case .oneOf(let field, let values, _):
            return values.contains { Scalar.order(field.value(row), $0) == 0 }
        case .and(let a, let b): return a.holds(row) && b.holds(row)
        case .or(let a, let b): return a.holds(row) || b.holds(row)
        case .not(let a): return !a.holds(row)
        }
    }

    /// The same condition in the closure form.
    func query(_ row: Query<QueryRow>) -> Query<Bool> {
        switch self {
        case .compare(let field, let op, _, let operand):
            switch field {
            case .int: return Self.apply(op, row.int, operand as! Int)
            case .small: return Self.apply(op, row.small, operand as! Int8?)
            case .double: return Self.apply(op, row.double, operand as! Double)
            case .optDouble: return Self.apply(op, row.optDouble, operand as! Double?)
            case .name: return Self.apply(op, row.name, operand as! String)
            case .optName: return Self.apply(op, row.optName, operand as! String?)
            case .flag: return Self.apply(op, row.flag, operand as! Bool)
            case .date: return Self.apply(op, row.date, operand as! Date)
            case .rank: return Self.apply(op, row.rank, operand as! Int)
            case .label: return Self.apply(op, row.label, operand as! String)
            case .weight: return Self.apply(op, row.target.weight, operand as! Int)
            case .numbersCount: return Self.apply(op, row.numbers.count, operand as! Int)
            }
        case .oneOf(let field, _, let operands):
            return field == .rank ? row.rank.in(operands) : row.int.in(operands)
        case .and(let a, let b): return a.query(row) && b.query(row)
        case .or(let a, let b): return a.query(row) || b.query(row)
        case .not(let a): return !a.query(row)
        }
    }

    /// The same condition in the string language; operands go into `arguments` (dates, strings) or
    /// are written as literals (numbers, nil, Bools).
    func text(_ arguments: inout [any Sendable]) -> String {
        switch self {
        case .compare(let field, let op, _, let operand):
            let symbol = ["==", "!=", "<", "<=", ">", ">="][Operator.allCases.firstIndex(of: op)!]
            let literal: String
            switch operand {
            case let date as Date:
                arguments.append(date)
                literal = "$\(arguments.count - 1)"
            case let string as String:
                arguments.append(string)
                literal = "$\(arguments.count - 1)"
            case let flag as Bool: literal = flag ? "true" : "false"
            case let number as Int: literal = "\(number)"
            case let number as Int8: literal = "\(number)"
            case let number as Double: literal = number == 0 && number.sign == .minus ? "-0.0" : "\(number)"
            default: literal = "nil"  // a nil optional
            }
            return "\(field.queryName) \(symbol) \(literal)"
        case .oneOf(let field, _, let operands):
            return "\(field.queryName) IN {\(operands.map(String.init).joined(separator: ", "))}"
        case .and(let a, let b): return "(\(a.text(&arguments)) AND \(b.text(&arguments)))"
        case .or(let a, let b): return "(\(a.text(&arguments)) OR \(b.text(&arguments)))"
        case .not(let a): return "NOT \(a.text(&arguments))"
        }
    }

    private static func apply<V: _QueryComparable>(_ op: Operator, _ lhs: Query<V>, _ rhs: V) -> Query<Bool> {
        switch op {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .less: lhs < rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .greaterOrEqual: lhs >= rhs
        }
    }
}

/// Generates rows with small domains (ties, nils, 0 and -0, non-ASCII strings) and conditions over them.
private struct Generator {
    var random: SplitMix64
    static let names = ["", "a", "Ab", "ab", "b", "é", "Z", "abc"]
    static let doubles = [-2.5, -0.0, 0.0, 1.5, 3.0, 1e9]

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func row(id: Int) -> RowValues {
        var row = RowValues()
        row.id = id
        row.int = Int.random(in: -3...3, using: &random)
        row.small = chance(25) ? nil : Int8.random(in: -2...2, using: &random)
        row.double = pick(Self.doubles)
        row.optDouble = chance(25) ? nil : pick(Self.doubles)
        row.name = pick(Self.names)
        row.optName = chance(25) ? nil : pick(Self.names)
        row.flag = chance(50)
        row.date = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -2...2, using: &random)) * 86_400)
        row.rank = Int.random(in: 0...9, using: &random)
        row.label = pick(Self.names)
        row.weight = chance(25) ? nil : Int.random(in: 0...3, using: &random)
        row.numbers = (0..<Int.random(in: 0...3, using: &random)).map { $0 }
        return row
    }

    mutating func condition(depth: Int = 0) -> Condition {
        if depth < 2, chance(40) {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .and(condition(depth: depth + 1), condition(depth: depth + 1))
            case 1: return .or(condition(depth: depth + 1), condition(depth: depth + 1))
            default: return .not(condition(depth: depth + 1))
            }
        }
        if chance(8) {
            let field: Field = chance(50) ? .rank : .int
            let operands = (0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: -3...9, using: &random)
            }
            return .oneOf(field, operands.map { .number(Double($0)) }, operands: operands)
        }
        let field = pick(Field.allCases)
        let op = pick(Operator.allCases)
        let nilOperand = chance(15)
        switch field {
        case .int, .rank, .weight, .numbersCount:
            let value = Int.random(in: -3...9, using: &random)
            return .compare(field, op, .number(Double(value)), operand: value)
        case .small:
            let value: Int8? = nilOperand ? nil : Int8.random(in: -2...2, using: &random)
            return .compare(field, op, value.map { .number(Double($0)) } ?? .null, operand: value as Any)
        case .double:
            let value = pick(Self.doubles)
            return .compare(field, op, .number(value), operand: value)
        case .optDouble:
            let value: Double? = nilOperand ? nil : pick(Self.doubles)
            return .compare(field, op, value.map { .number($0) } ?? .null, operand: value as Any)
        case .name, .label:
            let value = pick(Self.names)
            return .compare(field, op, .text(Array(value.utf8)), operand: value)
        case .optName:
            let value: String? = nilOperand ? nil : pick(Self.names)
            return .compare(field, op, value.map { .text(Array($0.utf8)) } ?? .null, operand: value as Any)
        case .flag:
            let value = chance(50)
            return .compare(field, op, .number(value ? 1 : 0), operand: value)
        case .date:
            let value = Double(Int.random(in: -2...2, using: &random)) * 86_400
            return .compare(field, op, .number(value), operand: Date(timeIntervalSinceReferenceDate: value))
        }
    }
}

@Suite(.fixtureChecks, .offThePool) struct QueryReferenceTests {
    private func populated(seed: UInt64, count: Int) throws -> (Fixture, Store, [RowValues], Generator) {
        let fixture = Fixture([QueryRow.self, QueryTarget.self])
        let store = try fixture.open()
        var generator = Generator(random: SplitMix64(state: seed))
        let rows = (0..<count).map { generator.row(id: $0 * 3 - 40) }  // negative keys too
        try store.write {
            let targets = (0...3).map { weight in
                let target = QueryTarget()
                target.id = weight
                target.weight = weight
                return target
            }
            try store.add(contentsOf: targets)
            for values in rows {
                let row = QueryRow()
                row.id = values.id
                row.int = values.int
                row.small = values.small
                row.double = values.double
                row.optDouble = values.optDouble
                row.name = values.name
                row.optName = values.optName
                row.flag = values.flag
                row.date = values.date
                row.rank = values.rank
                row.label = values.label
                row.target = values.weight.map { targets[$0] }
                row.numbers.append(objectsIn: values.numbers)
                try store.add(row)
            }
        }
        return (fixture, store, rows, generator)
    }

    /// 10,000 generated conditions: the engine's matches, count and sum equal the reference's.
    @Test func generatedConditionsMatchTheReference() throws {
        var (_, store, rows, generator) = try populated(seed: 7, count: 150)
        let all = store.objects(QueryRow.self)
        for _ in 0..<10_000 {
            let condition = generator.condition()
            let found = all.where { condition.query($0) }
            let expected = rows.filter { condition.holds($0) }
            let ids = found.map(\.id)
            #expect(ids == expected.map(\.id), "\(condition)")
            #expect(found.count == expected.count, "count of \(condition)")
            #expect(found.sum(of: \.int) == expected.reduce(0) { $0 + $1.int }, "sum of \(condition)")
            if ids != expected.map(\.id) { return }
        }
    }

    /// The string language and the closure form find the same objects for 10,000 generated
    /// conditions (numbers as literals, strings and dates as arguments), and the reference's; so does
    /// a `DynamicStore` of the file, given the same text.
    @Test func generatedStringQueriesMatchTheClosureForm() throws {
        var (fixture, store, rows, generator) = try populated(seed: 23, count: 150)
        let all = store.objects(QueryRow.self)
        let file = try DynamicStore(path: fixture.path)
        for _ in 0..<10_000 {
            let condition = generator.condition()
            var arguments: [any Sendable] = []
            let text = condition.text(&arguments)
            let viaText = try all.where(text, arguments: arguments).map(\.id)
            let viaFile = try file.objects(ofType: "QueryRow", where: text, arguments: arguments).map(\.primaryKey)
            #expect(viaText == all.where { condition.query($0) }.map(\.id), "\(text)")
            #expect(viaText == rows.filter { condition.holds($0) }.map(\.id), "\(text)")
            #expect(viaFile == viaText.map(String.init), "\(text) (DynamicStore)")
            if viaText != rows.filter({ condition.holds($0) }).map(\.id) { return }
        }
    }

    /// Sorts by one or two generated keys, whole and as a first page (a heap, or the index when the
    /// first key has one), after a generated condition or none: the reference's stable order.
    @Test func generatedSortsAndPagesMatchTheReference() throws {
        var (_, store, rows, generator) = try populated(seed: 11, count: 300)
        let all = store.objects(QueryRow.self)
        for round in 0..<600 {
            let keys = (0..<Int.random(in: 1...2, using: &generator.random)).map { _ in
                (generator.pick(Field.sortable), generator.chance(50))
            }
            let condition: Condition? = round % 3 == 0 ? generator.condition() : nil
            let limit: Int? = generator.chance(60) ? generator.pick([0, 1, 5, 20, 400]) : nil
            var expected = rows.filter { condition?.holds($0) ?? true }
            expected = Self.sorted(expected, by: keys)
            if let limit { expected = Array(expected.prefix(limit)) }
            var results = condition.map { condition in all.where { condition.query($0) } } ?? all
            results = results.sorted(by: keys.map { Self.sortKey($0.0, ascending: $0.1) })
            if let limit { results = results.prefix(limit) }
            #expect(
                results.map(\.id) == expected.map(\.id),
                "\(keys) after \(condition?.description ?? "-") limit \(limit ?? -1)")
            #expect(results.count == expected.count)
        }
    }

    /// `distinct(by:)` on generated fields keeps the first object of each combination (0 and -0 one
    /// value, strings by bytes), after a sort or in key order.
    @Test func generatedDistinctMatchesTheReference() throws {
        var (_, store, rows, generator) = try populated(seed: 13, count: 300)
        let all = store.objects(QueryRow.self)
        let paths: [Field: PartialKeyPath<QueryRow>] = [
            .int: \QueryRow.int, .small: \QueryRow.small, .double: \QueryRow.double, .optDouble: \QueryRow.optDouble,
            .name: \QueryRow.name, .optName: \QueryRow.optName, .flag: \QueryRow.flag, .date: \QueryRow.date,
            .rank: \QueryRow.rank, .label: \QueryRow.label,
        ]
        for _ in 0..<300 {
            let fields = (0..<Int.random(in: 1...2, using: &generator.random)).map { _ in generator.pick(Field.sortable)
            }
            var seen = Set<[Scalar]>()
            let expected = rows.filter { row in seen.insert(fields.map { $0.value(row).distinctKey }).inserted }
            #expect(all.distinct(by: fields.map { paths[$0]! }).map(\.id) == expected.map(\.id), "\(fields)")
        }
    }

    /// Aggregates read from the column agree with the values read through the objects.
    @Test func aggregatesMatchTheReference() throws {
        let (_, store, rows, _) = try populated(seed: 17, count: 200)
        let all = store.objects(QueryRow.self)
        #expect(all.sum(of: \.int) == rows.reduce(0) { $0 + $1.int })
        #expect(all.sum(of: \.double) == rows.reduce(0.0) { $0 + $1.double })
        #expect(all.sum(of: \.optDouble) == rows.reduce(0.0) { $0 + ($1.optDouble ?? 0) })
        #expect(all.sum(of: \.small) == rows.reduce(Int8(0)) { $0 + ($1.small ?? 0) })
        #expect(all.min(of: \.double) == rows.map(\.double).min())
        #expect(all.max(of: \.optDouble) == rows.compactMap(\.optDouble).max())
        #expect(
            all.min(of: \.name) == rows.map(\.name).min { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        let positive = all.where { $0.int > 0 }
        let expected = rows.filter { $0.int > 0 }
        #expect(positive.average(of: \.double) == expected.map(\.double).reduce(0, +) / Double(expected.count))
        #expect(positive.max(of: \.date) == expected.map(\.date).max())
    }

    /// A first page by an indexed property reads the index: the plan says so, and it stays live.
    @Test func aFirstPageByAnIndexIsLive() throws {
        let (_, store, _, _) = try populated(seed: 19, count: 100)
        let page = store.objects(QueryRow.self).sorted(by: \.rank, ascending: false).prefix(3)
        #expect(page.count == 3)
        #expect(page.queryPlan.index == "rank")
        #expect(
            page.queryPlan.description.hasPrefix("index QueryRow.rank in order, stopping after 3"), "\(page.queryPlan)")
        let streamed = store.objects(QueryRow.self).sorted(by: \.double).prefix(3)
        #expect(streamed.queryPlan.description.hasPrefix("scan QueryRow, the first 3 by double kept in a heap"))
        try store.write {
            let top = QueryRow()
            top.id = 10_000
            top.rank = 99
            try store.add(top)
        }
        #expect(page.first?.id == 10_000)
        #expect(page.count == 3)
    }

    /// Random sequences of stages (conditions, sorts, pages, distinct, closures) on Results: the
    /// objects equal the reference's, every evaluation runs the route `queryPlan` names, and every
    /// route is taken.
    @Test func generatedStagesRunTheRouteTheirPlanNames() throws {
        var (_, store, rows, generator) = try populated(seed: 23, count: 300)
        let all = store.objects(QueryRow.self)
        let paths: [Field: PartialKeyPath<QueryRow>] = [
            .int: \QueryRow.int, .small: \QueryRow.small, .double: \QueryRow.double, .optDouble: \QueryRow.optDouble,
            .name: \QueryRow.name, .flag: \QueryRow.flag, .date: \QueryRow.date, .rank: \QueryRow.rank,
            .label: \QueryRow.label,
        ]
        var taken: [QueryPlan.Route: Int] = [:]
        for round in 0..<600 {
            var results = all
            var expected = rows
            var written: [String] = []
            // A quarter of the rounds take a shape a route serves on its own: [where] sorted prefix,
            // [where] distinct; the others are random.
            let shape: [Int]? =
                generator.chance(25)
                ? (generator.chance(50) ? [0] : []) + (generator.chance(60) ? [2, 5] : [7]) : nil
            for step in 0..<(shape?.count ?? Int.random(in: 0...3, using: &generator.random)) {
                switch shape?[step] ?? Int.random(in: 0..<9, using: &generator.random) {
                case 0, 1:
                    let condition = generator.condition()
                    results = results.where { condition.query($0) }
                    expected = expected.filter { condition.holds($0) }
                    written.append("where \(condition)")
                case 2, 3, 4:
                    let keys = (0..<Int.random(in: 1...2, using: &generator.random)).map { _ in
                        (generator.pick(Field.sortable), generator.chance(50))
                    }
                    results = results.sorted(by: keys.map { Self.sortKey($0.0, ascending: $0.1) })
                    expected = Self.sorted(expected, by: keys)
                    written.append("sorted \(keys)")
                case 5, 6:
                    let limit = generator.pick([0, 1, 5, 20, 400])
                    results = results.prefix(limit)
                    expected = Array(expected.prefix(limit))
                    written.append("prefix \(limit)")
                case 7:
                    let field = generator.pick(Array(paths.keys).sorted { "\($0)" < "\($1)" })
                    results = results.distinct(by: [paths[field]!])
                    var seen = Set<Scalar>()
                    expected = expected.filter { seen.insert(field.value($0).distinctKey).inserted }
                    written.append("distinct \(field)")
                default:
                    results = results.filter { $0.int > 0 }
                    expected = expected.filter { $0.int > 0 }
                    written.append("filter int > 0")
                }
            }
            let plan = results.queryPlan
            let log = RouteLog()
            let ids = QueryTrace.$observer.withValue({ log.append($0) }, operation: { results.map(\.id) })
            #expect(ids == expected.map(\.id), "round \(round): \(written) [\(plan)]")
            #expect(results.count == expected.count, "round \(round): \(written) [\(plan)]")
            #expect(log.routes == (plan.route == .table ? [] : [plan.route]), "round \(round): \(written) [\(plan)]")
            taken[plan.route, default: 0] += 1
        }
        for route in QueryPlan.Route.allCases {
            #expect(taken[route, default: 0] >= 5, "\(route) taken \(taken[route, default: 0]) times")
        }
    }

    /// Random string queries with their clauses in any order, on a `DynamicStore` of the file: the
    /// same keys as `Results.where(_:_:)` in the same order, by the route the Results' `queryPlan`
    /// names (one planner and one engine serve both), every route taken.
    @Test func aDynamicStoreRunsTheRouteOfTheResultsPlan() throws {
        var (fixture, store, _, generator) = try populated(seed: 31, count: 300)
        let all = store.objects(QueryRow.self)
        let file = try DynamicStore(path: fixture.path)
        var taken: [QueryPlan.Route: Int] = [:]
        for round in 0..<600 {
            var arguments: [any Sendable] = []
            var text = generator.chance(60) ? generator.condition().text(&arguments) : "TRUEPREDICATE"
            // A third of the rounds take a shape a route serves on its own (a sorted page, DISTINCT).
            let shape: [Int]? = generator.chance(33) ? (generator.chance(60) ? [0, 2] : [1]) : nil
            for step in 0..<(shape?.count ?? Int.random(in: 0...3, using: &generator.random)) {
                switch shape?[step] ?? Int.random(in: 0..<3, using: &generator.random) {
                case 0:
                    let keys = (0..<Int.random(in: 1...2, using: &generator.random)).map { _ in
                        "\(generator.pick(Field.sortable).queryName) \(generator.chance(50) ? "ASC" : "DESC")"
                    }
                    text += " SORT(\(keys.joined(separator: ", ")))"
                case 1: text += " DISTINCT(\(generator.pick(Field.sortable).queryName))"
                default: text += " LIMIT(\(generator.pick([0, 1, 5, 20, 400])))"
                }
            }
            let results = try all.where(text, arguments: arguments)
            let log = RouteLog()
            let viaFile = try QueryTrace.$observer.withValue(
                { log.append($0) },
                operation: { try file.objects(ofType: "QueryRow", where: text, arguments: arguments).map(\.primaryKey) }
            )
            #expect(viaFile == results.map { String($0.id) }, "round \(round): \(text)")
            #expect(log.routes == [results.queryPlan.route], "round \(round): \(text) [\(results.queryPlan)]")
            taken[results.queryPlan.route, default: 0] += 1
        }
        for route in QueryPlan.Route.allCases {
            #expect(taken[route, default: 0] >= 5, "\(route) taken \(taken[route, default: 0]) times")
        }
    }

    /// The reference's sort: stable, by each field in turn.
    private static func sorted(_ rows: [RowValues], by keys: [(Field, Bool)]) -> [RowValues] {
        rows.enumerated().sorted { lhs, rhs in
            for (field, ascending) in keys {
                let order = Scalar.order(field.value(lhs.element), field.value(rhs.element))
                if order != 0 { return ascending ? order < 0 : order > 0 }
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    private static func sortKey(_ field: Field, ascending: Bool) -> SortKey<QueryRow> {
        switch field {
        case .int: SortKey(\.int, ascending: ascending)
        case .small: SortKey(\.small, ascending: ascending)
        case .double: SortKey(\.double, ascending: ascending)
        case .optDouble: SortKey(\.optDouble, ascending: ascending)
        case .name: SortKey(\.name, ascending: ascending)
        case .optName: SortKey(\.optName, ascending: ascending)
        case .flag: SortKey(\.flag, ascending: ascending)
        case .date: SortKey(\.date, ascending: ascending)
        case .rank: SortKey(\.rank, ascending: ascending)
        case .label: SortKey(\.label, ascending: ascending)
        case .weight, .numbersCount: SortKey(\.int, ascending: ascending)
        }
    }
}

/// The routes the engine reports running, in order.
private final class RouteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [QueryPlan.Route] = []

    func append(_ route: QueryPlan.Route) {
        lock.withLock { recorded.append(route) }
    }

    var routes: [QueryPlan.Route] { lock.withLock { recorded } }
}
