import Foundation
import StrataTestSupport
import Testing

@_spi(StrataSync) @testable import Strata

enum CollectionsV1 {
    final class Card: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
        @Persisted var amount: Double
    }
}

enum CollectionsV2 {
    final class Card: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
        @Persisted var labels: Map<String, String>
        @Persisted var marks: MutableSet<Int>
        @Persisted var balance: Decimal128
        @Persisted var reference: ObjectId?
    }
}

/// The layers every model type passes through: handoff between threads, frozen snapshots, the
/// dynamic API, migrations.
@Suite("Model types through every layer", .fixtureChecks)
struct ModelLayersTests {
    @Test("a Map and a MutableSet handed to another thread by ThreadSafeReference; a deleted owner resolves to nil")
    func threadSafeReference() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            contact.phones["home"] = "1"
            contact.tags.insert(objectsIn: ["x", "y"])
            try store.add(contact)
        }
        let phones = Unchecked(try ThreadSafeReference(to: contact.phones))
        let tags = Unchecked(try ThreadSafeReference(to: contact.tags))
        let seen = onAnotherThread { () -> String in
            guard let other = try? fixture.open(), let map = try? other.resolve(phones.value),
                let set = try? other.resolve(tags.value)
            else { return "unresolved" }
            return "\(map.keys) \(Array(set))"
        }
        #expect(seen == "[\"home\"] [\"x\", \"y\"]")
        #expect(throws: StoreError.self) { try ThreadSafeReference(to: Contact(name: "u").phones) }
        // A Map's handoff is no MutableSet's.
        #expect(throws: StoreError.self) { try MutableSet<String>._resolve(try contact.phones._handoff(), in: store) }
        let gone = Unchecked(try ThreadSafeReference(to: contact.tags))
        try store.write { try store.delete(contact) }
        let resolved = onAnotherThread { () -> Bool in
            guard let other = try? fixture.open() else { return false }
            guard case .some(.none) = try? other.resolve(gone.value) else { return false }
            return true
        }
        #expect(resolved)
    }

    @Test("a frozen object's Map and MutableSet read from any thread and keep their snapshot")
    func frozen() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            contact.phones["home"] = "1"
            contact.lucky.insert(objectsIn: [3, 1])
            try store.add(contact)
        }
        let frozen = Unchecked(try contact.freeze())
        try store.write { contact.phones["work"] = "2" }
        let seen = onAnotherThread { "\(frozen.value.phones.keys) \(Array(frozen.value.lucky))" }
        #expect(seen == "[\"home\"] [1, 3]")
    }

    @Test("the dynamic API reads a Map as [String: Any], a set as an array, ObjectId and Decimal128 as themselves")
    func dynamicValues() throws {
        let fixture = Fixture([Contact.self, Ledger.self])
        let id = try ObjectId(string: "0123456789abcdef01234567")
        do {
            let store = try fixture.open()
            try store.write {
                let contact = Contact(name: "a")
                contact.id = id
                contact.phones["home"] = "1"
                contact.scores["none"] = .some(nil)
                contact.prices.insert(objectsIn: ["2.5", "1"])
                try store.add(contact)
                try store.add(Ledger(amount: "7.25"))
            }
        }
        let file = try DynamicStore(path: fixture.configuration.fileURL!.path)
        var values: [String: Any?] = [:]
        try file.forEachObject(ofType: "Contact") { object in
            for (name, value) in object.values { values[name] = value }
        }
        #expect((values["id"] as? ObjectId) == id)
        #expect((values["phones"] as? [String: Any])?["home"] as? String == "1")
        #expect((values["scores"] as? [String: Any])?.keys.sorted() == ["none"])
        #expect((values["prices"] as? [Any])?.compactMap { $0 as? Decimal128 } == ["1", "2.5"])
        try file.verify()
    }

    @Test("a migration adds Map, MutableSet, Decimal128 and ObjectId properties and fills them from the block")
    func migration() throws {
        let fixture = Fixture([CollectionsV1.Card.self])
        do {
            let store = try fixture.open()
            try store.write {
                for id in 1...3 {
                    let card = CollectionsV1.Card()
                    card.id = id
                    card.name = "card \(id)"
                    card.amount = Double(id) + 0.25
                    try store.add(card)
                }
            }
        }
        var configuration = Store.Configuration(
            fileURL: fixture.configuration.fileURL!, objectTypes: [CollectionsV2.Card.self])
        configuration.schemaVersion = 1
        configuration.migration = { migration, _ in
            try migration.enumerateObjects(ofType: "Card") { old, new in
                let name = old?["name"] as? String ?? ""
                new?["labels"] = ["name": name, "upper": name.uppercased()]
                new?["marks"] = [3, 1, 3]
                new?["balance"] = old?["amount"]
                new?["reference"] = "0123456789abcdef01234567"
            }
        }
        let store = try Store(configuration: configuration)
        let cards = store.objects(CollectionsV2.Card.self)
        #expect(cards.map { $0.labels["upper"] ?? "" } == ["CARD 1", "CARD 2", "CARD 3"])
        #expect(cards.map { Array($0.marks) } == [[1, 3], [1, 3], [1, 3]])
        #expect(cards.map(\.balance) == ["1.25", "2.25", "3.25"])
        #expect(cards.first?.reference?.stringValue == "0123456789abcdef01234567")
        #expect(cards.where { $0.labels["name"] == "card 2" }.count == 1)
        try store.verify()
    }

    @Test("sync carries embedded objects inside their owner, and refuses a link to a type keyed by row ids")
    func syncSchemaOfEmbeddedLinks() throws {
        let fixture = Fixture([Resident.self, Contact.self, Order.self])
        let store = try fixture.open()
        // A type keyed by row ids cannot be named on another client.
        #expect { try store.syncSchema(of: [Order.self]) } throws: {
            isCase($0, .schemaMismatch("")) && "\($0)".contains("Order.lines links to OrderLine")
        }
        #expect(try store.syncSchema(of: [Contact.self]).first?.primaryKey == "id")
        // Embedded objects travel inside their owner.
        let resident = try #require(try store.syncSchema(of: [Resident.self]).first)
        #expect(
            resident.properties.first { $0.name == "address" }?.type.description
                == "embedded(Address{street: string, city: string, position: embedded(Position{latitude: double, longitude: double})})"
        )
    }
}
