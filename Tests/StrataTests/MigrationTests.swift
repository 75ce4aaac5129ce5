import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `ProcessEntry` with `writer` changed from Int to String: a file of the old one needs a migration.
enum ChangedEntry {
    final class ProcessEntry: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var writer: String
    }
}

enum MigrationV1 {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
        @Persisted var birthYear: Int
        @Persisted var phone: String?
        @Persisted var pet: Pet?
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var species: String
    }

    final class Legacy: Object {
        @Persisted var data: String
    }
}

enum MigrationV2 {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(indexed: true) var fullName: String  // renamed from name
        @Persisted var age: Int = 7  // computed from birthYear, which is removed
        @Persisted var phone: String?
        @Persisted var pet: Pet?
        @Persisted var tags: List<String>  // added
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var species: String
        @Persisted var owners: LinkingObjectsPlaceholder?  // added link
    }

    /// A second linked type added by the migration.
    final class LinkingObjectsPlaceholder: Object {
        @Persisted var note: String
    }
}

@Suite(.fixtureChecks) struct MigrationTests {
    /// A V1 file: three contacts (one with a pet), two legacy rows.
    private func v1File() throws -> Fixture {
        let fixture = Fixture([MigrationV1.Contact.self, MigrationV1.Legacy.self])
        let store = try fixture.open()
        try store.write {
            for (id, name, year) in [(1, "Ann", 1990), (2, "Bob", 2000), (3, "Cy", 1980)] {
                let contact = MigrationV1.Contact()
                contact.id = id
                contact.name = name
                contact.birthYear = year
                contact.phone = id == 2 ? nil : "555-\(id)"
                if id == 1 {
                    let pet = MigrationV1.Pet()
                    pet.id = 10
                    pet.species = "cat"
                    contact.pet = pet
                }
                try store.add(contact)
            }
            let legacy = MigrationV1.Legacy()
            legacy.data = "old"
            try store.add(legacy)
        }
        return fixture
    }

    private func v2Configuration(_ fixture: Fixture, version: UInt64 = 1) -> Store.Configuration {
        var configuration = opening(fixture, [MigrationV2.Contact.self])
        configuration.schemaVersion = version
        return configuration
    }

    /// The fixture's file opened with `types` (and its key, when the suite runs on encrypted files).
    private func opening(_ fixture: Fixture, _ types: [Object.Type]) -> Store.Configuration {
        var configuration = fixture.configuration
        configuration.objectTypes = types
        return configuration
    }

    @Test func addedAndRemovedPropertiesAndTypesNeedOnlyAHigherVersion() throws {
        let fixture = try v1File()
        #expect { try Store(configuration: v2Configuration(fixture, version: 0)) } throws: {
            isCase($0, .migrationRequired(""))
        }
        let store = try Store(configuration: v2Configuration(fixture))
        let contacts = store.objects(MigrationV2.Contact.self)
        #expect(contacts.map(\.id) == [1, 2, 3])
        #expect(contacts.map(\.age) == [7, 7, 7])  // the model's initial value
        #expect(contacts.map(\.fullName) == ["", "", ""])  // a new property: renaming needs the block
        #expect(contacts.map(\.phone) == ["555-1", nil, "555-3"])
        #expect(contacts[0].pet?.species == "cat")
        #expect(contacts[0].tags.isEmpty)
        #expect(contacts.where { $0.fullName == "" }.queryPlan.index == "fullName")
        try store.verify()
        let stored = try SchemaBinderProbe.storedTypeNames(store)
        #expect(!stored.contains("Legacy"))  // dropped with the migration
    }

    @Test func theBlockRenamesEnumeratesCreatesAndDeletes() throws {
        let fixture = try v1File()
        var configuration = v2Configuration(fixture, version: 3)
        let seenVersion = ResultBox<UInt64>()
        configuration.migration = { migration, oldVersion in
            seenVersion.value = oldVersion
            try migration.renameProperty(onType: "Contact", from: "name", to: "fullName")
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                let year = old?["birthYear"] as? Int ?? 0
                new?["age"] = 2026 - year
                new?["tags"] = year < 1985 ? ["senior"] : []
                #expect(new?["fullName"] as? String == old?["name"] as? String)
                // A name the schema lacks is an error (it read as nil, and the migration committed).
                #expect { try old?.value(forProperty: "fullName") } throws: { isCase($0, .invalidArgument("")) }
                #expect { try new?.value(forProperty: "birthYear") } throws: { isCase($0, .invalidArgument("")) }
            }
            let dee = try migration.create("Contact", value: ["id": 4, "fullName": "Dee", "phone": "555-4"])
            #expect(dee["age"] as? Int == 7)
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                if old?["name"] as? String == "Bob", let new { try migration.delete(new) }
            }
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                if old?["name"] as? String == "Bob" { #expect(new == nil) }
            }
            #expect(try migration.deleteData(forType: "Legacy"))
            #expect(try !migration.deleteData(forType: "Nothing"))
        }
        let store = try Store(configuration: configuration)
        #expect(seenVersion.value == 0)
        let contacts = store.objects(MigrationV2.Contact.self)
        #expect(contacts.map(\.fullName) == ["Ann", "Cy", "Dee"])
        #expect(contacts.map(\.age) == [36, 46, 7])
        #expect(contacts.map { Array($0.tags) } == [[], ["senior"], []])
        #expect(contacts.where { $0.fullName == "Cy" }.map(\.id) == [3])  // the new index holds the renamed values
        try store.verify()
    }

    @Test func aThrowingMigrationLeavesTheFileAsItWas() throws {
        struct Refused: Error {}
        let fixture = try v1File()
        let before = fixture.fileBytes()
        var configuration = v2Configuration(fixture)
        configuration.migration = { migration, _ in
            try migration.enumerateObjects(ofType: "Contact") { _, new in new?["age"] = 99 }
            _ = try migration.create("Contact", value: ["id": 9])
            throw Refused()
        }
        #expect {
            try Store(configuration: configuration)
        } throws: { error in
            guard case .migrationRequired(let message) = error as? StoreError else { return false }
            return message.contains("Refused")
        }
        #expect(fixture.fileBytes() == before)
        let old = try fixture.open()
        #expect(old.objects(MigrationV1.Contact.self).map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(old.objects(MigrationV1.Legacy.self).count == 1)
    }

    @Test func aDuplicatePrimaryKeyOrBadValueFailsTheMigration() throws {
        let fixture = try v1File()
        let before = fixture.fileBytes()
        var duplicate = v2Configuration(fixture)
        duplicate.migration = { migration, _ in _ = try migration.create("Contact", value: ["id": 1]) }
        #expect { try Store(configuration: duplicate) } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        var badValue = v2Configuration(fixture)
        badValue.migration = { migration, _ in
            try migration.enumerateObjects(ofType: "Contact") { _, new in try new?.setValue("old", forProperty: "age") }
        }
        #expect { try Store(configuration: badValue) } throws: { isCase($0, .invalidArgument("")) }
        var primaryKey = v2Configuration(fixture)
        primaryKey.migration = { migration, _ in
            try migration.enumerateObjects(ofType: "Contact") { _, new in try new?.setValue(5, forProperty: "id") }
        }
        #expect { try Store(configuration: primaryKey) } throws: { isCase($0, .invalidArgument("")) }
        var unknown = v2Configuration(fixture)
        unknown.migration = { migration, _ in
            try migration.renameProperty(onType: "Contact", from: "nope", to: "fullName")
        }
        #expect { try Store(configuration: unknown) } throws: { isCase($0, .invalidArgument("")) }
        #expect(fixture.fileBytes() == before)
    }

    @Test func deletingInAMigrationClearsLinksToTheObject() throws {
        let fixture = try v1File()
        var configuration = v2Configuration(fixture)
        configuration.migration = { migration, _ in
            try migration.enumerateObjects(ofType: "Pet") { _, new in
                #expect(new?["species"] as? String == "cat")
                if let new { try migration.delete(new) }
            }
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                if old?["name"] as? String == "Cy" {
                    new?["pet"] = try migration.create("Pet", value: ["id": 11, "species": "dog"])
                }
            }
        }
        let store = try Store(configuration: configuration)
        let contacts = store.objects(MigrationV2.Contact.self)
        #expect(contacts.map { $0.pet?.species } == [nil, nil, "dog"])
        try store.verify()
    }

    @Test func indexesAreAddedAndDroppedWithoutAMigration() throws {
        let fixture = try v1File()
        let indexed = opening(fixture, [ContactIndexed.self])
        do {
            let store = try Store(configuration: indexed)
            let found = store.objects(ContactIndexed.self).where { $0.name == "Bob" }
            #expect(found.queryPlan.index == "name")
            #expect(found.map(\.id) == [2])
            try store.write {
                let contact = ContactIndexed()
                contact.id = 5
                contact.name = "Bob"
                try store.add(contact)
            }
            #expect(found.map(\.id) == [2, 5])
            try store.verify()
        }
        let store = try Store(
            configuration: opening(fixture, [MigrationV1.Contact.self]))
        #expect(store.objects(MigrationV1.Contact.self).where { $0.name == "Bob" }.queryPlan.index == nil)
        #expect(store.objects(MigrationV1.Contact.self).where { $0.name == "Bob" }.count == 2)
        try store.verify()
    }

    @Test func aReadOnlyStoreNeverChangesTheFile() throws {
        let fixture = try v1File()
        let before = fixture.fileBytes()
        var migrating = v2Configuration(fixture)
        migrating.readOnly = true
        #expect(throws: StoreError.readOnly) { try Store(configuration: migrating) }
        var indexed = opening(fixture, [ContactIndexed.self])
        indexed.readOnly = true
        let store = try Store(configuration: indexed)  // the new index is not built, nor used
        let bobs = store.objects(ContactIndexed.self).where { $0.name == "Bob" }
        #expect(bobs.queryPlan.index == nil)
        #expect(bobs.map(\.id) == [2])
        #expect(throws: StoreError.readOnly) { try store.write { try store.add(ContactIndexed()) } }
        #expect(fixture.fileBytes() == before)
    }

    @Test func aChangedPrimaryKeyNeedsAMigrationThatKeysTheRowsAnew() throws {
        let fixture = try v1File()
        var configuration = opening(fixture, [ContactRekeyed.self])
        #expect { try Store(configuration: configuration) } throws: { isCase($0, .migrationRequired("")) }
        configuration.schemaVersion = 1
        let store = try Store(configuration: configuration)  // as Realm: the primary key moves to `name`
        #expect(store.objects(ContactRekeyed.self).map(\.name) == ["Ann", "Bob", "Cy"])
        let ann = try #require(store.object(ofType: ContactRekeyed.self, forPrimaryKey: "Ann"))
        #expect(ann.id == 1)
        #expect(ann.pet?.species == "cat")
        try store.verify()
    }

    @Test func deleteStoreIfMigrationNeededStartsAfresh() throws {
        let fixture = try v1File()
        var configuration = opening(fixture, [V2Note.self])
        #expect { try Store(configuration: configuration) } throws: { isCase($0, .migrationRequired("")) }
        configuration.deleteStoreIfMigrationNeeded = true
        let store = try Store(configuration: configuration)
        #expect(store.objects(V2Note.self).isEmpty)
        try store.write { try store.add(V2Note()) }
        #expect(store.objects(V2Note.self).count == 1)
    }

    @Test func deleteStoreIfMigrationNeededRefusesAFileOpenInTheProcess() throws {
        let fixture = try v1File()
        let held = try fixture.open()  // another Store of the process has the file
        let before = fixture.fileBytes()
        var configuration = opening(fixture, [V2Note.self])
        configuration.deleteStoreIfMigrationNeeded = true
        #expect { try Store(configuration: configuration) } throws: { isCase($0, .migrationRequired("")) }
        #expect(fixture.fileBytes() == before)
        #expect(held.objects(MigrationV1.Contact.self).count == 3)
    }

    @Test func deleteStoreIfMigrationNeededRefusesAFileAnotherProcessHasOpen() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        do {
            let store = try fixture.open()
            try store.write { try store.add(ProcessEntry()) }
        }
        let other = try StressProcess(["hold-reader", fixture.path])
        #expect(other.readLine() == "ready")
        let before = fixture.fileBytes()
        var configuration = fixture.configuration
        configuration.objectTypes = [ChangedEntry.ProcessEntry.self]  // `writer` is now a String
        configuration.deleteStoreIfMigrationNeeded = true
        #expect { try Store(configuration: configuration) } throws: { isCase($0, .migrationRequired("")) }
        #expect(fixture.fileBytes() == before)
        other.kill()
        other.wait()
        let store = try Store(configuration: configuration)  // nothing holds it now: deleted, afresh
        #expect(store.objects(ChangedEntry.ProcessEntry.self).isEmpty)
    }

    @Test func aMigrationRunsOnceAndOnlyWhenTheVersionGrows() throws {
        let fixture = try v1File()
        let runs = ResultBox<Int>()
        runs.value = 0
        var configuration = v2Configuration(fixture, version: 2)
        configuration.migration = { _, _ in runs.value! += 1 }
        do { _ = try Store(configuration: configuration) }
        do { _ = try Store(configuration: configuration) }
        #expect(runs.value == 1)
        configuration.schemaVersion = 1
        #expect { try Store(configuration: configuration) } throws: { isCase($0, .schemaMismatch("")) }
    }
}

// Variants of V1's Contact stored under the same name ("Contact" is the unqualified class name).
typealias ContactIndexed = IndexVariant.Contact
typealias ContactRekeyed = RekeyVariant.Contact
typealias V2Note = NoteVariant.Contact

enum IndexVariant {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted(indexed: true) var name: String
        @Persisted var birthYear: Int
        @Persisted var phone: String?
        @Persisted var pet: MigrationV1.Pet?
    }
}

enum RekeyVariant {
    final class Contact: Object {
        @Persisted var id: Int
        @Persisted(primaryKey: true) var name: String
        @Persisted var birthYear: Int
        @Persisted var phone: String?
        @Persisted var pet: MigrationV1.Pet?
    }
}

enum NoteVariant {
    /// A "Contact" whose columns and key differ from V1's.
    final class Contact: Object {
        @Persisted var text: String
    }
}

/// Reads the stored schema's type names.
enum SchemaBinderProbe {
    static func storedTypeNames(_ store: Store) throws -> [String] {
        let meta = try store.core.environment.withTableRegistry { (registry) throws(StoreError) in
            registry[TableName.meta]
        }
        guard let meta else { return [] }
        let bytes = try Array(MetaKey.schema.utf8).withBytes { (key) throws(LMDBError) in
            try store.core.get(meta, key: key).map { Array($0) }
        }
        guard let bytes else { return [] }
        return try bytes.withBytes { (raw) throws(StoreError) in try StoredSchema(decoding: raw).types.map(\.name) }
    }
}
