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
            #expect(key.property == "email" && key.typeName == "Account")
            #expect(
                error.localizedDescription.contains("with email ann@example.com exists"),
                "\(error.localizedDescription)")
        }
        #expect(store.objects(Account.self).count == 1)
        // A batch with a duplicate inside it writes nothing of the batch.
        #expect(throws: StoreError.self) {
            try store.write {
                try store.add(contentsOf: [
                    Account(id: 3, email: "c@example.com"), Account(id: 4, email: "d@example.com"),
                    Account(id: 5, email: "c@example.com"),
                ])
            }
        }
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
        #expect(throws: StoreError.self) {
            try store.write { try store.add(Account(id: 2, email: "b", handle: "@a"), update: .modified) }
        }
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
        #expect(throws: StoreError.self) { try store.write { try store.add(Account(id: 3, email: "e", code: "1.50")) } }
        #expect(throws: StoreError.self) { try store.write { try store.add(Account(id: 3, email: prefix + "1")) } }
        try store.write { try store.add(Account(id: 3, email: prefix + "3")) }
        #expect(store.objects(Account.self).count == 3)
    }

    @Test("a migration making a property unique fails on repeated values, and enforces it afterwards")
    func migration() throws {
        for emails in [["a", "b", "a"], ["a", "b", "c"]] {
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
            if emails == ["a", "b", "a"] {
                #expect { try Store(configuration: configuration) } throws: {
                    isCase($0, .alreadyExists(primaryKey: "a"))
                }
                // Nothing of the migration was written: the old schema still opens.
                #expect(try fixture.open().objects(UniqueV1.Member.self).count == 3)
                continue
            }
            let store = try Store(configuration: configuration)
            let member = UniqueV2.Member()
            member.id = 9
            member.email = "b"
            #expect(throws: StoreError.self) { try store.write { try store.add(member) } }
        }
    }
}
