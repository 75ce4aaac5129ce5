import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `Projection` and `@Projected`, as realm-swift's ProjectionTests use them: reading and writing
/// through the key paths, `store.objects(Projection.self)`, and notifications of the projected
/// properties only.
@Suite(.fixtureChecks) struct ProjectionTests {
    private static func seed(_ store: Store) throws -> Viewed {
        try store.write {
            let ann = try store.create(
                Viewed.self,
                value: [
                    "id": 1, "first": "Ann", "last": "Lee", "age": 30, "note": "n",
                    "address": ["city": "Oslo", "country": "NO"],
                    "friends": [["id": 2, "first": "Bob"], ["id": 3, "first": "Cy"]],
                    "badges": [["name": "gold", "level": 3]],
                ])
            return ann
        }
    }

    @Test func propertiesReadAndWriteThroughTheRootObject() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let ann = try Self.seed(store)
        let card = ViewedCard(projecting: ann)
        #expect(card.firstName == "Ann" && card.age == 30 && card.lastCaps == "LEE" && card.city == "Oslo")
        #expect(Array(card.friendNames) == ["Bob", "Cy"] && Array(card.badgeLevels) == [3])
        try store.write {
            card.firstName = "Anna"
            card.age = 31
            ann.friends.append(try store.create(Viewed.self, value: ["id": 4, "first": "Di"]))
        }
        #expect(ann.first == "Anna" && ann.age == 31)
        #expect(Array(card.friendNames) == ["Bob", "Cy", "Di"])  // live, as the List is
        #expect(card.store != nil && !card.isFrozen && !card.isInvalidated)
        #expect(card == ViewedCard(projecting: store.object(ofType: Viewed.self, forPrimaryKey: 1)!))
        #expect(Set([card, ViewedCard(projecting: ann)]).count == 1)
        #expect(card.description.contains("firstName = \"Anna\"") && card.description.contains("city = \"Oslo\""))

        let subclassed = ViewedCardWithNote(projecting: ann)
        #expect(subclassed.name == "Anna" && subclassed.note == "n")
        let schema = try ProjectionSchema.of(ViewedCardWithNote.self)
        #expect(schema.properties.map(\.label) == ["name", "note"])
        let cardSchema = try ProjectionSchema.of(ViewedCard.self)
        #expect(
            cardSchema.properties.map(\.observedPath) == [
                "first", "age", "last", "address.city", "friends.first", "badges.level",
            ])
        #expect(cardSchema.properties.map(\.isPassthrough) == [true, true, false, false, false, false])
    }

    @Test func aProjectionSeenThroughItsSuperclassTypeKeepsItsOwnProperties() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let base: Projection<Viewed> = ViewedAgeOnly(projecting: try Self.seed(store))
        // The first use of the type, through the superclass's static type.
        #expect(base.description == "ViewedAgeOnly<Viewed> { age = 30 }")
        var told: [String] = []
        let token = try base.observe { change in
            if case .change(let projection, let properties) = change {
                told.append("\(type(of: projection)) \(properties.map(\.name))")
            }
        }
        try store.refresh()
        try store.write { base.rootObject.age = 31 }
        try store.refresh()
        #expect(told == ["ViewedAgeOnly [\"age\"]"])
        withExtendedLifetime(token) {}
    }

    @Test func anUnmanagedRootIsProjectedToo() throws {
        let root = try Viewed(value: ["first": "Eve", "last": "Ray", "friends": [["first": "Fay"]]])
        let card = ViewedCard(projecting: root)
        #expect(card.firstName == "Eve" && card.lastCaps == "RAY" && card.city == nil)
        #expect(Array(card.friendNames) == ["Fay"] && card.store == nil)
        card.firstName = "Eva"
        #expect(root.first == "Eva")
        #expect(throws: StoreError.notManaged) { try card.observe { _ in } }
    }

    @Test func objectsOfAProjectionTypeAreTheRootTypesProjectedAndLive() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        _ = try Self.seed(store)
        let cards = store.objects(ViewedCard.self)
        #expect(cards.map(\.firstName) == ["Ann", "Bob", "Cy"])
        #expect(cards.where { $0.age >= 30 }.map(\.firstName) == ["Ann"])
        #expect(try cards.where("first BEGINSWITH $0", "B").map(\.firstName) == ["Bob"])
        #expect(cards.sorted(by: \.first, ascending: false).map(\.firstName) == ["Cy", "Bob", "Ann"])
        #expect(
            cards.sorted(by: [SortKey(\.age), SortKey(\.first, ascending: false)]).map(\.firstName) == [
                "Cy", "Bob", "Ann",
            ])
        try store.write { try store.create(Viewed.self, value: ["id": 9, "first": "Zed"]) }
        #expect(cards.count == 4 && cards.last?.firstName == "Zed")
        let frozen = try cards.freeze()
        try store.write { try store.delete(store.objects(Viewed.self).where { $0.id == 9 }) }
        #expect(frozen.count == 4 && frozen.isFrozen && cards.count == 3)
        #expect(try frozen.thaw().count == 3)
        #expect(cards.description == "ProjectedResults<ViewedCard> (3)")
    }

    @Test func observersAreToldOfTheProjectedPropertiesOnly() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let ann = try Self.seed(store)
        let card = ViewedCard(projecting: ann)
        var told: [[String]] = []
        var values: [[String: String]] = []
        var deleted = 0
        let token = try card.observe { change in
            switch change {
            case .change(let projection, let properties):
                #expect(projection === card)
                told.append(properties.map(\.name))
                var seen: [String: String] = [:]
                for property in properties {
                    seen[property.name] =
                        "\(property.oldValue.map { "\($0)" } ?? "-") → \(property.newValue.map { "\($0)" } ?? "-")"
                }
                values.append(seen)
            case .deleted:
                deleted += 1
            case .error(let error):
                Issue.record("\(error)")
            }
        }
        let names = try card.observe(keyPaths: ["firstName"]) { change in
            if case .change(_, let properties) = change { #expect(properties.map(\.name) == ["firstName"]) }
        }
        var byKeyPath: [[String]] = []
        let keyPathToken = try card.observe(keyPaths: [\ViewedCard.city, \ViewedCard.friendNames.count]) { change in
            if case .change(_, let properties) = change { byKeyPath.append(properties.map(\.name)) }
        }
        #expect { try card.observe(keyPaths: [\ViewedCard.rootObject.id]) { _ in } } throws: {
            isCase($0, .invalidArgument(""))
        }
        try store.refresh()
        try store.write { ann.first = "Anna" }
        try store.refresh()
        try store.write { ann.note = "not projected" }
        try store.refresh()
        try store.write { ann.last = "Ng" }
        try store.refresh()
        try store.write { ann.friends[0].first = "Bo" }
        try store.refresh()
        try store.write { ann.address?.city = "Bergen" }
        try store.refresh()
        try store.write { ann.badges.first?.level = 4 }
        try store.refresh()
        #expect(told == [["firstName"], ["lastCaps"], ["friendNames"], ["city"], ["badgeLevels"]])
        #expect(byKeyPath == [["friendNames"], ["city"]])
        #expect(values.first == ["firstName": "Ann → Anna"])
        #expect(values.dropFirst().first == ["lastCaps": "- → NG"])
        #expect { try card.observe(keyPaths: ["nope"]) { _ in } } throws: { isCase($0, .invalidArgument("")) }
        try store.write { try store.delete(ann) }
        try store.refresh()
        #expect(deleted == 1)
        withExtendedLifetime((token, names, keyPathToken)) {}
    }

    @Test func aCommitOfAnotherThreadIsToldOnRefresh() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let ann = try Self.seed(store)
        var told: [String] = []
        let token = try ViewedCard(projecting: ann).observe(keyPaths: ["age", "firstName"]) { change in
            if case .change(let card, let properties) = change {
                told += properties.map { "\($0.name) \(card.age)" }
            }
        }
        try store.refresh()
        let wrote = onAnotherThread { [configuration = fixture.configuration] () -> Bool in
            guard let there = try? Store(configuration: configuration) else { return false }
            return (try? there.write { there.object(ofType: Viewed.self, forPrimaryKey: 1)!.age = 40 }) != nil
        }
        #expect(wrote)
        try store.refresh()
        #expect(told == ["age 40"])
        withExtendedLifetime(token) {}
    }

    @Test func projectedResultsAreToldOfTheirObjectsAndProjectedProperties() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        _ = try Self.seed(store)
        let cards = store.objects(ViewedCard.self).where { $0.id <= 3 }
        var changes: [String] = []
        let token = try cards.observe(keyPaths: ["firstName", "age"]) { change in
            switch change {
            case .initial(let results): changes.append("initial \(results.map(\.firstName))")
            case .update(let results, let deletions, let insertions, let modifications):
                changes.append("\(results.count) \(deletions) \(insertions) \(modifications)")
            case .error(let error): changes.append("\(error)")
            }
        }
        try store.refresh()
        try store.write { store.object(ofType: Viewed.self, forPrimaryKey: 2)!.note = "ignored" }
        try store.refresh()
        try store.write { store.object(ofType: Viewed.self, forPrimaryKey: 3)!.age = 7 }
        try store.refresh()
        try store.write { try store.delete(store.object(ofType: Viewed.self, forPrimaryKey: 2)!) }
        try store.refresh()
        #expect(changes == ["initial [\"Ann\", \"Bob\", \"Cy\"]", "3 [] [] [2]", "2 [1] [] []"])
        withExtendedLifetime(token) {}
    }

    @Test func aProjectedCollectionIsObservedForItsElementsProperty() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let ann = try Self.seed(store)
        let card = ViewedCard(projecting: ann)
        var changes: [String] = []
        let token = try card.friendNames.observe { change in
            switch change {
            case .initial(let names): changes.append("initial \(Array(names))")
            case .update(let names, let deletions, let insertions, let modifications):
                changes.append("\(Array(names)) \(deletions) \(insertions) \(modifications)")
            case .error(let error): changes.append("\(error)")
            }
        }
        let levels = try card.badgeLevels.observe { change in
            if case .update(let levels, _, _, let modifications) = change {
                changes.append("levels \(Array(levels)) \(modifications)")
            }
        }
        try store.refresh()
        try store.write { ann.friends[1].age = 99 }  // not the projected property
        try store.refresh()
        try store.write { ann.friends[1].first = "Cyd" }
        try store.refresh()
        try store.write { ann.friends.append(try store.create(Viewed.self, value: ["id": 5, "first": "Ed"])) }
        try store.refresh()
        try store.write { ann.badges.first?.level = 9 }
        try store.refresh()
        #expect(
            changes == [
                "initial [\"Bob\", \"Cy\"]", "[\"Bob\", \"Cyd\"] [] [] [1]", "[\"Bob\", \"Cyd\", \"Ed\"] [] [2] []",
                "levels [9] [0]",
            ])
        let unmanaged = ViewedCard(projecting: try Viewed(value: ["friends": [["first": "Fay"]]]))
        #expect(throws: StoreError.notManaged) { try unmanaged.friendNames.observe { _ in } }
        withExtendedLifetime((token, levels)) {}
    }

    @Test func observingFailsTypedForADeletedRootAndOnAnotherThread() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let ann = try Self.seed(store)
        let card = ViewedCard(projecting: ann)
        nonisolated(unsafe) let leaked = card
        let offThread = onAnotherThread { () -> StoreError? in
            do throws(StoreError) {
                _ = try leaked.observe { _ in }
                return nil
            } catch {
                return error
            }
        }
        #expect(offThread == .wrongThread)
        try store.write { try store.delete(ann) }
        #expect(throws: StoreError.invalidated) { try card.observe { _ in } }
        #expect(throws: StoreError.invalidated) { try card.observe(keyPaths: [\ViewedCard.age]) { _ in } }
        #expect(card.isInvalidated)
    }

    @Test func settingAProjectedPropertyOfAReadOnlyKeyPathTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let card = ViewedCard(projecting: Viewed())
            card.lastCaps = "LEE"  // \.last.localizedUppercase cannot be set
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("ViewedCard") && message.contains("is read-only"), "\(message)")
    }

    @Test func aProjectionIsFrozenThawedAndHandedToAnotherThread() throws {
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        let card = ViewedCard(projecting: try Self.seed(store))
        let frozen = try card.freeze()
        try store.write { card.age = 50 }
        #expect(frozen.isFrozen && frozen.age == 30 && card.age == 50)
        #expect(try frozen.thaw()?.age == 50)
        let reference = try ThreadSafeReference(to: card)
        let age = onAnotherThread { [configuration = fixture.configuration] () -> Int? in
            guard let there = try? Store(configuration: configuration) else { return nil }
            return (try? there.resolve(reference))??.age
        }
        #expect(age == 50)
    }
}
