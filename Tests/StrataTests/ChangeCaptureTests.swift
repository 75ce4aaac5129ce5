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

    /// A batch of inserts read from the file's bytes (`OutgoingInsertSink`, a push's usual way for
    /// an import) gives what the same batch read as changes holds.
    @Test("a batch of inserts given to a sink holds what its changes would: keys, payloads, every kind of value")
    func insertsIntoASink() throws {
        struct Recorder: OutgoingInsertSink {
            var columnNames: [String]
            var objects: [(sequence: UInt64, key: [UInt8], payload: [UInt8], values: [SyncValue])] = []
            var values: [SyncValue] = []

            mutating func append(_ value: OutgoingScalar, column: Int) {
                #expect(column == values.count)
                switch value {
                case .null: values.append(.null)
                case .bool(let flag): values.append(.bool(flag))
                case .integer(let integer): values.append(.integer(integer))
                case .double(let double): values.append(.double(double))
                case .text(let utf8): values.append(.string(String(decoding: utf8, as: UTF8.self)))
                case .bytes(let bytes): values.append(.data(Data(bytes)))
                case .value(let other): values.append(other)
                }
            }

            mutating func insert(sequence: UInt64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
                objects.append((sequence, Array(key), Array(payload), values))
                values = []
            }
        }
        let store = try Fixture([AllTypes.self, Person.self, Dog.self]).open()
        try store.captureChanges(of: [AllTypes.self, Person.self])
        try store.write { try store.add(Person(id: 1, name: "linked")) }
        let afterPerson = try store.outgoingChanges().through!
        try store.write {
            let person = store.object(ofType: Person.self, forPrimaryKey: 1)!
            for index in 0..<8 {
                let object = AllTypes()
                object.key = "a shared prefix \(7 - index)"  // keys alike in their first bytes
                object.bool = index.isMultiple(of: 2)
                object.int = -index * 1_000_000_007
                object.int8 = Int8(-index)
                object.uint32 = UInt32(index) * 500_000_000
                object.uint64 = UInt64.max - UInt64(index)
                object.float = Float(index) / 3
                object.double = Double(index) / 7
                object.string = index == 3 ? "" : "naïve \(index) ✓"
                object.data = Data([UInt8](repeating: UInt8(index), count: index))
                object.date = Date(timeIntervalSince1970: Double(index) * 1_000)
                object.decimal = Decimal(index) / 4
                object.mood = .calm
                object.optInt = index.isMultiple(of: 3) ? nil : index
                object.optString = index.isMultiple(of: 2) ? nil : "opt \(index)"
                object.optData = index == 5 ? Data([0, 255]) : nil
                object.link = index == 2 ? person : nil
                object.ints.append(objectsIn: [index, index + 1])
                try store.add(object)
            }
        }
        try store.write {
            try store.delete(store.object(ofType: AllTypes.self, forPrimaryKey: "a shared prefix 4")!)
            store.object(ofType: AllTypes.self, forPrimaryKey: "a shared prefix 5")!.int = 5
        }
        let afterAllTypes = try store.outgoingChanges(after: afterPerson, limit: 10).through!
        try store.write { for index in 10..<15 { try store.add(Person(id: index, name: "p\(index)", age: index)) } }
        try store.write { try store.delete(store.object(ofType: Person.self, forPrimaryKey: 12)!) }

        // Every kind of value, straight from the bytes, as the changes read it; one object deleted since.
        for (place, typeName, count) in [(afterPerson, "AllTypes", 8), (afterAllTypes, "Person", 5)] {
            let asChanges = try store.outgoingChanges(after: place, limit: count).changes
            let (batch, recorder) = try store.outgoingChanges(after: place, limit: count) {
                (name, names, capacity) in
                #expect(name == typeName)
                #expect(capacity == count)
                return Recorder(columnNames: names)
            }
            #expect(batch.changes.isEmpty)
            #expect(batch.recordedCount == count)
            let inserts = try #require(recorder)
            #expect(asChanges.count == count - 1, "one object deleted since")
            // The sink's objects come in key order.
            let inOrder = asChanges.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            #expect(inserts.objects.map(\.key) == inOrder.map(\.key))
            #expect(inserts.objects.map(\.sequence) == inOrder.map(\.sequence))
            #expect(inserts.objects.map(\.payload) == inOrder.map(\.payload))
            #expect(inserts.objects.map(\.values) == inOrder.map { $0.properties.map(\.value) })
            #expect(inserts.columnNames == asChanges[0].properties.map(\.name))
            // With the delete or update after it: changes, no sink asked for.
            let mixed = try store.outgoingChanges(after: place, limit: count + 1) { (_, _, _) -> Recorder? in
                Issue.record("a sink for a batch that does not only insert")
                return nil
            }
            #expect(mixed.inserts == nil)
            #expect(mixed.batch.changes.count > count - 1)
        }
        // Of two types: changes.
        let twoTypes = try store.outgoingChanges(limit: 9) { (_, _, _) -> Recorder? in
            Issue.record("a sink for inserts of two types")
            return nil
        }
        #expect(twoTypes.inserts == nil, "one deleted since")
        #expect(twoTypes.batch.changes.count == 8, "one deleted since")
        // No sink made: changes.
        let declined = try store.outgoingChanges(after: afterPerson, limit: 8) { (_, _, _) -> Recorder? in nil }
        #expect(declined.inserts == nil)
        #expect(declined.batch.changes.count == 7)
    }

    /// Bad bytes under a batch of inserts read into a sink: a typed error, as the changes' read gives,
    /// and nothing of the outbox lost (once the row is mended, every object comes).
    @Test("a damaged row or a string that is not UTF-8 in a batch of inserts is a typed error; the outbox keeps it")
    func damagedInsertsIntoASink() throws {
        struct Counter: OutgoingInsertSink {
            var objects = 0
            mutating func append(_ value: OutgoingScalar, column: Int) {}
            mutating func insert(sequence: UInt64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
                objects += 1
            }
        }
        let store = try Fixture().open()
        try store.captureChanges(of: [Person.self])
        try store.write { for id in 1...5 { try store.add(Person(id: id, name: "name \(id)")) } }
        let key = RawAccess.key(of: store.object(ofType: Person.self, forPrimaryKey: 3)!)
        let name = Array("name 3".utf8)
        func nameOffset(_ row: [UInt8]) -> Int? {
            (0...(row.count - name.count)).first { Array(row[$0..<$0 + name.count]) == name }
        }
        func readIntoSink() throws(StoreError) -> Int? {
            let read = try store.outgoingChanges(insertsInto: { (_, _, _) in Counter() })
            return read.inserts?.objects
        }

        // A row sealed as it is, its name not UTF-8: what a bug writing a bad row would leave.
        var damagedAt: Int?
        try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { row in
            damagedAt = nameOffset(row)
            if let at = damagedAt { row[at] = 0xFF }
        }
        let at = try #require(damagedAt, "the name's bytes are in the row")
        #expect {
            _ = try readIntoSink()
        } throws: { error in
            guard case .corrupted(let message) = error as? StoreError else { return false }
            return message.contains("UTF-8")
        }
        #expect { _ = try store.outgoingChanges() } throws: { isCase($0, .corrupted("")) }

        // A flipped byte on disk: the row's seal no longer matches.
        try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { row in row[at] = name[0] }
        #expect(try readIntoSink() == 5, "mended: every object")
        try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { stored in
            stored[stored.count / 2] ^= 0x40
        }
        #expect { _ = try readIntoSink() } throws: { isCase($0, .corrupted("")) }
        #expect { _ = try store.outgoingChanges() } throws: { isCase($0, .corrupted("")) }
        try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { stored in
            stored[stored.count / 2] ^= 0x40
        }
        #expect(try readIntoSink() == 5, "the outbox kept the batch")
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
        #expect(throws: StoreError.mapFull) {
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
        #expect(later.count == 1)
        #expect(later[0] > sequences[4])
        // not in the schema
        #expect { try store.captureChanges(of: [ProcessEntry.self]) } throws: { isCase($0, .schemaMismatch("")) }
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
