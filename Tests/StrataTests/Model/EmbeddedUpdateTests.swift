import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Embedded objects under updates, as Realm: `add(_:update:)` updates the stored embedded objects in
/// place (an accessor kept from before reads the new values); one embedded object never takes a
/// second place (`list.append(list[0])`, `map["b"] = map["a"]` are refused, nothing stored).
@Suite("Embedded objects under updates", .fixtureChecks)
struct EmbeddedUpdateTests {
    /// A resident with an address (and its position), two previous addresses and one by label.
    static func stored(_ store: Store) throws -> Resident {
        let resident = Resident(id: 1)
        resident.address = Address("Oslo", street: "Karl Johans gate")
        resident.address?.position = Position()
        resident.previous.append(objectsIn: [Address("Bergen"), Address("Tromsø")])
        resident.byLabel["work"] = Address("Trondheim")
        try store.write { try store.add(resident) }
        return resident
    }

    @Test(
        "add(update: .modified) updates the embedded objects in place: accessors kept from before read the new values")
    func modifiedUpdatesInPlace() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let resident = try Self.stored(store)
        let address = try #require(resident.address)
        let position = try #require(address.position)
        let firstPrevious = resident.previous[0]
        let work = try #require(resident.byLabel["work"] ?? nil)

        let update = Resident(id: 1)
        update.address = Address("Oslo", street: "Storgata")
        update.address?.position = Position()
        update.address?.position?.latitude = 59.9
        update.previous.append(objectsIn: [Address("Bodø"), Address("Tromsø")])
        update.byLabel["work"] = Address("Stavanger")
        try store.write { try store.add(update, update: .modified) }

        #expect(!address.isInvalidated)
        #expect(address.street == "Storgata")
        #expect(position.latitude == 59.9)
        #expect(!firstPrevious.isInvalidated)
        #expect(firstPrevious.city == "Bodø")
        #expect(work.city == "Stavanger")
        #expect(store.objects(Address.self).map(\.city).sorted() == ["Bodø", "Oslo", "Stavanger", "Tromsø"])
        #expect(store.objects(Position.self).count == 1)
        #expect(try store.verify().orphans.isEmpty)
    }

    @Test("add(update: .all) does the same; a shorter List drops the rest, a longer one adds new objects")
    func allAndLengths() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let resident = try Self.stored(store)
        let kept = resident.previous[0]
        let dropped = resident.previous[1]
        let shorter = Resident(id: 1)
        shorter.address = Address("Oslo")
        shorter.previous.append(Address("Narvik"))
        try store.write { try store.add(shorter, update: .all) }
        #expect(kept.city == "Narvik")
        #expect(dropped.isInvalidated)
        #expect(store.objects(Position.self).isEmpty)  // the new address has none: the stored one's went
        #expect(resident.byLabel.count == 0)

        let longer = Resident(id: 1)
        longer.previous.append(objectsIn: [Address("Alta"), Address("Hamar"), Address("Molde")])
        try store.write { try store.add(longer, update: .modified) }
        #expect(kept.city == "Alta")
        #expect(resident.previous.map(\.city) == ["Alta", "Hamar", "Molde"])
        #expect(resident.address == nil)
        #expect(try store.verify().orphans.isEmpty)
    }

    @Test("an update that changes nothing of an embedded object leaves it (and its owner) unchanged")
    func unchanged() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let resident = try Self.stored(store)
        let address = try #require(resident.address)
        var modifications: [[Int]] = []
        let token = try store.objects(Address.self).observe { change in
            if case .update(_, _, _, let modified) = change { modifications.append(modified) }
        }
        let same = Resident(id: 1)
        same.address = Address("Oslo", street: "Karl Johans gate")
        same.address?.position = Position()
        same.previous.append(objectsIn: [Address("Bergen"), Address("Tromsø")])
        same.byLabel["work"] = Address("Trondheim")
        try store.write { try store.add(same, update: .modified) }
        try store.refresh()
        #expect(modifications.isEmpty)
        #expect(address.city == "Oslo")
        token.invalidate()
    }

    @Test("add refuses a row that holds one embedded object twice (typed error, nothing stored)")
    func addRefusesTwice() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let resident = try Self.stored(store)
        let again = Resident(id: 1)
        again.previous.append(objectsIn: [resident.previous[0], resident.previous[0]])
        #expect { try store.write { try store.add(again, update: .modified) } } throws: { error in
            isCase(error, .invalidArgument("")) && "\(error)".contains("existing managed embedded object")
        }
        let twice = Address("Lillehammer")
        let fresh = Resident(id: 2)
        fresh.previous.append(objectsIn: [twice, twice])
        #expect { try store.write { try store.add(fresh) } } throws: { error in
            isCase(error, .invalidArgument("")) && "\(error)".contains("existing managed embedded object")
        }
        #expect(resident.previous.map(\.city) == ["Bergen", "Tromsø"])
        #expect(store.objects(Resident.self).count == 1)
        #expect(store.objects(Address.self).count == 4)
    }

    // MARK: Traps

    static func setUp(_ path: String) -> (Store, Resident) {
        let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Resident.self])
        do {
            let store = try Store(configuration: configuration)
            return (store, try stored(store))
        } catch {
            fatalError("setting up the child failed: \(error)")
        }
    }

    static func appendTheFirstAgain(_ path: String) {
        let (store, resident) = setUp(path)
        try? store.write { resident.previous.append(resident.previous[0]) }
    }

    static func copyAMapValue(_ path: String) {
        let (store, resident) = setUp(path)
        try? store.write { resident.byLabel["home"] = resident.byLabel["work"] ?? nil }
    }

    /// The file a trapped child left: its setup, and nothing of the refused write.
    static func addressesLeft(_ path: String) throws -> [String] {
        let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Resident.self])
        let store = try Store(configuration: configuration)
        let resident = try #require(store.object(ofType: Resident.self, forPrimaryKey: 1))
        return resident.previous.map(\.city) + resident.byLabel.map(\.key)
    }

    @Test("list.append(list[0]) of embedded objects traps naming the refusal; nothing is stored")
    func appendTheFirstAgainTraps() async throws {
        let fixture = Fixture([Resident.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            EmbeddedUpdateTests.appendTheFirstAgain(path)
        }
        let output = standardError(of: result)
        #expect(output.contains("Strata: cannot set Resident.previous: cannot add an existing managed embedded object"))
        #expect(try Self.addressesLeft(path) == ["Bergen", "Tromsø", "work"])
    }

    @Test("map[\"b\"] = map[\"a\"] of an embedded object traps naming the refusal; nothing is stored")
    func copyAMapValueTraps() async throws {
        let fixture = Fixture([Resident.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            EmbeddedUpdateTests.copyAMapValue(path)
        }
        let output = standardError(of: result)
        #expect(output.contains("Strata: cannot set Resident.byLabel: cannot add an existing managed embedded object"))
        #expect(try Self.addressesLeft(path) == ["Bergen", "Tromsø", "work"])
    }
}
