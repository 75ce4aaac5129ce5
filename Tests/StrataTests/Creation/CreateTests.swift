import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `Store.create(_:value:update:)` and `Object(value:)`, as realm-swift's ObjectCreationTests use
/// them: dictionaries, arrays in property order and objects as values; nested objects; the update
/// policies setting only what is given; typed errors that write nothing.
@Suite(.fixtureChecks) struct CreateTests {
    private static let date = Date(timeIntervalSince1970: 1_700_000_000)
    private static let uuid = UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!

    /// A value of every property of MadeKinds, each given as a type other than its own where Realm
    /// converts (integers of other widths, a Double for a Float, raw values for enums, arrays and
    /// dictionaries for collections and links).
    private static var everyKind: [String: Any] {
        [
            "flag": false, "count": Int8(42), "small": 100, "medium": UInt64(70_000), "unsigned": 9,
            "ratio": 0.5, "amount": Float(2.25), "title": "t", "subtitle": "s", "bytes": Data([1, 2]),
            "when": date, "uuid": uuid, "decimal": Decimal128(number: 12), "objectId": "0123456789abcdef01234567",
            "mood": "happy", "level": 10, "mixed": AnyValue.string("m"), "words": ["a", "b"],
            "maybeNumbers": [1, NSNull(), 3] as [Any], "numberSet": [3, 1, 3], "scores": ["x": 1, "y": 2],
            "tag": ["t1", 1], "tags": [["name": "t2"], ["t3", 3]] as [Any], "tagSet": [["name": "t4"]],
            "tagMap": ["k": ["name": "t5"], "none": NSNull()] as [String: Any],
            "spot": ["x": 1, "label": "one", "inner": ["x": 2, "label": "two"]] as [String: Any],
            "spots": [[3, "three"], ["x": 4, "label": "four"]] as [Any],
        ]
    }

    private static func checkEveryKind(_ object: MadeKinds) {
        #expect(!object.flag && object.count == 42 && object.small == 100 && object.medium == 70_000)
        #expect(object.unsigned == 9 && object.ratio == 0.5 && object.amount == 2.25)
        #expect(object.title == "t" && object.subtitle == "s" && object.bytes == Data([1, 2]))
        #expect(object.when == date && object.uuid == uuid && object.decimal == Decimal128(number: 12))
        #expect(object.objectId == (try? ObjectId(string: "0123456789abcdef01234567")))
        #expect(object.mood == .happy && object.level == .high && object.mixed == .string("m"))
        #expect(Array(object.words) == ["a", "b"] && Array(object.maybeNumbers) == [1, nil, 3])
        #expect(Set(object.numberSet) == [1, 3] && object.numberSet.count == 2)
        #expect(object.scores["x"] == 1 && object.scores["y"] == 2 && object.scores.count == 2)
        #expect(object.tag?.name == "t1" && object.tag?.uses == 1 && object.tag?.note == "tag")
        #expect(object.tags.map(\.name) == ["t2", "t3"] && object.tags[1].uses == 3)
        #expect(object.tagSet.map(\.name) == ["t4"])
        #expect(object.tagMap["k"]??.name == "t5" && object.tagMap.count == 2)
        #expect(object.spot?.x == 1 && object.spot?.inner?.label == "two" && object.spot?.inner?.inner == nil)
        #expect(object.spots.map(\.label) == ["three", "four"])
    }

    @Test func anUnmanagedObjectFromADictionaryKeepsTheDeclaredValuesOfWhatIsNotGiven() throws {
        let kinds = try MadeKinds(value: Self.everyKind)
        #expect(!kinds.isManaged)
        Self.checkEveryKind(kinds)
        let partial = try MadeKinds(value: ["small": 3])
        #expect(partial.small == 3 && partial.count == 7 && partial.title == "untitled" && partial.mood == .calm)
        #expect(partial.tag == nil && partial.words.isEmpty && partial.subtitle == nil)
    }

    @Test func anArrayGivesThePropertiesInDeclarationOrderAndMayStopEarly() throws {
        let tag = try MadeTag(value: ["a", 5])
        #expect(tag.name == "a" && tag.uses == 5 && tag.note == "tag")
        let owner = try MadeOwner(value: [1, "Ann", 30, "ann@x", ["t", 1], [["u"], ["v"]]] as [Any])
        #expect(owner.id == 1 && owner.name == "Ann" && owner.age == 30 && owner.email == "ann@x")
        #expect(owner.tag?.name == "t" && owner.tags.map(\.name) == ["u", "v"] && owner.spot == nil)
        #expect { try MadeTag(value: ["a", 1, "n", "extra"]) } throws: { isCase($0, .invalidArgument("")) }
    }

    @Test func anObjectGivenAsTheValueIsCopiedAndItsCollectionsAreNotShared() throws {
        let source = try MadeKinds(value: Self.everyKind)
        let copy = try MadeKinds(value: source)
        Self.checkEveryKind(copy)
        copy.words.append("c")
        #expect(Array(source.words) == ["a", "b"])
        // A nested object of an unmanaged owner is linked as it is, as Realm does.
        #expect(copy.tag === source.tag)

        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let managed = try store.write { try store.create(MadeKinds.self, value: Self.everyKind) }
        let fromManaged = try MadeKinds(value: managed)
        #expect(!fromManaged.isManaged)
        Self.checkEveryKind(fromManaged)
        fromManaged.words.append("c")
        #expect(Array(managed.words) == ["a", "b"])
    }

    @Test func createStoresEveryKindAndConvertsNumbers() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let created = try store.write { try store.create(MadeKinds.self, value: Self.everyKind) }
        #expect(created.isManaged)
        Self.checkEveryKind(created)
        let again = try #require(store.objects(MadeKinds.self).first)
        Self.checkEveryKind(again)
        #expect(store.objects(MadeTag.self).count == 5)
        let defaults = try store.write { try store.create(MadeKinds.self) }
        #expect(defaults.count == 7 && defaults.title == "untitled" && defaults.flag && defaults.tag == nil)
        try store.verify()
    }

    @Test func nilAndNSNullGiveNilAndEmptyCollections() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let object = try store.write {
            try store.create(
                MadeKinds.self,
                value: [
                    "subtitle": NSNull(), "uuid": String?.none as Any, "tag": NSNull(), "words": NSNull(),
                    "tags": NSNull(), "scores": NSNull(), "spot": NSNull(),
                ])
        }
        #expect(object.subtitle == nil && object.uuid == nil && object.tag == nil && object.spot == nil)
        #expect(object.words.isEmpty && object.tags.isEmpty && object.scores.count == 0)
    }

    @Test func aBadValueThrowsNamingThePropertyAndWritesNothing() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        try store.write { try store.create(MadeTag.self, value: ["kept", 1]) }
        let bad: [(String, [String: Any])] = [
            ("MadeKinds.count", ["count": "seven"]),
            ("MadeKinds.small", ["small": 300]),
            ("MadeKinds.title", ["title": NSNull()]),
            ("MadeKinds.mood", ["mood": "angry"]),
            ("MadeKinds.level", ["level": 5]),
            ("MadeKinds.words", ["words": "a"]),
            ("MadeKinds.tags", ["tags": [["name": "new"], NSNull()] as [Any]]),
            ("MadeKinds.tags", ["tags": ["name"]]),
            ("MadeKinds.tag", ["tag": Note("not a tag")]),
            ("MadeKinds.spots: MadeSpot.x", ["tags": [["name": "new"]], "spots": [["x": "no"]]]),
            ("MadeKinds.maybeNumbers", ["maybeNumbers": [1.5]]),
        ]
        try store.write {
            for (property, value) in bad {
                do throws(StoreError) {
                    try store.create(MadeKinds.self, value: value)
                    Issue.record("\(value) was accepted")
                } catch .invalidArgument(let reason) {
                    #expect(reason.hasPrefix(property + ":"), "\(reason)")
                } catch {
                    Issue.record("\(value): \(error)")
                }
            }
            #expect { try store.create(MadeKinds.self, value: 5) } throws: { isCase($0, .invalidArgument("")) }
            #expect { try store.create(MadeSpot.self, value: ["x": 1]) } throws: { isCase($0, .invalidArgument("")) }
        }
        // Nothing of the failed creations was written, and the write committed.
        #expect(store.objects(MadeKinds.self).isEmpty)
        #expect(store.objects(MadeTag.self).map(\.name) == ["kept"])
        try store.verify()
    }

    @Test func createOutsideAWriteOrOnAnotherThreadThrows() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        #expect(throws: StoreError.notInWriteTransaction) { try store.create(MadeTag.self, value: ["a"]) }
        try store.beginWrite()
        nonisolated(unsafe) let leaked = store
        let error = onAnotherThread { () -> StoreError? in
            do throws(StoreError) {
                try leaked.create(MadeTag.self, value: ["a"])
                return nil
            } catch {
                return error
            }
        }
        #expect(error == .wrongThread)
        try store.cancelWrite()
    }

    @Test func nestedValuesAreCreatedAManagedObjectIsLinkedAndAnUnmanagedOneCopied() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let stored = try store.write { try store.create(MadeTag.self, value: ["stored", 1]) }
        let standalone = try MadeTag(value: ["standalone", 2])
        let owner = try store.write {
            try store.create(
                MadeOwner.self, value: [1, "Ann", 30, NSNull(), stored, [standalone, ["made", 3]]] as [Any])
        }
        #expect(owner.tag == stored)
        #expect(!standalone.isManaged)  // copied, as Realm copies it
        #expect(owner.tags.map(\.name) == ["standalone", "made"] && owner.tags[0] != standalone)
        #expect(store.objects(MadeTag.self).count == 3)

        // `.error` refuses a stored primary key, or one given twice, before writing anything.
        try store.write {
            #expect(throws: StoreError.alreadyExists(primaryKey: "stored")) {
                try store.create(MadeOwner.self, value: ["id": 2, "tags": [["name": "fresh"], ["stored"]]])
            }
            #expect(throws: StoreError.alreadyExists(primaryKey: "twice")) {
                try store.create(MadeOwner.self, value: ["id": 2, "tags": [["twice"], ["twice"]]])
            }
            #expect(throws: StoreError.alreadyExists(primaryKey: "1")) {
                try store.create(MadeOwner.self, value: ["id": 1, "tags": [["fresh"]]])
            }
        }
        #expect(store.objects(MadeOwner.self).count == 1)
        #expect(store.objects(MadeTag.self).count == 3)
        try store.verify()
    }

    @Test func updatePoliciesSetOnlyTheGivenPropertiesOfAStoredObject() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let ann = try store.write {
            try store.create(MadeOwner.self, value: ["id": 1, "name": "Ann", "age": 30, "tag": ["t", 1]])
        }
        let same = try store.write { try store.create(MadeOwner.self, value: ["id": 1, "age": 31], update: .modified) }
        #expect(same == ann)
        #expect(ann.name == "Ann" && ann.age == 31 && ann.tag?.name == "t")
        // Nested objects with primary keys are updated the same way.
        try store.write {
            try store.create(MadeOwner.self, value: ["id": 1, "tag": ["name": "t", "uses": 5]], update: .all)
        }
        #expect(ann.tag?.uses == 5 && ann.tag?.note == "tag" && store.objects(MadeTag.self).count == 1)
        // An array or an object gives every property.
        try store.write { try store.create(MadeOwner.self, value: [1, "Bea"] as [Any], update: .all) }
        #expect(ann.name == "Bea" && ann.age == 31)
        let copy = try MadeOwner(value: ["id": 1, "name": "Cy"])
        try store.write { try store.create(MadeOwner.self, value: copy, update: .modified) }
        #expect(ann.name == "Cy" && ann.age == 18 && ann.tag == nil)
        // A primary key not stored yet creates the object.
        try store.write { try store.create(MadeOwner.self, value: ["id": 2, "name": "Dee"], update: .modified) }
        #expect(store.objects(MadeOwner.self).map(\.name) == ["Cy", "Dee"])
        try store.verify()
    }

    @Test func modifiedLeavesAnEqualValueUnwrittenAndAllWritesIt() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let ann = try store.write { try store.create(MadeOwner.self, value: ["id": 1, "name": "Ann", "age": 30]) }
        var changed: [[String]] = []
        let objectToken = try ann.observe { change in
            if case .change(_, let properties) = change { changed.append(properties.map(\.name)) }
        }
        var modifications: [[Int]] = []
        let resultsToken = try store.objects(MadeOwner.self).observe { change in
            if case .update(_, _, _, let modified) = change { modifications.append(modified) }
        }
        try store.refresh()
        try store.write {
            try store.create(MadeOwner.self, value: ["id": 1, "name": "Ann", "age": 31], update: .modified)
        }
        try store.refresh()
        // Equal values: `.modified` writes nothing, `.all` rewrites the row.
        try store.write { try store.create(MadeOwner.self, value: ["id": 1, "name": "Ann"], update: .modified) }
        try store.refresh()
        #expect(modifications == [[0]])
        try store.write { try store.create(MadeOwner.self, value: ["id": 1, "name": "Ann"], update: .all) }
        try store.refresh()
        #expect(modifications == [[0], [0]])
        #expect(changed == [["age"]])
        withExtendedLifetime((objectToken, resultsToken)) {}
    }

    @Test func embeddedValuesAreBuiltForTheirOwnerAndCopiedFromAManagedOwner() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let owner = try store.write {
            try store.create(MadeOwner.self, value: ["id": 1, "spot": ["x": 5, "inner": [6, "six"]]])
        }
        #expect(owner.spot?.x == 5 && owner.spot?.inner?.label == "six")
        let kinds = try store.write {
            try store.create(MadeKinds.self, value: ["spot": owner.spot as Any, "spots": [owner.spot as Any, [7]]])
        }
        #expect(kinds.spot?.x == 5 && kinds.spot?.inner?.x == 6 && kinds.spots.map(\.x) == [5, 7])
        #expect(owner.spot?.x == 5)  // copied, not moved
        let copy = try store.write { try store.create(MadeKinds.self, value: kinds) }
        #expect(copy != kinds && copy.spots.map(\.x) == [5, 7] && copy.spot?.inner?.label == "six")
        try store.write { try store.create(MadeOwner.self, value: ["id": 1, "spot": [9]], update: .modified) }
        #expect(owner.spot?.x == 9 && owner.spot?.inner == nil)
        try store.verify()
    }

    @Test func anObjectOfAnotherStoreIsCopied() throws {
        let other = Fixture(MadeTypes.all)
        let otherStore = try other.open()
        let source = try otherStore.write { try otherStore.create(MadeKinds.self, value: Self.everyKind) }
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let copy = try store.write { try store.create(MadeKinds.self, value: source) }
        Self.checkEveryKind(copy)
        #expect(store.objects(MadeTag.self).count == 5 && otherStore.objects(MadeKinds.self).count == 1)
        try store.verify()
    }

    @Test func aDeletedNestedObjectThrowsInvalidated() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        let tag = try store.write { try store.create(MadeTag.self, value: ["gone"]) }
        try store.write { try store.delete(tag) }
        try store.write {
            #expect(throws: StoreError.invalidated) { try store.create(MadeOwner.self, value: ["id": 1, "tag": tag]) }
        }
        #expect(store.objects(MadeOwner.self).isEmpty)
    }

    @Test func aFailureOnceWritingHasBegunKeepsTheWriteFromCommitting() throws {
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        try store.write { try store.create(MadeOwner.self, value: ["id": 1, "email": "a@x"]) }
        try store.beginWrite()
        // The nested tag is stored first; the owner's unique email then fails.
        #expect { try store.create(MadeOwner.self, value: ["id": 2, "email": "a@x", "tag": ["new"]]) } throws: {
            isCase($0, .alreadyExists(primaryKey: ""))
        }
        #expect { try store.commitWrite() } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(store.objects(MadeTag.self).isEmpty && store.objects(MadeOwner.self).count == 1)
        // Without a nested write, the failed create leaves the write free to commit.
        try store.write {
            #expect { try store.create(MadeOwner.self, value: ["id": 3, "email": "a@x"]) } throws: {
                isCase($0, .alreadyExists(primaryKey: ""))
            }
            try store.create(MadeOwner.self, value: ["id": 4, "email": "b@x"])
        }
        #expect(store.objects(MadeOwner.self).map(\.id) == [1, 4])
        try store.verify()
    }
}
