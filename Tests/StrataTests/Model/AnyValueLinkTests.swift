import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `AnyValue.object`: an unmanaged target is added with the object that holds it (as Realm does, as
/// Strata does for links and Lists), in plain values and nested mixed lists and maps; queries find a
/// stored link by its object, in both query forms.
@Suite("AnyValue links", .fixtureChecks)
struct AnyValueLinkTests {
    @Test("add stores an unmanaged object held in an AnyValue: in the property, a List, a Map, a set, nested")
    func addStoresTargets() throws {
        let fixture = Fixture([Setting.self, Person.self])
        let store = try fixture.open()
        let setting = Setting("s", .object(Person(id: 1, name: "Ann")))
        setting.history.append(.object(Person(id: 2, name: "Bo")))
        setting.history.append(.list([.int(1), .object(Person(id: 3, name: "Cy"))]))
        setting.extras["k"] = .map(["inner": .object(Person(id: 4, name: "Dee"))])
        setting.distinct.insert(.object(Person(id: 5, name: "Eve")))
        try store.write { try store.add(setting) }
        #expect(store.objects(Person.self).map(\.id) == [1, 2, 3, 4, 5])
        #expect(setting.value.object(Person.self)?.name == "Ann")
        #expect(setting.value.object(Person.self)?.isManaged == true)
        #expect(setting.history[0].object(Person.self)?.name == "Bo")
        guard case .list(let nested) = setting.history[1] else {
            Issue.record("not a list: \(setting.history[1])")
            return
        }
        #expect(nested[1].object(Person.self)?.name == "Cy")
        guard case .map(let entries) = setting.extras["k"] else {
            Issue.record("not a map: \(String(describing: setting.extras["k"]))")
            return
        }
        #expect(entries["inner"]?.object(Person.self)?.name == "Dee")
        #expect(setting.distinct.first?.object(Person.self)?.name == "Eve")
        try store.verify()
    }

    @Test("add(contentsOf:) and add(update: .modified) store the targets of every object, all or nothing")
    func batchesStoreTargets() throws {
        let fixture = Fixture([Setting.self, Person.self])
        let store = try fixture.open()
        try store.write {
            try store.add(contentsOf: [Setting("a", .object(Person(id: 1))), Setting("b", .object(Person(id: 2)))])
        }
        #expect(store.objects(Person.self).count == 2)
        try store.write { try store.add(Setting("a", .object(Person(id: 3))), update: .modified) }
        #expect(store.object(ofType: Setting.self, forPrimaryKey: "a")?.value.object(Person.self)?.id == 3)
        // A duplicate key under `.error` stores neither the setting nor its target.
        #expect {
            try store.write { try store.add(Setting("b", .object(Person(id: 4)))) }
        } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(store.objects(Person.self).map(\.id) == [1, 2, 3])
    }

    @Test("setting an AnyValue (or a mixed List or Map element) to an unmanaged object adds it")
    func settersStoreTargets() throws {
        let fixture = Fixture([Setting.self, Person.self])
        let store = try fixture.open()
        let setting = Setting("s", .none)
        try store.write { try store.add(setting) }
        try store.write {
            setting.value = .object(Person(id: 1, name: "Ann"))
            setting.history.append(.object(Person(id: 2, name: "Bo")))
            setting.extras["k"] = .list([.object(Person(id: 3, name: "Cy"))])
            setting.distinct.insert(.object(Person(id: 4, name: "Dee")))
        }
        #expect(store.objects(Person.self).map(\.name) == ["Ann", "Bo", "Cy", "Dee"])
        #expect(setting.value.object(Person.self)?.name == "Ann")
        #expect(setting.history.first?.object(Person.self)?.name == "Bo")
        #expect(setting.distinct.first?.object(Person.self)?.name == "Dee")
        try store.verify()
    }

    @Test("an EmbeddedObject in an AnyValue is refused with a typed error, and nothing is stored")
    func embeddedRefused() throws {
        let fixture = Fixture([Setting.self, Resident.self, Address.self, Position.self])
        let store = try fixture.open()
        #expect {
            try store.write { try store.add(Setting("s", .object(Address("Oslo")))) }
        } throws: { error in
            guard case StoreError.invalidArgument(let message) = error else { return false }
            return message.contains("EmbeddedObject")
        }
        #expect(store.objects(Setting.self).isEmpty)
        #expect(store.objects(Address.self).isEmpty)
    }

    // MARK: Queries

    /// Settings whose values are drawn from people, numbers, strings and none.
    struct Scene {
        let fixture: Fixture
        let store: Store
        let people: [Person]

        init(seed: UInt64, settings: Int = 60) throws {
            fixture = Fixture([Setting.self, Person.self])
            store = try fixture.open()
            var random = SplitMix64(state: seed)
            let people = (1...4).map { Person(id: $0, name: "p\($0)") }
            self.people = people
            try store.write {
                try store.add(contentsOf: people)
                for index in 0..<settings {
                    let setting = Setting("s\(index)", Self.value(people, &random))
                    for _ in 0..<Int.random(in: 0...3, using: &random) {
                        setting.history.append(Self.value(people, &random))
                    }
                    for key in ["a", "b"] where Bool.random(using: &random) {
                        setting.extras[key] = Self.value(people, &random)
                    }
                    try store.add(setting)
                }
            }
        }

        static func value(_ people: [Person], _ random: inout SplitMix64) -> AnyValue {
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1: .object(people.randomElement(using: &random)!)
            case 2: .int(Int.random(in: 1...4, using: &random))
            case 3: .string("p\(Int.random(in: 1...4, using: &random))")
            default: .none
            }
        }
    }

    /// The reference: what Swift says of two stored values (an object by its primary key; numbers as
    /// numbers; none equals none).
    static func same(_ lhs: AnyValue, _ rhs: AnyValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): (a as? Person)?.id == (b as? Person)?.id
        case (.int(let a), .int(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.none, .none): true
        default: false
        }
    }

    /// A value as the string language takes it: the object, number or string itself; nil for none.
    static func argument(_ value: AnyValue) -> Any {
        switch value {
        case .object(let object): object
        case .int(let int): int
        case .string(let string): string
        default: Optional<Int>.none as Any
        }
    }

    @Test("== .object(x), != and contains find the stored link, as the reference does (seeded)", arguments: [7, 8, 9])
    func queriesAgainstTheReference(seed: UInt64) throws {
        let scene = try Scene(seed: seed)
        defer { _ = scene }
        let all = scene.store.objects(Setting.self)
        var random = SplitMix64(state: seed &+ 100)
        for _ in 0..<100 {
            let operand = Scene.value(scene.people, &random)
            func names(_ keep: (Setting) -> Bool) -> [String] { all.filter(keep).map(\.name).sorted() }
            func found(_ results: Results<Setting>) -> [String] { results.map(\.name).sorted() }
            let equal = names { Self.same($0.value, operand) }
            #expect(found(all.where { $0.value == operand }) == equal, "== \(operand)")
            #expect(
                found(all.where { $0.value != operand }) == names { !Self.same($0.value, operand) }, "!= \(operand)")
            #expect(found(all.where { $0.value.in([operand]) }) == equal, "IN \(operand)")
            let inHistory = names { setting in setting.history.contains { Self.same($0, operand) } }
            #expect(found(all.where { $0.history.contains(operand) }) == inHistory, "history CONTAINS \(operand)")
            let inExtras = names { setting in setting.extras.values.contains { Self.same($0, operand) } }
            #expect(found(all.where { $0.extras.values.contains(operand) }) == inExtras, "extras CONTAINS \(operand)")
            #expect(
                found(try all.where("value == $0", arguments: [Self.argument(operand)])) == equal,
                "language == \(operand)")
            #expect(
                found(try all.where("ANY history == $0", arguments: [Self.argument(operand)])) == inHistory,
                "ANY \(operand)")
            #expect(
                found(try all.where("$0 IN history", arguments: [Self.argument(operand)])) == inHistory,
                "$0 IN \(operand)")
        }
    }

    @Test("an unmanaged object in a query matches no stored value")
    func unmanagedOperand() throws {
        let scene = try Scene(seed: 1)
        let all = scene.store.objects(Setting.self)
        let stranger = AnyValue.object(Person(id: 1))
        #expect(all.where { $0.value == stranger }.isEmpty)
        #expect(all.where { $0.value != stranger }.count == all.count)
        #expect(all.where { $0.history.contains(stranger) }.isEmpty)
    }
}
