import Foundation
import StrataTestSupport
import Testing

@testable import Strata

enum MixedV1 {
    final class Setting: Object {
        @Persisted(primaryKey: true) var name: String
        @Persisted var value: Int
    }
}

enum MixedV2 {
    final class Setting: Object {
        @Persisted(primaryKey: true) var name: String
        @Persisted var value: AnyValue
    }
}

/// AnyValue, after Realm's AnyRealmValueTests and MixedCollectionTest (RealmSwift/Tests/
/// AnyRealmValueTests.swift, MixedCollectionTest.swift): every kind stored and read back, in
/// properties and collections, nested collections, numbers compared across kinds, links.
@Suite("AnyValue", .fixtureChecks)
struct AnyValueTests {
    static var samples: [AnyValue] {
        [
            .none, .int(-7), .bool(true), .float(2.5), .double(-0.125), .string("é"), .data(Data([0, 255])),
            .date(Date(timeIntervalSince1970: 1_700_000_000)),
            .objectId(try! ObjectId(string: "0123456789abcdef01234567")),
            .decimal128("12.50"), .uuid(UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!),
            .list([.int(1), .string("a"), .list([.bool(false)])]), .map(["a": .int(1), "b": .map(["c": .none])]),
        ]
    }

    @Test("Realm testAnyRealmValue (every kind): stored in a property, a List, a Map and a set, read back")
    func everyKind() throws {
        let fixture = Fixture([Setting.self])
        let store = try fixture.open()
        try store.write {
            for (index, sample) in Self.samples.enumerated() {
                let setting = Setting("s\(index)", sample)
                setting.history.append(sample)
                setting.extras["k"] = sample
                setting.distinct.insert(sample)
                try store.add(setting)
            }
        }
        for (index, sample) in Self.samples.enumerated() {
            let setting = try #require(store.object(ofType: Setting.self, forPrimaryKey: "s\(index)"))
            #expect(setting.value == sample, "\(sample)")
            #expect(setting.history.first == sample)
            #expect(setting.extras["k"] == sample)
            #expect(setting.distinct.first == sample)
            #expect(setting.value.type == sample.type)
        }
        try store.verify()
    }

    @Test("Realm testMixedCollection: nested lists and maps are values, replaced whole")
    func nestedCollections() throws {
        let fixture = Fixture([Setting.self])
        let store = try fixture.open()
        let setting = Setting("nested", .map(["list": .list([.int(1), .int(2)])]))
        try store.write { try store.add(setting) }
        guard case .map(var entries) = setting.value, case .list(var list) = entries["list"] else {
            Issue.record("not a map of a list: \(setting.value)")
            return
        }
        list.append(.string("three"))
        entries["list"] = .list(list)
        try store.write { setting.value = .map(entries) }
        #expect(setting.value == .map(["list": .list([.int(1), .int(2), .string("three")])]))
        #expect {
            try store.write { try store.add(Setting("bad", .map(["a.b": .int(1)]))) }
        } throws: { isCase($0, .invalidArgument("")) }
    }

    @Test("queries compare numbers across kinds (1 == 1.0), never strings with numbers; .type; sorting")
    func queries() throws {
        let fixture = Fixture([Setting.self])
        let store = try fixture.open()
        try store.write {
            for (name, value) in [
                ("int", AnyValue.int(1)), ("double", .double(1.0)), ("decimal", .decimal128("1.00")),
                ("string", .string("1")), ("two", .float(2)), ("none", .none), ("half", .double(0.5)),
            ] {
                try store.add(Setting(name, value))
            }
        }
        let all = store.objects(Setting.self)
        func names(_ query: (Query<Setting>) -> Query<Bool>) -> [String] { all.where(query).map(\.name).sorted() }
        #expect(names { $0.value == .int(1) } == ["decimal", "double", "int"])
        #expect(names { $0.value == .string("1") } == ["string"])
        #expect(names { $0.value > .int(1) && $0.value.type != .string } == ["two"])
        #expect(names { $0.value.type == .string } == ["string"])
        #expect(names { $0.value.type == .none } == ["none"])
        #expect(all.sorted(by: \.value).map(\.name).prefix(2) == ["none", "half"])
        let set = Setting("set", .none)
        try store.write {
            try store.add(set)
            set.distinct.insert(objectsIn: [.int(1), .double(1.0), .decimal128(1), .string("1")])
        }
        #expect(set.distinct.count == 2)
    }

    @Test("a link in an AnyValue resolves, and reads as .none once its target is deleted")
    func links() throws {
        let fixture = Fixture([Setting.self, Person.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        let setting = Setting("owner", .none)
        try store.write {
            try store.add(ann)
            try store.add(setting)
            setting.value = .object(ann)
        }
        #expect(setting.value.object(Person.self)?.name == "Ann")
        try store.write { try store.delete(ann) }
        #expect(setting.value == .none)
    }

    @Test("a migration turns an Int property into an AnyValue holding it")
    func migration() throws {
        let fixture = Fixture([MixedV1.Setting.self])
        do {
            let store = try fixture.open()
            try store.write {
                let setting = MixedV1.Setting()
                setting.name = "a"
                setting.value = 42
                try store.add(setting)
            }
        }
        var configuration = Store.Configuration(
            fileURL: fixture.configuration.fileURL!, objectTypes: [MixedV2.Setting.self])
        configuration.schemaVersion = 1
        configuration.migration = { migration, _ in
            try migration.enumerateObjects(ofType: "Setting") { old, new in new?["value"] = old?["value"] }
        }
        let store = try Store(configuration: configuration)
        #expect(store.objects(MixedV2.Setting.self).first?.value == .int(42))
    }

    @Test("damaged mixed bytes (an unknown tag, a cut value) are corrupted, never a trap")
    func damagedBytes() {
        for bytes: [UInt8] in [[99], [], [1, 0, 0], [11, 5, 0, 65], [12, 1, 0, 0, 0]] {
            let failed = bytes.withUnsafeBytes { raw in
                (try? AnyValue._strataDecodeColumn(raw, in: _DecodeContext(owner: nil, column: 0))) == nil
            }
            #expect(failed, "\(bytes)")
        }
    }
}
