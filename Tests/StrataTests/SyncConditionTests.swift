import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@_spi(StrataSync) @testable import Strata

@Suite("A query's condition as data (what sync's subscriptions send a server)", .fixtureChecks)
struct SyncConditionTests {
    @Test("the closure form and the string form give the same condition, values typed by the property")
    func bothFormsAgree() throws {
        let store = try Fixture().open()
        let people = store.objects(Person.self)
        let closure = try people.where { $0.age >= 18 && ($0.name.starts(with: "A") || $0.email == nil) }
            .syncCondition()
        let text = try people.where("age >= $0 AND (name BEGINSWITH 'A' OR email == nil)", 18).syncCondition()
        #expect(closure == text)
        let age = SyncCondition.comparison(
            SyncComparison(property: "age", type: .integer, operator: .greaterOrEqual, values: [.integer(18)]))
        let name = SyncCondition.comparison(
            SyncComparison(property: "name", type: .string, operator: .beginsWith, values: [.string("A")]))
        let noEmail = SyncCondition.comparison(
            SyncComparison(property: "email", type: .optional(.string), operator: .equal, values: [.null]))
        #expect(closure == .and(age, .or(name, noEmail)))
    }

    @Test("IN, !=, NOT, [c], stacked where stages and the whole table")
    func operators() throws {
        let store = try Fixture().open()
        let people = store.objects(Person.self)
        let condition = try people.where { $0.id.in([1, 2]) }.where { !($0.name != "x") }
            .where("name CONTAINS[c] 'nn'").syncCondition()
        let ids = SyncCondition.comparison(
            SyncComparison(property: "id", type: .integer, operator: .oneOf, values: [.integer(1), .integer(2)]))
        let notX = SyncCondition.not(
            .comparison(SyncComparison(property: "name", type: .string, operator: .notEqual, values: [.string("x")])))
        let contains = SyncCondition.comparison(
            SyncComparison(
                property: "name", type: .string, operator: .contains, values: [.string("nn")], caseInsensitive: true))
        #expect(condition == .and(.and(ids, notX), contains))
        #expect(try people.syncCondition() == .constant(true))
        #expect(try people.where("TRUEPREDICATE").syncCondition() == .constant(true))
    }

    @Test("what a server cannot evaluate is .invalidArgument naming it: links, collections, sorts, filters")
    func refusals() throws {
        let store = try Fixture().open()
        let people = store.objects(Person.self)
        let dogs = store.objects(Dog.self)
        let refused = [
            people.where { $0.dogs.count > 1 }, people.sorted(by: \.age), people.filter { $0.age > 1 },
            try people.where("ANY dogs.name == 'Rex'"), try people.where("age > 1 LIMIT(2)"),
        ]
        for results in refused {
            #expect { try results.syncCondition() } throws: { isCase($0, .invalidArgument("")) }
        }
        do {
            _ = try dogs.where { $0.owner.name == "Ann" }.syncCondition()
            Issue.record("a condition through a link was accepted")
        } catch {
            guard case .invalidArgument(let message) = error else { throw error }
            #expect(message.contains("owner.name"))
        }
    }
}
