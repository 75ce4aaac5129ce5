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

enum ConversionV1 {
    final class Item: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var tags: MutableSet<String>
        @Persisted var amount: Double
        @Persisted var code: String
        @Persisted var extra: Int
        @Persisted var scores: Map<String, Int>
        @Persisted var old: Map<String, Int>
    }
}

enum ConversionV2 {
    final class Item: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var tags: List<String>
        @Persisted var amount: Decimal128
        @Persisted var code: ObjectId
        @Persisted var extra: AnyValue
        @Persisted var scores: Map<String, Int?>
        @Persisted var added: Map<String, String>
    }
}

/// `change` as another client pulls it from the server, as sequence `sequence` (`bytes`: every
/// property's bytes replaced, to send damage).
private func pulled(_ change: OutgoingChange, _ sequence: Int64, bytes: [UInt8]?? = nil) throws -> IncomingChange {
    IncomingChange(
        sequence: sequence, typeName: change.typeName, kind: change.kind, key: change.key,
        properties: try ChangePayload.decode(change.payload).map {
            IncomingChange.Property(name: $0.name, bytes: bytes ?? $0.bytes, isMapPatch: $0.isMapPatch)
        })
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
        #expect(throws: StoreError.notManaged) { try ThreadSafeReference(to: Contact(name: "u").phones) }
        // A Map's handoff is no MutableSet's.
        #expect { try MutableSet<String>._resolve(try contact.phones._handoff(), in: store) } throws: {
            isCase($0, .invalidArgument(""))
        }
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

    @Test(
        "embedded objects in sync: an in-place change is the owner's; a pulled image is stored once; damaged bytes are refused"
    )
    func embeddedImages() throws {
        let sending = try Fixture([Resident.self]).open()
        try sending.captureChanges(of: [Resident.self])
        let resident = Resident(id: 1)
        resident.address = Address("Oslo", street: "Storgata 1")
        resident.previous.append(Address("Bergen"))
        resident.byLabel["home"] = Address("Tromsø")
        try sending.write { try sending.add(resident) }
        let insert = try #require(try sending.outgoingChanges().changes.first)
        #expect(insert.kind == .insert)
        #expect(insert.typeName == "Resident")
        // Only the embedded row changes: the outbox records the owner's property.
        try sending.write { resident.address?.city = "Trondheim" }
        let update = try #require(try sending.outgoingChanges(after: insert.sequence).changes.first)
        #expect(update.kind == .update)
        #expect(update.typeName == "Resident")
        #expect(update.properties.map(\.name) == ["address"])
        guard case .map(let address) = update.properties[0].value else {
            Issue.record("\(update.properties[0].value)")
            return
        }
        #expect(address["city"] == .string("Trondheim"))
        #expect(address["street"] == .string("Storgata 1"))

        let receiving = try Fixture([Resident.self]).open()
        try receiving.write { try receiving.applyIncomingChanges([pulled(insert, 1)], through: 1) }
        try receiving.write { try receiving.applyIncomingChanges([pulled(update, 2)], through: 2) }
        let received = try #require(receiving.object(ofType: Resident.self, forPrimaryKey: 1))
        #expect(received.address?.city == "Trondheim")
        #expect(received.previous.map(\.city) == ["Bergen"])
        #expect(receiving.objects(Address.self).count == 3)
        // In place inside a Map: the whole Map travels as an image (no per-key patch of row ids).
        try sending.write { resident.byLabel["home"]??.city = "Bodø" }
        let inMap = try #require(try sending.outgoingChanges(after: update.sequence).changes.first)
        #expect(inMap.properties.map(\.name) == ["byLabel"])
        #expect(inMap.properties.allSatisfy { !$0.isMapPatch })
        try receiving.write { try receiving.applyIncomingChanges([pulled(inMap, 3)], through: 3) }
        #expect(received.byLabel["home"]??.city == "Bodø")
        #expect(receiving.objects(Address.self).count == 3)
        // The same image again changes nothing (no new rows); a damaged one is refused, nothing applied.
        #expect(try receiving.write { try receiving.applyIncomingChanges([pulled(update, 4)], through: 4) } == 0)
        #expect(receiving.objects(Address.self).count == 3)
        let image = try #require(try ChangePayload.decode(update.payload)[0].bytes)
        let damagedImages: [[UInt8]] = [
            Array(image.dropLast(3)), [UInt8]([0xFF]) + Array(image.dropFirst()), [UInt8](repeating: 0, count: 5),
        ]
        for damaged in damagedImages {
            let change = try pulled(update, 5, bytes: .some(damaged))
            #expect {
                try receiving.write { try receiving.applyIncomingChanges([change], through: 5) }
            } throws: { isCase($0, .corrupted("")) }
        }
        #expect(receiving.object(ofType: Resident.self, forPrimaryKey: 1)?.address?.city == "Trondheim")
        #expect(try receiving.verify().orphans.isEmpty)
    }

    @Test("sync sends the Map keys an update set or removed (a patch), applies them per key, refuses damaged patches")
    func mapPatches() throws {
        let sending = try Fixture([Contact.self]).open()
        try sending.captureChanges(of: [Contact.self])
        let contact = Contact(name: "a")
        contact.phones["home"] = "1"
        contact.phones["work"] = "1"
        contact.scores["none"] = .some(nil)
        try sending.write { try sending.add(contact) }
        try sending.write {
            contact.phones["home"] = "2"
            contact.phones["work"] = nil
            contact.phones["new"] = "3"
            contact.scores["ten"] = 10
        }
        let changes = try sending.outgoingChanges().changes
        #expect(changes.map(\.kind) == [.insert, .update])
        let patch = try #require(changes[1].properties.first { $0.name == "phones" })
        #expect(patch.name == "phones")
        #expect(patch.isMapPatch)
        #expect(patch.value == .mapPatch(set: ["home": .string("2"), "new": .string("3")], removed: ["work"]))
        // A write that sets a Map to what it holds sends nothing for it.
        try sending.write { contact.phones["home"] = "2" }
        #expect(try sending.outgoingChanges(after: changes[1].sequence).changes.allSatisfy(\.properties.isEmpty))

        let receiving = try Fixture([Contact.self]).open()
        try receiving.write { try receiving.applyIncomingChanges([pulled(changes[0], 1)], through: 1) }
        let received = try #require(receiving.objects(Contact.self).first)
        try receiving.write { received.phones["mine"] = "x" }  // a key only this client has: kept
        try receiving.write { try receiving.applyIncomingChanges([pulled(changes[1], 2)], through: 2) }
        #expect(received.phones.map { "\($0.key)=\($0.value)" } == ["home=2", "mine=x", "new=3"])
        // A null value the patch does not name stays (a key with nil, not a removed key).
        #expect(received.scores.map { "\($0.key)=\($0.value.map(String.init) ?? "nil")" } == ["none=nil", "ten=10"])
        for damaged in [[UInt8]([1, 0, 0, 0]), [2, 0, 0, 0, 1, 0, 0, 0, 0x61, 1, 0, 0, 0, 9], [0xFF]] {
            let change = try pulled(changes[1], 3, bytes: .some(damaged))
            #expect {
                try receiving.write { try receiving.applyIncomingChanges([change], through: 3) }
            } throws: { isCase($0, .corrupted("")) }
        }
        #expect(received.phones.count == 3)
    }

    @Test("outbox records of version 2 (before Map keys were recorded) still read")
    func outboxVersion2Records() throws {
        var record: [UInt8] = [2, 2, 4, 0] + Array("Type".utf8) + [1, 0, 7, 2, 0, 0, 0, 3, 0]
        let entries = try record.withUnsafeBytes { try OutboxEntry.decodeRecord($0) }
        #expect(entries == [OutboxEntry(kind: .update, typeName: "Type", key: [7], columns: [0, 3])])
        record[0] = 9
        #expect(throws: RowDamage.self) { try record.withUnsafeBytes { try OutboxEntry.decodeRecord($0) } }
    }

    @Test(
        "a migration without a block keeps values that convert without loss: a set to a List, Double to Decimal128, Int to AnyValue, Map values made optional; a narrowing one takes the initial value"
    )
    func automaticConversions() throws {
        let fixture = Fixture([ConversionV1.Item.self])
        do {
            let store = try fixture.open()
            let item = ConversionV1.Item()
            item.id = 1
            item.tags.insert(objectsIn: ["b", "a"])
            item.scores["x"] = 3
            item.amount = 2.5
            item.code = "0123456789abcdef01234567"
            item.extra = 5
            item.old["x"] = 1
            try store.write { try store.add(item) }
        }
        var configuration = Store.Configuration(
            fileURL: fixture.configuration.fileURL!, objectTypes: [ConversionV2.Item.self])
        configuration.schemaVersion = 1
        let store = try Store(configuration: configuration)
        let item = try #require(store.objects(ConversionV2.Item.self).first)
        #expect(Array(item.tags) == ["a", "b"])
        #expect(item.amount == "2.5")
        #expect(
            item.code.stringValue != "0123456789abcdef01234567",
            "a String may not be an ObjectId: the block converts it")
        #expect(item.extra == .int(5))
        #expect(item.scores["x"] == .some(3))
        #expect(item.added.isEmpty)
        try store.verify()
    }
}
