import Foundation
import StrataTestSupport
import Testing

@testable import Strata

enum WideningV1 {
    final class Sample: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var title: String
        @Persisted var note: String?
        @Persisted var small: Int32
        @Persisted var tiny: UInt8
        @Persisted var ratio: Float
        @Persisted var count: Int64
        @Persisted var level: Int8
        @Persisted(indexed: true) var code: Int16
    }

    final class Retired: Object {
        @Persisted var label: String
    }
}

enum WideningV2 {
    final class Sample: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var title: String?  // required → optional: kept
        @Persisted var note: String = "none"  // optional → required: kept, nil becomes the initial value
        @Persisted var small: Int  // Int32 → Int: kept
        @Persisted var tiny: Int16  // UInt8 → Int16: kept
        @Persisted var ratio: Double  // Float → Double: kept
        @Persisted var count: Int64
        @Persisted var level: Int8
        @Persisted(indexed: true) var code: Int32  // indexed Int16 → Int32: kept, index rebuilt
    }

    final class Fresh: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
    }
}

enum KeyingV1 {
    final class Part: Object {
        @Persisted var code: Int
        @Persisted var name: String
    }

    final class Kit: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var main: Part?
        @Persisted var parts: List<Part>
    }
}

/// `Part` gains a primary key: an existing property.
enum KeyingV2 {
    final class Part: Object {
        @Persisted(primaryKey: true) var code: Int
        @Persisted var name: String
    }

    final class Kit: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var main: Part?
        @Persisted var parts: List<Part>
    }
}

/// `Part` gains a primary key: a new property, which the migration block fills.
enum KeyingV3 {
    final class Part: Object {
        @Persisted(primaryKey: true) var sku: String
        @Persisted var code: Int
        @Persisted var name: String
    }

    final class Kit: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var main: Part?
        @Persisted var parts: List<Part>
    }
}

/// Migrations as realm-swift's tests expect them, and typos that must not commit.
@Suite(.fixtureChecks) struct MigrationParityTests {
    private func v1File() throws -> Fixture {
        let fixture = Fixture([WideningV1.Sample.self, WideningV1.Retired.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...3 {
                let sample = WideningV1.Sample()
                sample.id = id
                sample.title = "title \(id)"
                sample.note = id == 2 ? nil : "note \(id)"
                sample.small = id == 3 ? .min : Int32(id) * -1000
                sample.tiny = 255
                sample.ratio = 1.5
                sample.count = .max - Int64(id)
                sample.level = -8
                sample.code = Int16(-id)
                try store.add(sample)
            }
            let retired = WideningV1.Retired()
            retired.label = "old"
            try store.add(retired)
        }
        return fixture
    }

    private func v2(_ fixture: Fixture, _ migration: Store.MigrationBlock? = nil) -> Store.Configuration {
        var configuration = Store.Configuration(
            fileURL: fixture.configuration.fileURL!, objectTypes: [WideningV2.Sample.self, WideningV2.Fresh.self])
        configuration.schemaVersion = 1
        configuration.migration = migration
        return configuration
    }

    @Test func widenedAndOptionalisedPropertiesKeepTheirValuesWithoutABlock() throws {
        let fixture = try v1File()
        let store = try Store(configuration: v2(fixture))
        let samples = store.objects(WideningV2.Sample.self)
        #expect(samples.map(\.title) == ["title 1", "title 2", "title 3"])  // emptied before
        #expect(samples.map(\.note) == ["note 1", "none", "note 3"])
        #expect(samples.map(\.small) == [-1000, -2000, Int(Int32.min)])
        #expect(samples.map(\.tiny) == [255, 255, 255])
        #expect(samples.map(\.ratio) == [1.5, 1.5, 1.5])
        let counts: [Int64] = [.max - 1, .max - 2, .max - 3]
        #expect(samples.map(\.count) == counts)
        #expect(samples.map(\.code) == [-1, -2, -3])
        #expect(samples.where { $0.code == -2 }.map(\.id) == [2])
        try store.verify()
    }

    @Test func integersOfEveryWidthReadAsEveryIntegerTypeTheyFit() throws {
        let fixture = try v1File()
        let seen = ResultBox<[String]>()
        let store = try Store(
            configuration: v2(fixture) { migration, _ in
                var values: [String] = []
                try migration.enumerateObjects(ofType: "Sample") { old, new in
                    guard let old, let new, old["id"] as? Int == 1 else { return }
                    // Int64 read as Int; Int64 read as Int64 (it failed); Int8 as Int; Int32 widening to Int.
                    values.append("\(old["count"] as? Int64 ?? 0) \(old["count"] as? Int ?? 0)")
                    values.append(
                        "\(old["level"] as? Int ?? 0) \(old["level"] as? Int8 ?? 0) \(old["level"] as? Int64 ?? 0)")
                    values.append(
                        "\(old["small"] as? Int ?? 0) \(new["small"] as? Int32 ?? 0) \(old["tiny"] as? UInt8 ?? 0)")
                    values.append("\(old["level"] as? UInt8 as Any) \(old["tiny"] as? Int8 as Any)")  // do not fit
                    new["count"] = old["count"]  // a number copies across as it is
                    new["level"] = 7 as Int64
                }
                seen.value = values
            })
        #expect(
            seen.value == [
                "\(Int64.max - 1) \(Int64.max - 1)", "-8 -8 -8", "-1000 -1000 255", "nil nil",
            ])
        #expect(store.object(ofType: WideningV2.Sample.self, forPrimaryKey: 1)?.level == 7)
    }

    static func migrate(_ fixture: Fixture, _ migration: @escaping Store.MigrationBlock) -> StoreError? {
        var configuration = Store.Configuration(
            fileURL: fixture.configuration.fileURL!, objectTypes: [WideningV2.Sample.self, WideningV2.Fresh.self])
        configuration.schemaVersion = 1
        configuration.migration = migration
        do {
            _ = try Store(configuration: configuration)
            return nil
        } catch {
            return error
        }
    }

    @Test func aTypoInATypeOrPropertyNameAbandonsTheMigrationAndKeepsTheFile() throws {
        let fixture = try v1File()
        let before = fixture.fileBytes()
        let typos: [(String, Store.MigrationBlock)] = [
            ("Samples", { migration, _ in try migration.enumerateObjects(ofType: "Samples") { _, _ in } }),
            (
                "titel",
                { migration, _ in
                    try migration.enumerateObjects(ofType: "Sample") { old, new in
                        new?["note"] = old?["titel"] as? String
                    }
                }
            ),
            (
                "nott",
                { migration, _ in try migration.enumerateObjects(ofType: "Sample") { _, new in new?["nott"] = "x" } }
            ),
            (
                "title",
                { migration, _ in  // a value of the wrong type, through the subscript
                    try migration.enumerateObjects(ofType: "Sample") { _, new in new?["title"] = 12 }
                }
            ),
        ]
        for (name, migration) in typos {
            let error = Self.migrate(fixture, migration)
            guard case .invalidArgument(let message)? = error else {
                Issue.record("\(name): expected .invalidArgument, got \(String(describing: error))")
                continue
            }
            #expect(message.contains(name))
            #expect(fixture.fileBytes() == before, "\(name): the file changed")
        }
        // The file is still at version 0: the corrected migration runs.
        #expect(
            Self.migrate(fixture) { migration, _ in try migration.enumerateObjects(ofType: "Sample") { _, _ in } }
                == nil)
    }

    @Test func deleteDataEnumerateAndNewTypesAsInRealm() throws {
        let fixture = try v1File()
        let log = ResultBox<[String]>()
        let store = try Store(
            configuration: v2(fixture) { migration, _ in
                var lines: [String] = []
                // A type new in this migration: create, enumerate (old nil), then deleteData removes them.
                try migration.create("Fresh", value: ["id": 1, "name": "a"])
                try migration.create("Fresh", value: ["id": 2, "name": "b"])
                try migration.enumerateObjects(ofType: "Fresh") { old, new in
                    lines.append("fresh \(old == nil) \(new?["name"] as? String ?? "-")")
                }
                lines.append("deleteData Fresh \(try migration.deleteData(forType: "Fresh"))")
                try migration.enumerateObjects(ofType: "Fresh") { _, _ in lines.append("fresh again") }
                // Objects deleted earlier in the migration are skipped.
                try migration.enumerateObjects(ofType: "Sample") { old, new in
                    if old?["id"] as? Int == 2, let new { try migration.delete(new) }
                }
                try migration.enumerateObjects(ofType: "Sample") { old, _ in lines.append("sample \(old?["id"] ?? "-")")
                }
                // A type gone from the new schema: old objects, no new ones.
                try migration.enumerateObjects(ofType: "Retired") { old, new in
                    lines.append("retired \(old?["label"] as? String ?? "-") \(new == nil)")
                }
                lines.append("deleteData nothing \(try migration.deleteData(forType: "NoSuchClass"))")
                log.value = lines
            })
        #expect(
            log.value == [
                "fresh true a", "fresh true b", "deleteData Fresh true", "sample 1", "sample 3", "retired old true",
                "deleteData nothing false",
            ])
        #expect(store.objects(WideningV2.Fresh.self).isEmpty)
        #expect(store.objects(WideningV2.Sample.self).map(\.id) == [1, 3])
    }

    // MARK: A primary key added in a migration (Realm runs the block, then keys the rows)

    /// Parts 30, 10, 20 (stored in that order, without a key), and a kit linking to 20 and to [30, 10].
    private func unkeyedParts() throws -> Fixture {
        let fixture = Fixture([KeyingV1.Part.self, KeyingV1.Kit.self])
        let store = try fixture.open()
        try store.write {
            var parts: [Int: KeyingV1.Part] = [:]
            for (code, name) in [(30, "c"), (10, "a"), (20, "b")] {
                let part = KeyingV1.Part()
                part.code = code
                part.name = name
                parts[code] = part
                try store.add(part)
            }
            let kit = KeyingV1.Kit()
            kit.id = 1
            kit.main = parts[20]
            kit.parts.append(objectsIn: [parts[30]!, parts[10]!])
            try store.add(kit)
        }
        return fixture
    }

    private func keyed(_ fixture: Fixture, _ types: [Object.Type], _ migration: Store.MigrationBlock?)
        -> Store.Configuration
    {
        var configuration = Store.Configuration(fileURL: fixture.configuration.fileURL!, objectTypes: types)
        configuration.schemaVersion = 1
        configuration.migration = migration
        return configuration
    }

    @Test func anExistingPropertyBecomesThePrimaryKeyAndLinksFollow() throws {
        let fixture = try unkeyedParts()
        let ran = ResultBox<Bool>()
        let store = try Store(
            configuration: keyed(fixture, [KeyingV2.Part.self, KeyingV2.Kit.self]) { _, _ in ran.value = true })
        #expect(ran.value == true)
        #expect(store.objects(KeyingV2.Part.self).map(\.code) == [10, 20, 30])  // primary-key order now
        #expect(store.object(ofType: KeyingV2.Part.self, forPrimaryKey: 20)?.name == "b")
        let kit = try #require(store.object(ofType: KeyingV2.Kit.self, forPrimaryKey: 1))
        #expect(kit.main?.code == 20)
        #expect(kit.parts.map(\.code) == [30, 10])
        try store.write {
            #expect(throws: StoreError.alreadyExists(primaryKey: "10")) {
                let again = KeyingV2.Part()
                again.code = 10
                try store.add(again)
            }
        }
        try store.verify()
    }

    @Test func aNewPrimaryKeyPropertyIsFilledByTheBlock() throws {
        let fixture = try unkeyedParts()
        let store = try Store(
            configuration: keyed(fixture, [KeyingV3.Part.self, KeyingV3.Kit.self]) { migration, _ in
                try migration.enumerateObjects(ofType: "Part") { old, new in
                    new?["sku"] = "P-\(old?["code"] as? Int ?? 0)"
                }
                try migration.create("Part", value: ["sku": "P-40", "code": 40, "name": "d"])
            })
        #expect(store.objects(KeyingV3.Part.self).map(\.sku) == ["P-10", "P-20", "P-30", "P-40"])
        #expect(store.object(ofType: KeyingV3.Part.self, forPrimaryKey: "P-30")?.name == "c")
        let kit = try #require(store.object(ofType: KeyingV3.Kit.self, forPrimaryKey: 1))
        #expect(kit.main?.sku == "P-20")
        #expect(kit.parts.map(\.sku) == ["P-30", "P-10"])
        try store.verify()
    }

    @Test func duplicatePrimaryKeysAfterTheBlockAbandonTheMigration() throws {
        let fixture = try unkeyedParts()
        let bytes = fixture.fileBytes()
        // The block leaves every new sku at its initial value "": three parts, one key.
        #expect(throws: StoreError.alreadyExists(primaryKey: "")) {
            _ = try Store(configuration: keyed(fixture, [KeyingV3.Part.self, KeyingV3.Kit.self]) { _, _ in })
        }
        #expect(fixture.fileBytes() == bytes)
        // Without a migration (same schema version) the change is refused, as any other change is.
        var unversioned = keyed(fixture, [KeyingV2.Part.self, KeyingV2.Kit.self], nil)
        unversioned.schemaVersion = 0
        #expect { _ = try Store(configuration: unversioned) } throws: { isCase($0, .migrationRequired("")) }
        let old = try Store(configuration: fixture.configuration)
        #expect(old.objects(KeyingV1.Part.self).count == 3)
    }

    // MARK: enumerateObjects after deleteData

    @Test func enumerateAfterDeleteDataVisitsNothing() throws {
        let fixture = try v1File()
        let log = ResultBox<[String]>()
        _ = try Store(
            configuration: v2(fixture) { migration, _ in
                var lines: [String] = []
                // A type gone from the new schema, emptied: nothing to visit.
                try migration.deleteData(forType: "Retired")
                try migration.enumerateObjects(ofType: "Retired") { _, _ in lines.append("retired") }
                // A type kept, emptied, then given a new object: the new one is no old object.
                try migration.deleteData(forType: "Sample")
                try migration.create("Sample", value: ["id": 2, "title": "made"])
                try migration.enumerateObjects(ofType: "Sample") { old, _ in lines.append("sample \(old?["id"] ?? "-")")
                }
                log.value = lines
            })
        #expect(log.value == [])
    }
}
