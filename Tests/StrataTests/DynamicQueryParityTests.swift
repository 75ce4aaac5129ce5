import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A `DynamicStore` answers the string language as `Results.where(_:_:)` does on the shapes past
/// outside checks found wrong: embedded objects (through a to-one link, in a List, in a Map), mixed
/// values (in the property, a List, a Map) and custom types stored as Decimal128. Generated queries,
/// each compared key by key and in order.
@Suite(.fixtureChecks) struct DynamicQueryParityTests {
    static let cities = ["Oslo", "oslo", "Bergen", "Åsane", "", "Tromsø"]

    /// How many queries were answered (not refused), and with objects.
    struct Tally: CustomStringConvertible {
        var answered = 0
        var nonEmpty = 0

        mutating func count(_ outcome: String) {
            guard !outcome.hasPrefix("refused") else { return }
            answered += 1
            if !outcome.isEmpty { nonEmpty += 1 }
        }

        var description: String { "\(answered) answered, \(nonEmpty) with objects" }
    }

    /// The keys a query finds, or the error it is refused with (both forms refuse alike).
    static func outcome(_ query: () throws -> [String]) -> String {
        do {
            return try query().joined(separator: ",")
        } catch {
            return "refused: \(error)"
        }
    }

    @Test("embedded objects: paths through to-one, List and Map links, with clauses")
    func embeddedObjects() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        var random = SplitMix64(state: 61)
        func address() -> Address? {
            guard Int.random(in: 0..<5, using: &random) > 0 else { return nil }
            let address = Address(
                Self.cities.randomElement(using: &random)!, street: "\(Int.random(in: 0..<9, using: &random))")
            if Bool.random(using: &random) {
                let position = Position()
                position.latitude = Double(Int.random(in: -3...3, using: &random))
                address.position = position
            }
            return address
        }
        try store.write {
            for id in 0..<120 {
                let resident = Resident(id: id)
                resident.address = address()
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    if let previous = address() { resident.previous.append(previous) }
                }
                if Bool.random(using: &random) { resident.byLabel["home"] = address() }
                try store.add(resident)
            }
        }
        let file = try DynamicStore(path: fixture.path)
        let conditions = [
            "address.city == $0", "address.city BEGINSWITH[c] $0", "address == nil", "address.street > $1",
            "address.position.latitude > $2", "address.position == nil", "ANY previous.city ==[c] $0",
            "ALL previous.city != $0", "previous.@count >= $3", "byLabel.@count == $3", "NONE previous.street == $1",
            "SUBQUERY(previous, $p, $p.city == $0).@count > 0",
        ]
        let clauses = [
            "", " SORT(address.city ASC, id DESC)", " LIMIT(7)", " SORT(address.street DESC) LIMIT(5)",
            " DISTINCT(address.city)", " LIMIT(9) SORT(id DESC)",
        ]
        var tally = Tally()
        for round in 0..<300 {
            let arguments: [any Sendable] = [
                Self.cities.randomElement(using: &random)!, "\(Int.random(in: 0..<9, using: &random))",
                Double(Int.random(in: -3...3, using: &random)), Int.random(in: 0...2, using: &random),
            ]
            var condition = conditions.randomElement(using: &random)!
            if Bool.random(using: &random) {
                let joiner = Bool.random(using: &random) ? "AND" : "OR NOT"
                condition = "(\(condition)) \(joiner) \(conditions.randomElement(using: &random)!)"
            }
            let query = condition + clauses.randomElement(using: &random)!
            let expected = Self.outcome {
                try store.objects(Resident.self).where(query, arguments: arguments).map { String($0.id) }
            }
            let found = Self.outcome {
                try file.objects(ofType: "Resident", where: query, arguments: arguments).map(\.primaryKey)
            }
            #expect(found == expected, "round \(round): \(query) \(arguments)")
            if found != expected { return }
            tally.count(found)
        }
        #expect(tally.answered >= 150 && tally.nonEmpty >= 60, "\(tally): the generator asks too little")
    }

    @Test("mixed values and Decimal128: in the property, a List and a Map")
    func mixedValuesAndDecimals() throws {
        let fixture = Fixture([Setting.self, Invoice.self])
        let store = try fixture.open()
        var random = SplitMix64(state: 67)
        func value() -> AnyValue {
            switch Int.random(in: 0..<7, using: &random) {
            case 0: .none
            case 1: .int(Int.random(in: -2...2, using: &random))
            case 2: .double(Double(Int.random(in: -4...4, using: &random)) / 2)
            case 3: .string(Self.cities.randomElement(using: &random)!)
            case 4: .bool(Bool.random(using: &random))
            case 5: .decimal128(Decimal128(Int.random(in: -2...2, using: &random)))
            default: .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...2, using: &random))))
            }
        }
        try store.write {
            for index in 0..<120 {
                let setting = Setting("s\(index)", value())
                for _ in 0..<Int.random(in: 0...3, using: &random) { setting.history.append(value()) }
                if Bool.random(using: &random) { setting.extras["a"] = value() }
                try store.add(setting)
                let invoice = Invoice()
                invoice.id = index
                invoice.total = Money(persistedValue: Decimal128(Int.random(in: -3...3, using: &random)))
                if Bool.random(using: &random) {
                    invoice.discount = Money(persistedValue: Decimal128(Int.random(in: 0...2, using: &random)))
                }
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    invoice.lines.append(Money(persistedValue: Decimal128(Int.random(in: 0...3, using: &random))))
                }
                try store.add(invoice)
            }
        }
        let file = try DynamicStore(path: fixture.path)
        let settingConditions = [
            "value == $0", "value != $0", "value > $0", "value <= $0", "ANY history == $0", "extras['a'] == $0",
            "extras.@count == 1", "history.@count > 1", "value BEGINSWITH[c] 'o'", "ANY extras.@values == $0",
        ]
        let invoiceConditions = [
            "total > $0", "total == $0", "discount == nil", "discount >= $0", "ANY lines < $0", "lines.@sum > $0",
            "lines.@max == $0", "total BETWEEN {$0, 2}",
        ]
        let clauses = ["", " LIMIT(6)", " SORT(id DESC) LIMIT(4)", " SORT(name DESC)", " DISTINCT(name)"]
        var tally = Tally()
        for round in 0..<300 {
            let operand: any Sendable =
                switch Int.random(in: 0..<5, using: &random) {
                case 0: Int.random(in: -2...2, using: &random)
                case 1: Double(Int.random(in: -4...4, using: &random)) / 2
                case 2: Self.cities.randomElement(using: &random)!
                case 3: Bool.random(using: &random)
                default: Decimal128(Int.random(in: -2...2, using: &random))
                }
            if round.isMultiple(of: 2) {
                let clause = clauses.randomElement(using: &random)!.replacingOccurrences(of: "id", with: "name")
                let query = settingConditions.randomElement(using: &random)! + clause
                let expected = Self.outcome { try store.objects(Setting.self).where(query, operand).map(\.name) }
                let found = Self.outcome {
                    try file.objects(ofType: "Setting", where: query, arguments: [operand]).map(\.primaryKey)
                }
                #expect(found == expected, "round \(round): \(query) \(operand)")
                if found != expected { return }
                tally.count(found)
            } else {
                let number = Decimal128(Int.random(in: -3...3, using: &random))
                let clause = clauses.randomElement(using: &random)!.replacingOccurrences(of: "name", with: "id")
                let query = invoiceConditions.randomElement(using: &random)! + clause
                let expected = Self.outcome {
                    try store.objects(Invoice.self).where(query, number).map { String($0.id) }
                }
                let found = Self.outcome {
                    try file.objects(ofType: "Invoice", where: query, arguments: [number]).map(\.primaryKey)
                }
                #expect(found == expected, "round \(round): \(query) \(number)")
                if found != expected { return }
                tally.count(found)
            }
        }
        #expect(tally.answered >= 150 && tally.nonEmpty >= 60, "\(tally): the generator asks too little")
    }
}
