import CLMDB
import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Rows are sealed with a checksum", .fixtureChecks)
struct RowSealTests {
    @Test func theChecksumIsCRC32C() {
        let check = Array("123456789".utf8)
        let hardware = check.withUnsafeBytes { Checksum.crc32c($0) }
        #expect(hardware == 0xE306_9283)  // the standard check value of CRC-32C
        let software = check.withUnsafeBytes { ~strata_crc32c_software(~0, $0.baseAddress, $0.count) }
        #expect(software == 0xE306_9283)
        // Continuing over parts gives the CRC of the whole, at every split.
        for split in 0...check.count {
            let first = check[..<split].withUnsafeBytes { Checksum.crc32c($0) }
            let both = check[split...].withUnsafeBytes { Checksum.crc32c($0, continuing: first) }
            #expect(both == 0xE306_9283, "split at \(split)")
        }
    }

    @Test("the seal is the same with the CPU's instruction and without it, for every key and row length")
    func hardwareAndSoftwareSealsAgree() {
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for keyLength in [1, 3, 8, 16, 20] {
            for rowLength in 0...140 {
                let key = Array(bytes[..<keyLength])
                let row = Array(bytes[keyLength..<(keyLength + rowLength)])
                let (seal, expected) = key.withUnsafeBytes { key in
                    row.withUnsafeBytes { row in
                        (
                            strata_row_seal(key.baseAddress, key.count, row.baseAddress, row.count),
                            strata_row_seal_software(key.baseAddress, key.count, row.baseAddress, row.count)
                        )
                    }
                }
                #expect(seal == expected, "key \(keyLength) bytes, row \(rowLength)")
                let stored = row + withUnsafeBytes(of: seal.littleEndian) { Array($0) }
                let length = key.withUnsafeBytes { key in
                    stored.withUnsafeBytes { Checksum.sealedRowLength(key: key, stored: $0) }
                }
                #expect(length == (rowLength > 0 ? rowLength : -1), "key \(keyLength) bytes, row \(rowLength)")
            }
        }
    }

    /// A store of one person, and the stored bytes of that person's row (the row and its seal).
    private func storedPerson(_ fixture: Fixture) throws -> (Store, Unchecked<RowKey>, Int) {
        let store = try fixture.open()
        try store.write {
            let person = Person(id: 1, name: "Ann", age: 40)
            person.email = "ann@example.com"
            try store.add(person)
        }
        let key = RawAccess.keys(of: Person.self, in: store)[0]
        var length = 0
        try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { length = $0.count }
        return (store, key, length)
    }

    @Test("a flipped bit anywhere in a stored row, seal included, is .corrupted naming the table, never a value")
    func everyFlippedBitIsFound() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let (store, key, length) = try storedPerson(fixture)
        for offset in 0..<length {
            for bit in [0, 3, 7] {
                try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { $0[offset] ^= 1 << bit }
                let error = try #require(throws: StoreError.self) { try store.verify() }
                guard case .corrupted(let damage) = error else {
                    Issue.record("byte \(offset) bit \(bit): expected .corrupted, got \(error)")
                    return
                }
                #expect(damage.contains("Person"), "\(damage)")
                #expect(damage.contains("checksum"), "\(damage)")
                try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { $0[offset] ^= 1 << bit }
            }
        }
        try store.verify()
        #expect(store.objects(Person.self)[0].email == "ann@example.com")
    }

    @Test("a row moved to another key (a damaged key) is .corrupted: the seal covers the key")
    func aRowUnderAnotherKeyIsFound() throws {
        let fixture = Fixture([Note.self])
        let store = try fixture.open()
        try store.write {
            try store.add(Note("first"))
            let binding = try store.core.binding(for: Note.self)
            let session = try #require(store.core.session)
            let stored = try #require(try session.get(binding.table, key: .integer(1))).map { $0 }
            try StoreError.mapping { () throws(LMDBError) in
                try RowKey.integer(2).withBytes { (key) throws(LMDBError) in
                    _ = try session.transaction!.put(binding.table, key: key, reserving: stored.count) { destination in
                        stored.withUnsafeBytes { destination.copyMemory(from: $0) }
                    }
                }
            }
        }
        let error = try #require(throws: StoreError.self) { try store.verify() }
        guard case .corrupted(let damage) = error else {
            Issue.record("expected .corrupted, got \(error)")
            return
        }
        #expect(damage.contains("type.Note"), "\(damage)")
        #expect(damage.contains("key 0000000000000002"), "\(damage)")
    }

    @Test("a lookup of a row damaged after opening throws where it can: upserting over it")
    func aWriteOverADamagedRowThrows() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let (store, key, _) = try storedPerson(fixture)
        try RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { $0[$0.count / 2] ^= 0x10 }
        let error = try #require(throws: StoreError.self) {
            try store.write { try store.add(Person(id: 1, name: "Bea"), update: .modified) }
        }
        guard case .corrupted(let damage) = error else {
            Issue.record("expected .corrupted, got \(error)")
            return
        }
        #expect(damage.contains("Person[1]"), "\(damage)")
        #expect(damage.contains("checksum"), "\(damage)")
    }

    @Test("reading a row damaged after opening traps naming type, key and the checksum")
    func readingADamagedRowTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            let key = RawAccess.keys(of: Person.self, in: store)[0]
            try? RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { $0[$0.count - 6] ^= 0x01 }
            for person in store.objects(Person.self) { _ = person.name }
        }
        let output = standardError(of: result)
        #expect(output.contains("\(TrapMessage.corrupted)"), "\(output)")
        #expect(output.contains("Person[1]"), "\(output)")
        #expect(output.contains("checksum"), "\(output)")
    }

    @Test("a damaged row past the first rows read ahead traps when the walk reaches it, after the rows before it")
    func aDamagedRowReadAheadTrapsWhereTheWalkReachesIt() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)  // Person 1
            RowSealTests.addPeople(2...150, to: store)
            let key = RawAccess.keys(of: Person.self, in: store)[100]  // Person 101: in the second batch of 64
            try? RawAccess.rewriteStoredRow(of: Person.self, key: key, in: store) { $0[$0.count - 6] ^= 0x01 }
            var visited = 0
            for person in store.objects(Person.self) {
                _ = person.name
                visited += 1
                FileHandle.standardError.write(Data("visited \(visited)\n".utf8))
            }
        }
        let output = standardError(of: result)
        #expect(output.contains("visited 100\n"), "\(output.suffix(500))")
        #expect(!output.contains("visited 101\n"), "\(output.suffix(500))")
        #expect(output.contains("\(TrapMessage.corrupted)"), "\(output.suffix(500))")
        #expect(output.contains("Person[101]"), "\(output.suffix(500))")
        #expect(output.contains("checksum"), "\(output.suffix(500))")
    }

    /// Adds people in a write (outside the exit test's asynchronous body: a write spans no await).
    static func addPeople(_ ids: ClosedRange<Int>, to store: Store) {
        try? store.write { try store.add(contentsOf: ids.map { Person(id: $0, name: "p\($0)") }) }
    }

    @Test("iterating a sealed row whose header is wrong (a bug's row) traps naming type, key and the header")
    func iteratingARowWithAWrongHeaderTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            let key = RawAccess.keys(of: Person.self, in: store)[0]
            try? RawAccess.rewriteRow(of: Person.self, key: key, in: store) { $0[1] = 0x7F }  // column count
            for person in store.objects(Person.self) { _ = person.name }
        }
        let output = standardError(of: result)
        #expect(output.contains("\(TrapMessage.corrupted)"), "\(output)")
        #expect(output.contains("Person[1]"), "\(output)")
        #expect(output.contains("the schema has"), "\(output)")  // the header check's words
    }
}
