import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Realm's MutableSetTests and PrimitiveMutableSetTests (RealmSwift/Tests/MutableSetTests.swift,
/// PrimitiveMutableSetTests.swift), re-expressed on an unmanaged set (MutableSetStandaloneTests) and a
/// managed one (MutableSetNewlyAddedTests), then what a stored set adds: its order, queries,
/// notifications, links, damage.
@Suite("MutableSet", .fixtureChecks)
struct MutableSetTests {
    @Test("Realm testPrimitive: insert, first, [0], max, sum")
    func primitive() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            contact.lucky.insert(5)
            #expect(contact.lucky.first == 5)
            #expect(contact.lucky.last == 5)
            #expect(contact.lucky[0] == 5)
            contact.lucky.insert(objectsIn: [6, 7, 8])
            #expect(contact.lucky.max() == 8)
            #expect(contact.lucky.sum() == 26)
            #expect(contact.lucky.average() == 6.5)
            contact.tags.insert("str")
            #expect(contact.tags.first == "str")
            #expect(contact.tags[0] == "str")
        }
    }

    @Test("Realm testPrimitiveIterationAcrossNil: an optional set holds nil once")
    func optionalElements() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            #expect(!contact.maybe.contains(nil))
            #expect(!contact.lucky.contains(5))
            contact.maybe.insert(objectsIn: [nil, 3, nil, 1])
            #expect(contact.maybe.count == 3)
            #expect(contact.maybe.contains(nil))
        }
    }

    @Test("Realm testInvalidated: a set whose owner is deleted is invalidated")
    func invalidated() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write { try store.add(contact) }
        let tags = contact.tags
        #expect(!tags.isInvalidated)
        try store.write { try store.delete(contact) }
        #expect(tags.isInvalidated)
    }

    @Test("Realm testFastEnumerationWithMutation, testAppendObject, testInsert: one member per object")
    func objects() throws {
        try onUnmanagedAndManagedContact { contact, store in
            let first = Contact(name: "1")
            let second = Contact(name: "2")
            if let store { try store.add(contact: first, second) }
            contact.friends.insert(objectsIn: [first, second, first, second, first])
            for _ in contact.friends { contact.friends.insert(first) }
            #expect(contact.friends.count == 2)
            #expect(contact.friends.contains(first))
            #expect(contact.friends.contains(second))
        }
    }

    @Test("Realm testPopulateEmptySet: an unmanaged object is added to the Store once")
    func populateEmpty() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "owner")
        try store.write {
            try store.add(contact)
            let new = Contact(name: "a")
            contact.friends.insert(new)
            contact.friends.insert(new)
        }
        #expect(contact.friends.count == 1)
        #expect(store.objects(Contact.self).count == 2)
    }

    @Test("Realm testRemoveAll, testRemoveObject")
    func remove() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            contact.tags.insert(objectsIn: ["1", "2"])
            contact.tags.remove("1")
            #expect(!contact.tags.contains("1"))
            #expect(contact.tags.count == 1)
            contact.tags.removeAll()
            contact.tags.removeAll()
            #expect(contact.tags.isEmpty)
        }
    }

    @Test("Realm testChangesArePersisted: another Store reads the committed set")
    func changesArePersisted() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        try store.write {
            let contact = Contact(name: "a")
            contact.tags.insert(objectsIn: ["b", "a"])
            try store.add(contact)
        }
        let seen = onAnotherThread { () -> [String] in
            guard let other = try? fixture.open() else { return [] }
            return other.objects(Contact.self).first.map { Array($0.tags) } ?? []
        }
        #expect(seen == ["a", "b"])
    }

    @Test("Realm testSubset, testUnion, testIntersection, testSubtract, testIntersects")
    func setAlgebra() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            contact.lucky.insert(objectsIn: [1, 2, 1])
            #expect(contact.lucky.isSubset(of: [1, 2, 3]))
            #expect(!contact.lucky.isSubset(of: [1]))
            contact.lucky.formUnion([2, 3, 4])
            #expect(Array(contact.lucky).sorted() == [1, 2, 3, 4])
            contact.lucky.formIntersection([0, 2, 4, 6])
            #expect(Array(contact.lucky).sorted() == [2, 4])
            contact.lucky.subtract([4, 5])
            #expect(Array(contact.lucky) == [2])
            #expect(contact.lucky.intersects([2, 9]))
            #expect(!contact.lucky.intersects([9]))
        }
    }

    @Test("a stored set is in its order: numbers as numbers, nil first, equal Decimal128s one member")
    func storedOrder() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            try store.add(contact)
            contact.lucky.insert(objectsIn: [300, -1, 2, 0, Int.min, Int.max, 2])
            contact.maybe.insert(objectsIn: [5, nil, -5])
            contact.prices.insert(objectsIn: ["1.50", "1.5", "-2", "10", "1.500"])
            contact.tags.insert(objectsIn: ["b", "a", "B", "é", "e\u{301}"])
        }
        #expect(Array(contact.lucky) == [Int.min, -1, 0, 2, 300, Int.max])
        #expect(Array(contact.maybe) == [nil, -5, 5])
        #expect(contact.prices.map(\.description) == ["-2", "1.50", "10"])
        #expect(Array(contact.tags) == ["B", "a", "b", "e\u{301}", "é"])
    }

    @Test("a deleted object leaves every set it was in")
    func deletedMember() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let owner = Contact(name: "owner")
        let friend = Contact(name: "friend")
        try store.write {
            try store.add(owner)
            owner.friends.insert(objectsIn: [friend, Contact(name: "other")])
        }
        try store.write { try store.delete(friend) }
        #expect(owner.friends.map(\.name) == ["other"])
        try store.verify()
    }

    @Test("queries: contains a value or an object, and count")
    func queries() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let shared = Contact(name: "shared")
        try store.write {
            try store.add(shared)
            for index in 0..<4 {
                let contact = Contact(name: "c\(index)")
                contact.tags.insert(objectsIn: (0...index).map { "t\($0)" })
                if index.isMultiple(of: 2) { contact.friends.insert(shared) }
                try store.add(contact)
            }
        }
        let all = store.objects(Contact.self)
        #expect(all.where { $0.tags.contains("t2") }.map(\.name).sorted() == ["c2", "c3"])
        #expect(all.where { $0.tags.count >= 3 }.map(\.name).sorted() == ["c2", "c3"])
        #expect(all.where { $0.friends.contains(shared) }.map(\.name).sorted() == ["c0", "c2"])
    }

    @Test("observe: deletions at old indices, insertions at new ones, in the set's order")
    func notifications() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            try store.add(contact)
            contact.lucky.insert(objectsIn: [10, 20, 30])
        }
        var changes: [String] = []
        let token = try contact.lucky.observe { change in
            switch change {
            case .initial(let set): changes.append("initial \(Array(set))")
            case .update(let set, let deletions, let insertions, _):
                changes.append("-\(deletions) +\(insertions) \(set.isInvalidated ? "gone" : "\(Array(set))")")
            case .error(let error): changes.append("error \(error)")
            }
        }
        try store.write {
            contact.lucky.remove(20)
            contact.lucky.insert(objectsIn: [5, 25])
        }
        try store.write { contact.lucky.insert(10) }  // already a member: no change
        try store.write { try store.delete(contact) }
        try store.refresh()
        #expect(changes == ["initial [10, 20, 30]", "-[1] +[0, 2] [5, 10, 25, 30]", "-[0, 1, 2, 3] +[] gone"])
        token.invalidate()
    }

    @Test("damaged set bytes are corrupted, never a trap")
    func damagedBytes() {
        let damaged: [[UInt8]] = [[2, 0, 0, 0, 8, 0, 0, 0, 1], [1, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3], [9]]
        for bytes in damaged {
            let failed = bytes.withUnsafeBytes { raw in
                (try? MutableSet<Int>._strataDecodeColumn(raw, in: _DecodeContext(owner: nil, column: 0))) == nil
            }
            #expect(failed, "\(bytes)")
        }
    }
}

extension Store {
    fileprivate func add(contact first: Contact, _ others: Contact...) throws {
        try add(first)
        for other in others { try add(other) }
    }
}
