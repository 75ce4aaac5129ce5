import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

/// The objects of `Fixtures/format-1.strata`, a file written by Strata's format 1 (rows without
/// checksums): Person, Dog, Note and AllTypes with fixed values.
enum FormatOneFixture {
    static let types: [Object.Type] = [Person.self, Dog.self, Note.self, AllTypes.self]

    static func dogID(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))!
    }

    static func addObjects(to store: Store) throws {
        try store.write {
            for id in 1...30 {
                let person = Person(id: id, name: "person \(id)", age: 20 + id)
                person.email = id % 3 == 0 ? nil : "p\(id)@example.com"
                try store.add(person)
            }
            for index in 1...20 {
                let dog = Dog(name: "dog \(index)")
                dog.id = dogID(index)
                dog.owner = store.object(ofType: Person.self, forPrimaryKey: index)
                try store.add(dog)
                store.object(ofType: Person.self, forPrimaryKey: index % 7 + 1)!.dogs.append(dog)
            }
            for index in 1...25 { try store.add(Note("note \(index) " + String(repeating: "x", count: index * 40))) }
            for index in 1...5 {
                let all = AllTypes()
                all.key = "all \(index)"
                all.bool = index % 2 == 0
                all.int = index * 1_000_003
                all.int8 = Int8(-index)
                all.int16 = Int16(index * 300)
                all.int32 = Int32(index * 70_000)
                all.int64 = Int64(index) << 40
                all.uint8 = UInt8(index * 50)
                all.uint16 = UInt16(index * 13_000)
                all.uint32 = UInt32(index) << 30
                all.uint64 = UInt64(index) << 60
                all.float = Float(index) / 3
                all.double = Double(index) * .pi
                all.string = "string \(index) ünïcödé"
                all.data = Data((0..<(index * 700)).map { UInt8(truncatingIfNeeded: $0 * index) })
                all.date = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 86_400.5)
                all.uuid = dogID(100 + index)
                all.decimal = Decimal(string: "\(index).\(index)5")!
                all.mood = index % 2 == 0 ? .sad : .calm
                all.level = index % 2 == 0 ? .low : .high
                all.optBool = index % 2 == 0 ? true : nil
                all.optInt = index % 2 == 0 ? nil : index
                all.optInt8 = index % 2 == 0 ? Int8(index) : nil
                all.optUInt64 = index % 2 == 0 ? nil : UInt64(index)
                all.optFloat = index % 2 == 0 ? Float(index) : nil
                all.optDouble = index % 2 == 0 ? nil : Double(index) / 7
                all.optString = index % 2 == 0 ? "optional \(index)" : nil
                all.optData = index % 2 == 0 ? nil : Data([1, 2, UInt8(index)])
                all.optDate = index % 2 == 0 ? Date(timeIntervalSince1970: Double(index)) : nil
                all.optUUID = index % 2 == 0 ? nil : dogID(200 + index)
                all.optDecimal = index % 2 == 0 ? Decimal(index) / 4 : nil
                all.optMood = index % 2 == 0 ? nil : .happy
                all.link = store.object(ofType: Person.self, forPrimaryKey: index)
                all.ints.append(objectsIn: Array(0..<(index * 3)))
                all.strings.append(objectsIn: (0..<index).map { "s\($0)" })
                all.optionalDoubles.append(objectsIn: [1.5, nil, Double(index)])
                all.moods.append(objectsIn: [.happy, .sad])
                all.people.append(
                    objectsIn: (1...index).compactMap { store.object(ofType: Person.self, forPrimaryKey: $0) })
                all.indexedDate = Date(timeIntervalSince1970: Double(index * 1000))
                all.indexedOptionalInt = index % 2 == 0 ? index : nil
                all.indexedBool = index % 3 == 0
                all.indexedUUID = dogID(300 + index)
                try store.add(all)
            }
            for id in stride(from: 2, through: 30, by: 9) {
                try store.delete(store.object(ofType: Person.self, forPrimaryKey: id)!)
            }
        }
    }
}

@Suite("File format upgrade", .fixtureChecks)
struct FormatUpgradeTests {
    static var fixtureFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/format-1.strata")
    }

    /// A copy of the format 1 file at the fixture's path.
    private func formatOneCopy() throws -> Fixture {
        let fixture = Fixture(FormatOneFixture.types)
        try Data(contentsOf: Self.fixtureFile).write(to: URL(fileURLWithPath: fixture.path))
        return fixture
    }

    private func formatVersion(_ store: Store) throws -> UInt32? {
        guard case .current = try SchemaBinder.readStoredState(store.core.environment) else { return nil }
        return try store.core.environment.withTableRegistry { (registry) throws(StoreError) -> UInt32? in
            let transaction = try StoreError.mapping { () throws(LMDBError) in
                try ReadTransaction(store.core.environment)
            }
            return try StoreError.mapping { () throws(LMDBError) -> UInt32? in
                try Array(MetaKey.format.utf8).withBytes { (key) throws(LMDBError) in
                    try transaction.get(registry[TableName.meta]!, key: key)
                        .map { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
                }
            }
        }
    }

    @Test("a file of format 1 opens, is upgraded to format 2 in place, and reads as it was written")
    func formatOneIsUpgraded() throws {
        let fixture = try formatOneCopy()
        let expected = Fixture(FormatOneFixture.types)
        let store = try fixture.open()
        #expect(try formatVersion(store) == 2)
        try store.verify()
        // The same objects, written now, describe the same: every type, property, list and link.
        let reference = try expected.open()
        try FormatOneFixture.addObjects(to: reference)
        for type in FormatOneFixture.types {
            let upgraded = store.objects(type).map { String(describing: $0) }
            let written = reference.objects(type).map { String(describing: $0) }
            #expect(upgraded.count > 0)
            #expect(upgraded == written, "\(type)")
        }
        #expect(store.objects(Person.self).where { $0.name == "person 7" }.first?.dogs.count == 3)
        #expect(store.objects(AllTypes.self).where { $0.indexedBool == true }.count == 1)
        // A bit flipped in an upgraded row is found (the rows are sealed).
        let key = RawAccess.keys(of: Note.self, in: store)[3]
        try RawAccess.rewriteStoredRow(of: Note.self, key: key, in: store) { $0[10] ^= 0x04 }
        #expect { try store.verify() } throws: { isCase($0, .corrupted("")) }
    }

    @Test("opening an upgraded file again changes nothing")
    func anUpgradedFileIsLeftAlone() throws {
        let fixture = try formatOneCopy()
        do { _ = try fixture.open() }
        let upgraded = fixture.fileBytes()
        do { _ = try fixture.open() }
        #expect(fixture.fileBytes() == upgraded)
    }

    @Test("read-only, a file of format 1 is refused with .readOnly and left as it is")
    func readOnlyCannotUpgrade() throws {
        let fixture = try formatOneCopy()
        let before = fixture.fileBytes()
        var configuration = fixture.configuration
        configuration.readOnly = true
        #expect(throws: StoreError.readOnly) { try Store(configuration: configuration) }
        let dynamic = try #require(throws: StoreError.self) { try DynamicStore(path: fixture.path) }
        guard case .corrupted(let reason) = dynamic else {
            Issue.record("expected .corrupted, got \(dynamic)")
            return
        }
        #expect(reason.contains("format version 1"), "\(reason)")
        #expect(fixture.fileBytes() == before)
    }

    @Test("a damaged row of format 1 stops the upgrade: .corrupted, nothing written")
    func aDamagedRowStopsTheUpgrade() throws {
        let fixture = try formatOneCopy()
        var bytes = fixture.fileBytes()
        // A note's text: change the header's column count of the row holding it.
        let marker = Data("note 3 xxx".utf8)
        let found = try #require(bytes.range(of: marker))
        let rowStart = bytes[..<found.lowerBound].lastIndex(of: 1)!  // the row's offset width byte (1)
        bytes[rowStart + 1] = 9
        try bytes.write(to: URL(fileURLWithPath: fixture.path))
        let error = try #require(throws: StoreError.self) { try fixture.open() }
        guard case .corrupted(let reason) = error else {
            Issue.record("expected .corrupted, got \(error)")
            return
        }
        #expect(reason.contains("format 1"), "\(reason)")
        #expect(reason.contains("Note"), "\(reason)")
        #expect(fixture.fileBytes() == bytes)
    }
}
