import Foundation
import StrataTestSupport
import Testing

@testable import Strata

final class KeyedEmbedded: EmbeddedObject {
    @Persisted(primaryKey: true) var id: Int
}

final class HoldsKeyedEmbedded: Object {
    @Persisted var inner: KeyedEmbedded?
}

/// EmbeddedObject, after Realm's embedded-object tests (ObjectCreationTests and ObjectAccessorTests:
/// creating through the owner, replacing, deleting with the owner, refusing to add alone).
@Suite("Embedded objects", .fixtureChecks)
struct EmbeddedObjectTests {
    private func addresses(_ store: Store) -> [String] {
        store.objects(Address.self).map(\.city).sorted()
    }

    @Test("created by assignment (nested too), read and changed through the owner, queried through the link")
    func createdByAssignment() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let resident = Resident(id: 1)
        resident.address = Address("Oslo", street: "Karl Johans gate")
        try store.write { try store.add(resident) }
        #expect(resident.address?.isManaged == true)
        #expect(resident.address?.city == "Oslo")
        try store.write {
            resident.address?.position = Position()
            resident.address?.position?.latitude = 59.9
            resident.previous.append(Address("Bergen"))
            resident.byLabel["work"] = Address("Trondheim")
        }
        #expect(resident.address?.position?.latitude == 59.9)
        #expect(store.objects(Resident.self).where { $0.address.city == "Oslo" }.count == 1)
        #expect(addresses(store) == ["Bergen", "Oslo", "Trondheim"])
        let verified = try store.verify()
        #expect(verified.orphans.isEmpty)
    }

    @Test("replacing, setting nil, removing from a List or a Map deletes the embedded object")
    func replacedDeleted() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let resident = Resident(id: 1)
        try store.write {
            try store.add(resident)
            resident.address = Address("Oslo")
            resident.address?.position = Position()
            resident.previous.append(objectsIn: [Address("Bergen"), Address("Tromsø")])
            resident.byLabel["work"] = Address("Trondheim")
        }
        try store.write { resident.address = Address("Stavanger") }
        #expect(addresses(store) == ["Bergen", "Stavanger", "Tromsø", "Trondheim"])
        #expect(store.objects(Position.self).isEmpty)  // the replaced address took its position
        try store.write {
            resident.previous.remove(at: 0)
            resident.byLabel["work"] = nil
        }
        #expect(addresses(store) == ["Stavanger", "Tromsø"])
        try store.write { resident.address = nil }
        #expect(addresses(store) == ["Tromsø"])
        #expect(try store.verify().orphans.isEmpty)
    }

    @Test("deleting the owner deletes its embedded objects, recursively")
    func deletedWithOwner() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...2 {
                let resident = Resident(id: id)
                resident.address = Address("city \(id)")
                resident.address?.position = Position()
                resident.previous.append(Address("old \(id)"))
                try store.add(resident)
            }
        }
        try store.write { try store.delete(store.object(ofType: Resident.self, forPrimaryKey: 1)!) }
        #expect(addresses(store) == ["city 2", "old 2"])
        #expect(store.objects(Position.self).count == 1)
    }

    @Test("never added alone: invalidArgument, nothing written; never a primary key")
    func refusals() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        #expect { try store.write { try store.add(Address("Oslo")) } } throws: { isCase($0, .invalidArgument("")) }
        #expect { try store.write { try store.add(contentsOf: [Address("Oslo")]) } } throws: {
            isCase($0, .invalidArgument(""))
        }
        #expect(addresses(store).isEmpty)
        #expect { try Fixture([HoldsKeyedEmbedded.self]).open() } throws: { isCase($0, .schemaMismatch("")) }
    }

    @Test("an embedded object has one owner: giving it a second is refused")
    func oneOwner() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let first = Resident(id: 1)
        let second = Resident(id: 2)
        first.address = Address("Oslo")
        try store.write {
            try store.add(first)
            try store.add(second)
        }
        let address = try #require(first.address)
        let secondBinding = try #require(second._tableBinding)
        let column = secondBinding.columnNames.firstIndex(of: "address")!
        try store.write {
            let problem = try store.core.embeddedOwnerProblem(
                address, linkedFrom: column, of: second._key, binding: secondBinding)
            #expect(problem?.contains("one owner") == true)
            let own = try store.core.embeddedOwnerProblem(
                address, linkedFrom: column, of: first._key, binding: secondBinding)
            #expect(own == nil)  // its own owner's link may be set to it again
        }
    }

    @Test("add refuses an object whose link would give an embedded object a second owner; nothing written")
    func addWithOwnedEmbedded() throws {
        let fixture = Fixture([Resident.self])
        let store = try fixture.open()
        let first = Resident(id: 1)
        first.address = Address("Oslo")
        try store.write { try store.add(first) }
        let thief = Resident(id: 2)
        thief.address = first.address
        #expect { try store.write { try store.add(thief) } } throws: {
            isCase($0, .invalidArgument("")) && "\($0)".contains("one owner")
        }
        #expect(store.objects(Resident.self).count == 1)
        #expect(first.address?.city == "Oslo")
        // Its own owner may be added again with it (an update keeps the owner).
        let again = Resident(id: 1)
        again.address = first.address
        try store.write { try store.add(again, update: .modified) }
        #expect(store.objects(Address.self).count == 1)
    }
}
