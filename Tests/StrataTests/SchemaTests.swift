import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Other versions of the test models: same stored type names, other properties.
enum V2 {
    final class Note: Object {
        @Persisted var text: Int  // was String
        @Persisted var pinned: Bool  // added
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String  // no longer indexed
        @Persisted var age: Int = 18
        @Persisted var email: String?
        // dogs: removed
    }
}

enum Ordering {
    enum First {
        final class Pair: Object {
            @Persisted var x: Int
            @Persisted var y: String
        }
    }

    enum Second {
        final class Pair: Object {
            @Persisted var y: String
            @Persisted var x: Int
        }
    }
}

@Suite(.fixtureChecks) struct SchemaTests {
    @Test func aChangedSchemaNeedsAMigrationAndTheFileIsUntouched() throws {
        let fixture = Fixture([Note.self])
        do {
            let store = try fixture.open()
            try store.write { try store.add(Note("kept")) }
        }
        let before = fixture.fileBytes()
        let changed = Store.Configuration(fileURL: fixture.configuration.fileURL!, objectTypes: [V2.Note.self])
        #expect {
            try Store(configuration: changed)
        } throws: { error in
            guard case .migrationRequired(let difference) = error as? StoreError else { return false }
            return difference.contains("Note.text changed type from String to Int")
                && difference.contains("Note.pinned was added")
        }
        #expect(fixture.fileBytes() == before)
        let store = try fixture.open()
        #expect(store.objects(Note.self).map(\.text) == ["kept"])
    }

    @Test func aRemovedPropertyNeedsAMigrationADroppedIndexDoesNot() throws {
        let fixture = Fixture([Person.self])
        _ = try fixture.open()
        var changed = fixture.configuration
        changed.objectTypes = [V2.Person.self]
        #expect {
            try Store(configuration: changed)
        } throws: { error in
            guard case .migrationRequired(let difference) = error as? StoreError else { return false }
            return !difference.contains("indexed") && difference.contains("Person.dogs was removed")
        }
        var removed = fixture.configuration
        removed.objectTypes = [V2.Note.self]
        _ = try Store(configuration: removed)  // a new type is added without a migration
    }

    @Test func newTypesJoinAnExistingFile() throws {
        let fixture = Fixture([Note.self])
        do {
            let store = try fixture.open()
            try store.write { try store.add(Note("a")) }
        }
        var more = fixture.configuration
        more.objectTypes = [Note.self, Item.self]
        let store = try Store(configuration: more)
        try store.write { try store.add(Item(id: 1, score: 1, name: "i")) }
        #expect(store.objects(Note.self).count == 1)
        #expect(store.objects(Item.self).count == 1)
    }

    @Test func schemaVersionOnlyGoesUp() throws {
        let fixture = Fixture([Note.self]) { $0.schemaVersion = 2 }
        _ = try fixture.open()
        var older = fixture.configuration
        older.schemaVersion = 1
        #expect { try Store(configuration: older) } throws: { isCase($0, .schemaMismatch("")) }
        var newer = fixture.configuration
        newer.schemaVersion = 3
        _ = try Store(configuration: newer)  // same schema, higher version: recorded in the file
        #expect { try fixture.open() } throws: { isCase($0, .schemaMismatch("")) }
    }

    @Test func columnsAreMatchedByNameNotDeclarationOrder() throws {
        let fixture = Fixture([Ordering.First.Pair.self])
        do {
            let store = try fixture.open()
            let pair = Ordering.First.Pair()
            pair.x = 7
            pair.y = "seven"
            try store.write { try store.add(pair) }
        }
        let reordered = Store.Configuration(
            fileURL: fixture.configuration.fileURL!, objectTypes: [Ordering.Second.Pair.self])
        let store = try Store(configuration: reordered)
        let pair = try #require(store.objects(Ordering.Second.Pair.self).first)
        #expect(pair.x == 7)
        #expect(pair.y == "seven")
        let another = Ordering.Second.Pair()
        another.x = 8
        another.y = "eight"
        try store.write { try store.add(another) }
        #expect(store.objects(Ordering.Second.Pair.self).map(\.y) == ["seven", "eight"])
        try store.verify()
    }

    @Test func anUnreadableSchemaIsCorrupted() throws {
        let fixture = Fixture([Note.self])
        _ = try fixture.open()
        try RawAccess.rewriteMeta(path: fixture.path, key: "schema", value: Array("{\"types\": [1, 2".utf8))
        #expect { try fixture.open() } throws: { isCase($0, .corrupted("")) }
        try RawAccess.rewriteMeta(path: fixture.path, key: "schema", value: [0xFF, 0x00, 0x13])
        #expect { try fixture.open() } throws: { isCase($0, .corrupted("")) }
    }

    @Test func aSchemaListingATypeTwiceIsCorrupted() throws {
        let fixture = Fixture([Note.self])
        _ = try fixture.open()
        let note =
            #"{"name":"Note","properties":[{"name":"text","type":{"string":{}},"isPrimaryKey":false,"isIndexed":false}]}"#
        try RawAccess.rewriteMeta(
            path: fixture.path, key: "schema", value: Array(#"{"schemaVersion":0,"types":[\#(note),\#(note)]}"#.utf8))
        for open in [{ _ = try fixture.open() }, { _ = try DynamicStore(path: fixture.path) }] {
            #expect {
                try open()
            } throws: { error in
                guard case .corrupted(let reason) = error as? StoreError else { return false }
                return reason.contains("lists the type Note twice")
            }
        }
    }

    @Test func aNewerFormatVersionIsRefused() throws {
        let fixture = Fixture([Note.self])
        _ = try fixture.open()
        try RawAccess.rewriteMeta(path: fixture.path, key: "format", value: [3, 0, 0, 0])
        #expect {
            try fixture.open()
        } throws: { error in
            guard case .corrupted(let reason) = error as? StoreError else { return false }
            return reason.contains("format version is 3")
        }
    }
}
