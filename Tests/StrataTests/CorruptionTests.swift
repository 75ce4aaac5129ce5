import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A deterministic generator, so a failing trial can be replayed.
@Suite(.fixtureChecks, .offThePool) struct CorruptionTests {
    static func filledStore(_ fixture: Fixture, count: Int) throws -> Store {
        let store = try fixture.open()
        try store.write {
            for id in 0..<count {
                let person = Person(id: id, name: "person \(id)", age: id)
                person.email = id % 2 == 0 ? "p\(id)@example.com" : nil
                person.dogs.append(Dog(name: "dog \(id)"))
                try store.add(person)
                let all = ObjectModelTests.filled(key: "k\(id)", linking: nil)
                try store.add(all)
            }
        }
        return store
    }

    @Test func flippedBytesInRowsAreReportedNeverCrash() throws {
        let fixture = Fixture([Person.self, AllTypes.self]) { $0.durability = .noSync }
        let store = try Self.filledStore(fixture, count: 20)
        let personKeys = RawAccess.keys(of: Person.self, in: store)
        let allKeys = RawAccess.keys(of: AllTypes.self, in: store)
        var random = SplitMix64(state: 2026)
        var detected = 0
        let trials = 1000
        for trial in 0..<trials {
            let damagesAllTypes = trial % 2 == 0
            let key =
                damagesAllTypes ? allKeys.randomElement(using: &random)! : personKeys.randomElement(using: &random)!
            var original: [UInt8] = []
            let flips = Int.random(in: 1...3, using: &random)
            let damage: (inout [UInt8]) -> Void = { bytes in
                original = bytes
                for _ in 0..<flips {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[index] ^= UInt8.random(in: 1...255, using: &random)
                }
            }
            if damagesAllTypes {
                try RawAccess.rewriteRow(of: AllTypes.self, key: key, in: store, damage)
            } else {
                try RawAccess.rewriteRow(of: Person.self, key: key, in: store, damage)
            }
            // Only throwing APIs: each either succeeds or reports `.corrupted`.
            do {
                try store.verify()
            } catch .corrupted {
                detected += 1
            } catch {
                Issue.record("trial \(trial): verify threw \(error)")
            }
            let restore: (inout [UInt8]) -> Void = { $0 = original }
            if damagesAllTypes {
                try RawAccess.rewriteRow(of: AllTypes.self, key: key, in: store, restore)
            } else {
                try RawAccess.rewriteRow(of: Person.self, key: key, in: store, restore)
            }
        }
        try store.verify()
        // Most flips hit a header, a length, UTF-8, an index or a key; flips inside a number are values.
        #expect(detected > trials / 2, "detected \(detected) of \(trials)")
    }

    @Test func aDamagedRowIsCorruptedForAddModified() throws {
        let fixture = Fixture([Person.self])
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let key = RawAccess.keys(of: Person.self, in: store)[0]
        try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { $0[0] = 0x7F }  // column count
        try store.write {
            #expect { try store.add(Person(id: 1, name: "Bea"), update: .modified) } throws: {
                isCase($0, .corrupted(""))
            }
        }
    }

    @Test func aChangedIndexedValueIsAMissingIndexEntry() throws {
        let fixture = Fixture([Person.self])
        let store = try fixture.open()
        try store.write { try store.add(Person(id: 1, name: "Ann")) }
        let key = RawAccess.keys(of: Person.self, in: store)[0]
        try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { bytes in
            let a = bytes.firstIndex(of: UInt8(ascii: "A"))!
            bytes[a] = UInt8(ascii: "E")  // "Enn": still valid UTF-8, but the index says "Ann"
        }
        #expect {
            try store.verify()
        } throws: { error in
            guard case .corrupted(let reason) = error as? StoreError else { return false }
            return reason.contains("Person[1].name is missing from its index")
        }
    }

    @Test func decodersRejectRandomBytes() throws {
        var random = SplitMix64(state: 7)
        var rejected = 0
        for _ in 0..<10_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            bytes.withUnsafeBytes { raw in
                if (try? RowView(validating: raw, expectedColumns: 3)) == nil { rejected += 1 }
                _ = try? ListFormat.elements(raw)
                _ = try? String._strataDecodeValue(raw, in: _DecodeContext(owner: nil, column: 0))
                _ = try? Decimal._strataDecodeValue(raw, in: _DecodeContext(owner: nil, column: 0))
                _ = try? List<String>._strataDecodeColumn(raw, in: _DecodeContext(owner: nil, column: 0))
                _ = try? RowKey(stored: raw, kind: .string)
            }
        }
        #expect(rejected > 9_000)
    }
}

@Suite(.fixtureChecks, .offThePool) struct DamagedIndexedColumnTests {
    /// A damaged second indexed column must not leave the first index changed.
    @Test func deleteOfARowWithADamagedIndexedColumnChangesNothing() throws {
        let fixture = Fixture([AllTypes.self])
        let store = try fixture.open()
        let object = AllTypes()
        object.key = "k"
        try store.write { try store.add(object) }
        let key = RawAccess.keys(of: AllTypes.self, in: store)[0]
        let binding = try store.core.binding(for: AllTypes.self)
        let uuidColumn = try #require(binding.columnNames.firstIndex(of: "indexedUUID"))
        try RawAccess.rewriteRow(of: AllTypes.self, key: key, in: store) { bytes in
            // Shorten the UUID column's end offset, and every later one, by one and drop a byte: the
            // row stays well-formed (each column starts where the previous ends), but the UUID has 15
            // bytes.
            let width = Int(bytes[0])
            func end(_ column: Int) -> Int {
                (0..<width).reduce(0) { $0 | Int(bytes[3 + width * column + $1]) << (8 * $1) }
            }
            func setEnd(_ column: Int, _ value: Int) {
                for byte in 0..<width { bytes[3 + width * column + byte] = UInt8((value >> (8 * byte)) & 0xFF) }
            }
            let uuidEnd = end(uuidColumn)
            for column in uuidColumn..<binding.columnCount { setEnd(column, end(column) - 1) }
            bytes.remove(at: RowFormat.headerSize(columns: binding.columnCount, width: width) + uuidEnd - 1)
        }
        let indexCounts = { binding.indexes.map { (try? store.core.count($0.table)) ?? -1 } }
        let before = indexCounts()
        try store.write {
            #expect { try store.delete(store.objects(AllTypes.self)) } throws: { isCase($0, .corrupted("")) }
        }
        #expect(indexCounts() == before)
        #expect(store.objects(AllTypes.self).count == 1)
    }
}

@Suite("A damaged key is reported as damage, never as something else", .fixtureChecks, .offThePool)
struct DamagedKeyTests {
    /// Stores a row of `Note` under a key that cannot be a row id (3 bytes; it sorts after every id).
    private func storeBadlyKeyedNote(in store: Store) throws {
        try store.write {
            try store.add(Note("first"))
            let binding = try store.core.binding(for: Note.self)
            let session = try #require(store.core.session)
            let stored = try #require(try session.get(binding.table, key: .integer(1))).map { $0 }
            let row = stored.dropLast(RowSeal.size).map { $0 }
            let badKey: [UInt8] = [0xFF, 0xFF, 0xFF]
            try row.withBytes { (row) throws(LMDBError) in
                try badKey.withBytes { (key) throws(LMDBError) in
                    _ = try session.transaction!.putSealedRow(binding.table, key: key, row: row)
                }
            }
        }
    }

    @Test("adding after a damaged last key throws .corrupted (it looked like an empty table: .alreadyExists)")
    func addAfterADamagedLastKey() throws {
        let fixture = Fixture([Note.self])
        let store = try fixture.open()
        try storeBadlyKeyedNote(in: store)
        let error = try #require(throws: StoreError.self) { try store.write { try store.add(Note("second")) } }
        guard case .corrupted(let damage) = error else {
            Issue.record("expected .corrupted, got \(error)")
            return
        }
        #expect(damage.contains("Note"), "\(damage)")
        #expect(store.objects(Note.self).count == 2, "nothing of the failed write was stored")
    }

    @Test("Results.last with a damaged last key traps naming the damage, not an LMDB error")
    func lastWithADamagedKey() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let fixture = Fixture([Note.self])
            let store = try fixture.open()
            try DamagedKeyTests().storeBadlyKeyedNote(in: store)
            _ = store.objects(Note.self).last
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Note: a key is damaged"), "\(message)")
    }
}
