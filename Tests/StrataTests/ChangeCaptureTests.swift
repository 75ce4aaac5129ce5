import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@_spi(StrataSync) @testable import Strata

/// The stored key of the Person with `id`.
func personKey(_ id: Int, in store: Store) throws -> [UInt8] {
    let binding = try store.core.binding(for: Person.self)
    return try #require(try store.core.rowKey(forPrimaryKey: id, binding: binding)).storedBytes
}

@Suite("Change capture (the outbox of sync)", .fixtureChecks)
struct ChangeCaptureTests {
    @Test("a captured type's commits record inserts, per-property updates and deletes, in order; others nothing")
    func insertsUpdatesAndDeletes() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 9, name: "before")) }  // before capture: not recorded
        try store.captureChanges(of: [Person.self])
        try store.write {
            try store.add(Person(id: 1, name: "Ann"))
            try store.add(Person(id: 2, name: "Bo"))
            try store.add(Dog(name: "Rex"))  // not captured
        }
        let ann = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        try store.write { ann.name = "Anna" }
        try store.write {
            ann.age = 40
            ann.email = "a@example.com"
        }
        try store.write { try store.delete(store.object(ofType: Person.self, forPrimaryKey: 2)!) }
        try store.write {
            let short = Person(id: 3)
            try store.add(short)
            try store.delete(short)  // inserted and deleted in one write: nothing to send
        }

        let changes = try store.capturedChanges()
        let (one, two) = (try personKey(1, in: store), try personKey(2, in: store))
        #expect(changes.allSatisfy { $0.typeName == "Person" })
        #expect(changes.map(\.kind) == [.insert, .insert, .update, .update, .delete])
        #expect(Set(changes[0..<2].map(\.key)) == [one, two])
        #expect(changes[2...].map(\.key) == [one, one, two])
        // One sequence per commit, increasing: the two inserts were one commit.
        let sequences = changes.map(\.sequence)
        #expect(sequences[0] == sequences[1])
        #expect(zip(sequences.dropFirst(), sequences.dropFirst(2)).allSatisfy { $0 < $1 })
        #expect(Set(changes[0].changedProperties) == ["id", "name", "age", "email", "dogs"])
        #expect(changes[2].changedProperties == ["name"])
        #expect(Set(changes[3].changedProperties) == ["age", "email"])
        #expect(changes[4].changedProperties.isEmpty)
        #expect(try store.capturedChanges(after: sequences[2]).map(\.kind) == [.update, .delete])
        #expect(try store.capturedChanges(limit: 1).count == 2, "whole commits")
        #expect(try store.capturedChanges(after: sequences[0], limit: 1).map(\.sequence) == [sequences[2]])
    }

    /// What a push sends (`outgoingChanges`): each object read as it is now, in the outbox's order
    /// (a commit's objects in no particular order), some gone since.
    @Test(
        "outgoing changes hold each object's current values, in every commit's order; objects deleted since only their delete"
    )
    func outgoingValuesInAnyKeyOrder() throws {
        let store = try Fixture().open()
        try store.captureChanges(of: [Person.self])
        try store.write { for id in 1...20 { try store.add(Person(id: id, name: "p\(id)", age: id)) } }
        try store.write {
            for id in [17, 3, 12, 3, 20, 1] { store.object(ofType: Person.self, forPrimaryKey: id)!.age += 100 }
        }
        try store.write {
            try store.delete(store.object(ofType: Person.self, forPrimaryKey: 12)!)
            try store.delete(store.object(ofType: Person.self, forPrimaryKey: 5)!)
        }
        try store.write {
            try store.add(Person(id: 21, name: "late", age: 0))
            store.object(ofType: Person.self, forPrimaryKey: 21)!.name = "later"
        }

        let changes = try store.outgoingChanges().changes
        func ids(_ kind: CapturedChange.Kind) -> [Int64] {
            changes.filter { $0.kind == kind }.compactMap {
                if case .integer(let id) = $0.primaryKey { id } else { nil }
            }
        }
        #expect(ids(.insert).sorted() == (1...21).filter { $0 != 5 && $0 != 12 }.map(Int64.init))
        #expect(ids(.insert).last == 21, "the last commit's")
        #expect(Set(ids(.update)) == [1, 3, 17, 20])
        #expect(Set(ids(.delete)) == [12, 5])
        for change in changes where change.kind != .delete {
            guard case .integer(let id) = change.primaryKey,
                let person = store.object(ofType: Person.self, forPrimaryKey: Int(id))
            else {
                Issue.record("\(change.primaryKey) sent but not stored")
                continue
            }
            let payload = try ChangePayload.decode(change.payload)
            #expect(payload.map(\.name) == change.properties.map(\.name))
            for property in change.properties {
                switch property.name {
                case "name": #expect(property.value == .string(person.name))
                case "age": #expect(property.value == .integer(Int64(person.age)))
                default: break
                }
            }
        }
    }

    @Test("a write that throws, is cancelled or fails to commit records nothing; the sequence goes on")
    func nothingOfAWriteThatDidNotCommit() throws {
        struct Refused: Error {}
        let fixture = Fixture()
        let store = try fixture.open()
        try store.captureChanges(of: [Person.self])
        #expect(throws: Refused.self) {
            try store.write {
                try store.add(Person(id: 1))
                throw Refused()
            }
        }
        try store.beginWrite()
        try store.add(Person(id: 2))
        try store.cancelWrite()
        #expect(throws: StoreError.self) {
            try store.write {
                try store.add(Person(id: 3))
                LMDBFaults.inject(.mapFull, into: .commit)
            }
        }
        LMDBFaults.clear()
        #expect(try store.capturedChanges().isEmpty)
        try store.write { try store.add(Person(id: 4)) }
        let changes = try store.capturedChanges()
        #expect(changes.map(\.key) == [try personKey(4, in: store)])
    }

    @Test("removing acknowledged changes keeps the later ones; sequences are never reused")
    func removingAcknowledgedChanges() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.captureChanges(of: [Person.self])
        for id in 1...5 { try store.write { try store.add(Person(id: id)) } }
        let sequences = try store.capturedChanges().map(\.sequence)
        #expect(sequences.count == 5)
        try store.removeCapturedChanges(through: sequences[2])
        #expect(try store.capturedChanges().map(\.sequence) == Array(sequences[3...]))
        try store.removeCapturedChanges(through: sequences[4])
        #expect(try store.capturedChanges().isEmpty)
        try store.write { try store.add(Person(id: 6)) }
        let later = try store.capturedChanges().map(\.sequence)
        #expect(later.count == 1 && later[0] > sequences[4])
        #expect(throws: StoreError.self) { try store.captureChanges(of: [ProcessEntry.self]) }  // not in the schema
    }

    @Test("every Store of the file records: another thread's, and another process's writes")
    func otherStoresAndProcessesRecord() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let store = try fixture.open()
        try store.captureChanges(of: [ProcessEntry.self])
        let configuration = fixture.configuration
        let wrote = Locked(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let other = try? Store(configuration: configuration) {
                let entry = ProcessEntry()
                entry.id = 1
                wrote.withLock { $0 = (try? writeSynchronously(other, entry)) != nil }
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 60) == .success)  // a condition: the thread's write done
        #expect(wrote.withLock { $0 })
        #expect(try store.capturedChanges().count == 1, "the thread's write")
        let writer = try StressProcess(["add-range", fixture.path, "100", "250"])
        #expect(writer.remainingLines() == ["done"])
        #expect(writer.wait().status == 0)
        let changes = try store.capturedChanges()
        #expect(changes.count == 251)
        #expect(changes.allSatisfy { $0.kind == .insert && $0.typeName == "ProcessEntry" })
    }
}
