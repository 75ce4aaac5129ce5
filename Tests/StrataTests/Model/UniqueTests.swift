import Foundation
import StrataTestSupport
import Testing

@testable import Strata

enum UniqueV1 {
    final class Member: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var email: String
    }
}

enum UniqueV2 {
    final class Member: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(unique: true) var email: String
    }
}

enum CompositeV1 {
    final class Seat: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var letter: String
        @Persisted var number: Int
    }
}

enum CompositeV2 {
    final class Seat: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var letter: String
        @Persisted var number: Int
        override class var uniqueKeys: [[String]] { [["letter", "number"]] }
    }
}

/// A booking: one guest per (flight, seat), and per (flight, passport) — SQL's UNIQUE(a, b).
final class Booking: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var flight: String
    @Persisted var seat: String
    @Persisted var passport: String?
    @Persisted var fare: Decimal128
    override class var uniqueKeys: [[String]] { [["flight", "seat"], ["flight", "passport", "fare"]] }

    convenience init(_ id: Int, _ flight: String, _ seat: String, passport: String? = nil, fare: Decimal128 = 1) {
        self.init()
        self.id = id
        self.flight = flight
        self.seat = seat
        self.passport = passport
        self.fare = fare
    }
}

final class BadUniqueKeys: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    override class var uniqueKeys: [[String]] { [["name", "nickname"]] }
}

final class UnindexableUniqueKeys: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var tags: List<String>
    override class var uniqueKeys: [[String]] { [["name", "tags"]] }
}

final class RepeatedUniqueKeys: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    override class var uniqueKeys: [[String]] { [["name", "name"]] }
}

/// `@Persisted(unique: true)`: what Realm answered "not supported" (realm-swift #1192, #1360, #5699).
@Suite("Unique properties", .fixtureChecks)
struct UniqueTests {
    @Test("a second object with the same value throws alreadyExists naming the property and value; nothing written")
    func duplicateRefused() throws {
        let fixture = Fixture([Account.self])
        let store = try fixture.open()
        try store.write { try store.add(Account(id: 1, email: "ann@example.com")) }
        do {
            try store.write { try store.add(Account(id: 2, email: "ann@example.com")) }
            Issue.record("a duplicate email was added")
        } catch let error as StoreError {
            #expect(error == .alreadyExists(primaryKey: "ann@example.com"))
            guard case .alreadyExists(let key) = error else { return }
            #expect(key.property == "email")
            #expect(key.typeName == "Account")
            #expect(
                error.localizedDescription.contains("with email ann@example.com exists"),
                "\(error.localizedDescription)")
        }
        #expect(store.objects(Account.self).count == 1)
        // A batch with a duplicate inside it writes nothing of the batch.
        #expect {
            try store.write {
                try store.add(contentsOf: [
                    Account(id: 3, email: "c@example.com"), Account(id: 4, email: "d@example.com"),
                    Account(id: 5, email: "c@example.com"),
                ])
            }
        } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(store.objects(Account.self).map(\.id) == [1])
        try store.verify()
    }

    @Test("nil is no value (many objects may hold it); an object keeps its own value on update")
    func nilAndUpdates() throws {
        let fixture = Fixture([Account.self])
        let store = try fixture.open()
        try store.write {
            try store.add(Account(id: 1, email: "a"))
            try store.add(Account(id: 2, email: "b"))
            try store.add(Account(id: 3, email: "c", handle: "@c"))
        }
        try store.write { try store.add(Account(id: 1, email: "a", handle: "@a"), update: .modified) }
        #expect(store.object(ofType: Account.self, forPrimaryKey: 1)?.handle == "@a")
        #expect {
            try store.write { try store.add(Account(id: 2, email: "b", handle: "@a"), update: .modified) }
        } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(store.object(ofType: Account.self, forPrimaryKey: 2)?.handle == nil)
        // Deleting the holder frees the value.
        try store.write { try store.delete(store.object(ofType: Account.self, forPrimaryKey: 1)!) }
        try store.write { try store.add(Account(id: 4, email: "a", handle: "@a")) }
        #expect(store.objects(Account.self).where { $0.email == "a" }.map(\.id) == [4])
        #expect(store.objects(Account.self).where { $0.email == "a" }.queryPlan.index == "email")
    }

    @Test("values compare as queries do: Decimal128 1.5 and 1.50 are one value; long strings in full")
    func valueEquality() throws {
        let fixture = Fixture([Account.self])
        let store = try fixture.open()
        let prefix = String(repeating: "x", count: 600)
        try store.write {
            try store.add(Account(id: 1, email: prefix + "1", code: "1.5"))
            try store.add(Account(id: 2, email: prefix + "2"))
        }
        #expect { try store.write { try store.add(Account(id: 3, email: "e", code: "1.50")) } } throws: {
            isCase($0, .alreadyExists(primaryKey: ""))
        }
        #expect { try store.write { try store.add(Account(id: 3, email: prefix + "1")) } } throws: {
            isCase($0, .alreadyExists(primaryKey: ""))
        }
        try store.write { try store.add(Account(id: 3, email: prefix + "3")) }
        #expect(store.objects(Account.self).count == 3)
    }

    @Test("a migration making a property unique fails on repeated values, and enforces it afterwards")
    func migration() throws {
        // Long strings share their indexed prefix: the third repeats the second, not the first holder.
        let long = String(repeating: "x", count: 600)
        for emails in [["a", "b", "a"], ["a", "b", "c"], [long + "1", long + "2", long + "2"]] {
            let fixture = Fixture([UniqueV1.Member.self])
            do {
                let store = try fixture.open()
                try store.write {
                    for (id, email) in emails.enumerated() {
                        let member = UniqueV1.Member()
                        member.id = id
                        member.email = email
                        try store.add(member)
                    }
                }
            }
            var configuration = Store.Configuration(
                fileURL: fixture.configuration.fileURL!, objectTypes: [UniqueV2.Member.self])
            configuration.schemaVersion = 1
            if emails[2] == emails[0] || emails[2] == emails[1] {
                #expect { try Store(configuration: configuration) } throws: {
                    isCase($0, .alreadyExists(primaryKey: StoreError.PrimaryKey(emails[2])))
                }
                // Nothing of the migration was written: the old schema still opens.
                #expect(try fixture.open().objects(UniqueV1.Member.self).count == 3)
                continue
            }
            let store = try Store(configuration: configuration)
            let member = UniqueV2.Member()
            member.id = 9
            member.email = "b"
            #expect { try store.write { try store.add(member) } } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        }
    }

    @Test("composite uniqueKeys: a second object with the same values of every listed property throws; nothing written")
    func compositeKeys() throws {
        let fixture = Fixture([Booking.self])
        let store = try fixture.open()
        try store.write {
            try store.add(Booking(1, "LH400", "12A", passport: "P1"))
            try store.add(Booking(2, "LH400", "12B", passport: "P2"))
            try store.add(Booking(3, "LH401", "12A", passport: "P1"))  // another flight: allowed
        }
        do {
            try store.write { try store.add(Booking(4, "LH400", "12A")) }
            Issue.record("a second guest in LH400 12A was added")
        } catch let error as StoreError {
            guard case .alreadyExists(let key) = error else { throw error }
            #expect(key.typeName == "Booking")
            #expect(key.property == "flight, seat")
            #expect(key.value == "LH400, 12A")
            #expect(error.localizedDescription.contains("LH400, 12A"), "\(error.localizedDescription)")
        }
        // nil in any listed property is no value; numbers compare numerically (1 == 1.00).
        try store.write {
            try store.add(Booking(5, "LH400", "14C"))
            try store.add(Booking(6, "LH400", "14D"))
        }
        #expect {
            try store.write { try store.add(Booking(7, "LH400", "15A", passport: "P1", fare: "1.00")) }
        } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        try store.write { try store.add(Booking(7, "LH400", "15A", passport: "P1", fare: 2)) }
        // A batch with a clash inside it writes nothing; updates keep their own values.
        #expect {
            try store.write {
                try store.add(contentsOf: [Booking(8, "LH500", "1A"), Booking(9, "LH500", "1A")])
            }
        } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(store.objects(Booking.self).where { $0.flight == "LH500" }.isEmpty)
        try store.write { try store.add(Booking(1, "LH400", "12A", passport: "P9"), update: .modified) }
        #expect {
            try store.write { try store.add(Booking(2, "LH400", "12A", passport: "P2"), update: .modified) }
        } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(store.object(ofType: Booking.self, forPrimaryKey: 2)?.seat == "12B")
        // Deleting the holder frees the combination.
        try store.write { try store.delete(store.object(ofType: Booking.self, forPrimaryKey: 1)!) }
        try store.write { try store.add(Booking(10, "LH400", "12A")) }
        #expect(store.objects(Booking.self).count == 6)
        try store.verify()
        // The file records the groups (what `strata schema` prints), and the first property is indexed.
        let type = try #require(
            try DynamicStore(path: fixture.configuration.fileURL!.path).types.first { $0.name == "Booking" })
        #expect(type.uniqueKeys == [["flight", "seat"], ["flight", "passport", "fare"]])
        #expect(type.properties.first { $0.name == "flight" }?.isIndexed == true)
    }

    @Test(
        "composite uniqueKeys naming an unknown property, one that cannot be indexed, or one twice: a schema mismatch")
    func compositeKeysUnknownProperty() {
        for (type, named) in [
            (BadUniqueKeys.self as Object.Type, "nickname"), (UnindexableUniqueKeys.self, "tags"),
            (RepeatedUniqueKeys.self, "each once"),
        ] {
            #expect { try Fixture([type]).open() } throws: {
                guard case .schemaMismatch(let message) = $0 as? StoreError else { return false }
                return message.contains(named)
            }
        }
    }

    @Test("a migration adding composite uniqueKeys fails on repeated combinations, and enforces them afterwards")
    func compositeKeysMigration() throws {
        for seats in [[("A", 1), ("A", 2), ("A", 1)], [("A", 1), ("A", 2), ("B", 1)]] {
            let fixture = Fixture([CompositeV1.Seat.self])
            do {
                let store = try fixture.open()
                try store.write {
                    for (id, seat) in seats.enumerated() {
                        let object = CompositeV1.Seat()
                        object.id = id
                        object.letter = seat.0
                        object.number = seat.1
                        try store.add(object)
                    }
                }
            }
            // uniqueKeys are derived tables and flags: no schema version needed (as `unique:`).
            let configuration = Store.Configuration(
                fileURL: fixture.configuration.fileURL!, objectTypes: [CompositeV2.Seat.self])
            if seats[2] == ("A", 1) {
                #expect { try Store(configuration: configuration) } throws: {
                    isCase($0, .alreadyExists(primaryKey: "A, 1"))
                }
                #expect(try fixture.open().objects(CompositeV1.Seat.self).count == 3)
                continue
            }
            let store = try Store(configuration: configuration)
            let seat = CompositeV2.Seat()
            seat.id = 9
            seat.letter = "B"
            seat.number = 1
            #expect { try store.write { try store.add(seat) } } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
            seat.number = 2
            try store.write { try store.add(seat) }
            // Reopening with the same code changes nothing.
            let reopened = try Store(configuration: configuration)
            #expect(reopened.objects(CompositeV2.Seat.self).count == 4)
        }
    }
}
