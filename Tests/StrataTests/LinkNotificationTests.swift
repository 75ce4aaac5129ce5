import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Notifications follow links, as Realm's do: a change of a linked object is a modification of the
/// object that links to it (by default, and for the key paths an observer names through links).
/// Stores of plain threads deliver on `refresh()`, which keeps these tests deterministic.
@Suite(.fixtureChecks) struct LinkNotificationTests {
    /// Ann owns Rex and walks Rex and Fido; Bob owns Fido; Spot has no owner.
    private func populated() throws -> (Fixture, Store, ann: Person, bob: Person, rex: Dog, fido: Dog, spot: Dog) {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        let bob = Person(id: 2, name: "Bob")
        let rex = Dog(name: "Rex", owner: ann)
        let fido = Dog(name: "Fido", owner: bob)
        let spot = Dog(name: "Spot")
        try store.write {
            try store.add(contentsOf: [ann, bob])
            try store.add(contentsOf: [rex, fido, spot])
            ann.dogs.append(contentsOf: [rex, fido])
        }
        return (fixture, store, ann, bob, rex, fido, spot)
    }

    @Test func aChangeOfALinkedObjectModifiesTheObjectsLinkingToItByDefault() throws {
        let (_, store, ann, _, _, _, _) = try populated()
        let dogs = store.objects(Dog.self).sorted(by: \.name)
        var modified: [[String]] = []
        var names = dogs.map(\.name)
        let token = try dogs.observe { change in
            if case .update(let results, _, _, let modifications) = change {
                modified.append(modifications.map { names[$0] }.sorted())
                names = results.map(\.name)
            }
        }
        try store.refresh()
        try store.write { ann.age = 40 }  // Rex's owner changed: Rex is modified (it was not)
        try store.refresh()
        try store.write { ann.name = "Anne" }
        try store.refresh()
        #expect(modified == [["Rex"], ["Rex"]])
        withExtendedLifetime(token) {}
    }

    @Test func aWholeTableReportsLinkedChangesToo() throws {
        let (_, store, ann, _, _, _, _) = try populated()
        let dogs = store.objects(Dog.self)  // in key order: the change log alone computes the difference
        var modified: [[String]] = []
        let token = try dogs.observe { change in
            if case .update(let results, let deletions, let insertions, let modifications) = change {
                #expect(deletions.isEmpty)
                #expect(insertions.isEmpty)
                modified.append(modifications.map { results[$0].name })
            }
        }
        try store.refresh()
        try store.write { ann.age = 43 }
        try store.refresh()
        #expect(modified == [["Rex"]])
        withExtendedLifetime(token) {}
    }

    @Test func keyPathsThroughLinksCountOnlyWhatTheyName() throws {
        let (_, store, ann, bob, rex, _, _) = try populated()
        let dogs = store.objects(Dog.self).sorted(by: \.name)
        var modified: [[String]] = []
        var names = dogs.map(\.name)
        // It trapped: "does not name one @Persisted property".
        let token = try dogs.observe(keyPaths: [\.owner?.name]) { change in
            if case .update(let results, _, _, let modifications) = change {
                modified.append(modifications.map { names[$0] }.sorted())
                names = results.map(\.name)
            }
        }
        try store.refresh()
        try store.write { ann.age = 41 }  // not observed
        try store.refresh()
        try store.write { bob.name = "Robert" }  // Fido's owner's name
        try store.refresh()
        try store.write { rex.owner = bob }  // the link itself now points elsewhere
        try store.refresh()
        try store.write { rex.name = "Rexy" }  // not observed
        try store.refresh()
        #expect(modified == [["Fido"], ["Rex"]])
        withExtendedLifetime(token) {}
    }

    @Test func realmsDottedNamesReachThroughLists() throws {
        let (_, store, ann, bob, _, fido, _) = try populated()
        let people = store.objects(Person.self)
        var modified: [[Int]] = []
        let token = try people.observe(keyPaths: ["dogs.name"]) { change in
            if case .update(let results, _, _, let modifications) = change {
                modified.append(modifications.map { results[$0].id })
            }
        }
        try store.refresh()
        try store.write { fido.name = "Fidel" }  // in Ann's List: Ann is modified, Bob (its owner only) is not
        try store.refresh()
        try store.write { bob.age = 50 }  // not observed
        try store.refresh()
        #expect(modified == [[1]])
        #expect { try people.observe(keyPaths: ["dogs.nmae"]) { _ in } } throws: { isCase($0, .invalidArgument("")) }
        #expect { try people.observe(keyPaths: ["name.count"]) { _ in } } throws: { isCase($0, .invalidArgument("")) }
        withExtendedLifetime(token) {}
        _ = ann
    }

    @Test func anObjectObserverReportsALinkedChangeUnderTheLinksName() throws {
        let (_, store, ann, bob, rex, _, _) = try populated()
        var all: [[String]] = []
        var ownerName: [[String]] = []
        let everything = try rex.observe { change in
            if case .change(_, let properties) = change { all.append(properties.map(\.name)) }
        }
        let named = try rex.observe(keyPaths: [\.owner?.name]) { change in
            if case .change(_, let properties) = change { ownerName.append(properties.map(\.name)) }
        }
        try store.write { ann.age = 42 }
        try store.refresh()
        try store.write { ann.name = "Annie" }
        try store.refresh()
        try store.write { bob.name = "Bobby" }  // not Rex's owner, but three links away: Rex → Ann → Fido → Bob
        try store.refresh()
        #expect(all == [["owner"], ["owner"], ["owner"]])
        #expect(ownerName == [["owner"]])
        withExtendedLifetime((everything, named)) {}
    }

    @Test func aChangeTwoLinksAwayCountsByDefault() throws {
        let (_, store, ann, _, _, fido, _) = try populated()
        // Fido's owner is Bob; Bob's dogs List is empty. Ann's List holds Fido: Ann → Fido → Bob.
        var modified: [[Int]] = []
        let people = store.objects(Person.self)
        let token = try people.observe { change in
            if case .update(let results, _, _, let modifications) = change {
                modified.append(modifications.map { results[$0].id })
            }
        }
        try store.refresh()
        try store.write { fido.owner?.age = 70 }  // Bob changed: Bob itself, and Ann through Fido
        try store.refresh()
        #expect(modified == [[1, 2]])
        withExtendedLifetime(token) {}
        _ = ann
    }
}
