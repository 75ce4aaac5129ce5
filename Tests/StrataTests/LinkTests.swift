import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct LinkTests {
    /// Ann walks Rex and Fido (Rex twice); Bob walks Rex; Rex and Fido are owned by Ann.
    private func populated() throws -> (Fixture, Store, ann: Person, bob: Person, rex: Dog, fido: Dog) {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        let bob = Person(id: 2, name: "Bob")
        let rex = Dog(name: "Rex", owner: ann)
        let fido = Dog(name: "Fido", owner: ann)
        try store.write {
            try store.add(contentsOf: [ann, bob])
            ann.dogs.append(contentsOf: [rex, fido, rex])
            bob.dogs.append(rex)
        }
        return (fixture, store, ann, bob, rex, fido)
    }

    @Test func linkingObjectsAreTheInverseAndLive() throws {
        let (_, store, ann, bob, rex, fido) = try populated()
        #expect(rex.walkers.map(\.id) == [1, 2])
        #expect(fido.walkers.map(\.id) == [1])
        #expect(ann.ownedDogs.map(\.name).sorted() == ["Fido", "Rex"])
        #expect(bob.ownedDogs.isEmpty)
        try store.write {
            bob.dogs.removeAll()
            fido.owner = bob
            #expect(rex.walkers.map(\.id) == [1])  // live inside the write
        }
        #expect(rex.walkers.map(\.id) == [1])
        #expect(ann.ownedDogs.map(\.name) == ["Rex"])
        #expect(bob.ownedDogs.map(\.name) == ["Fido"])
        #expect(bob.ownedDogs.count == 1)
        try store.write { ann.dogs.remove(at: 0) }  // one of Rex's two entries: Ann still walks him
        #expect(rex.walkers.map(\.id) == [1])
        try store.write { ann.dogs.remove(at: 1) }
        #expect(rex.walkers.isEmpty)
        #expect(Dog(name: "unmanaged").walkers.isEmpty)
    }

    @Test func changingLinksWhileIteratingLinkingObjectsVisitsEachOnce() throws {
        let (_, store, ann, bob, rex, _) = try populated()
        var visited: [Int] = []
        try store.write {
            // Each step removes the object just visited from the inverse (it trapped: "index 1 out of range").
            for walker in rex.walkers {
                visited.append(walker.id)
                while let index = walker.dogs.firstIndex(where: { $0.name == "Rex" }) { walker.dogs.remove(at: index) }
            }
        }
        #expect(visited == [1, 2])
        #expect(rex.walkers.isEmpty)
        #expect(ann.dogs.map(\.name) == ["Fido"])
        #expect(bob.dogs.isEmpty)
        // An object deleted during the iteration is skipped, as in Results.
        try store.write {
            ann.dogs.append(rex)
            bob.dogs.append(rex)
        }
        visited = []
        try store.write {
            for walker in rex.walkers {
                visited.append(walker.id)
                if walker.id == 1 { try store.delete(bob) }
            }
        }
        #expect(visited == [1])
    }

    @Test func deletingAnObjectNullsLinksAndRemovesItFromLists() throws {
        let (_, store, ann, bob, rex, fido) = try populated()
        try store.write { try store.delete(rex) }
        #expect(ann.dogs.map(\.name) == ["Fido"])
        #expect(bob.dogs.isEmpty)
        #expect(ann.dogs.count == 1)
        try store.write { try store.delete(ann) }
        #expect(fido.owner == nil)
        #expect(!fido.isInvalidated)
        #expect(store.objects(Dog.self).where { $0.owner == nil }.count == 1)
        try store.verify()
    }

    @Test func deletingResultsAndEverythingKeepsLinksConsistent() throws {
        let (_, store, _, bob, _, fido) = try populated()
        try store.write { try store.delete(store.objects(Dog.self).where { $0.name == "Rex" }) }
        #expect(bob.dogs.isEmpty)
        #expect(fido.walkers.map(\.id) == [1])
        try store.write { try store.deleteAll() }
        try store.write {
            let cy = Person(id: 3, name: "Cy")
            try store.add(cy)
            cy.dogs.append(Dog(name: "New", owner: cy))
        }
        let new = store.objects(Dog.self).first!
        #expect(new.walkers.map(\.id) == [3])
        #expect(new.owner?.id == 3)
        try store.verify()
    }

    @Test func aCancelledDeleteKeepsTheLinks() throws {
        let (_, store, ann, _, rex, _) = try populated()
        try store.beginWrite()
        try store.delete(ann)
        #expect(rex.owner == nil)
        try store.cancelWrite()
        #expect(rex.owner?.id == 1)
        #expect(ann.dogs.count == 3)
    }

    @Test func selfLinksAreClearedToo() throws {
        let fixture = Fixture([Citizen.self, Town.self])
        let store = try fixture.open()
        try store.write {
            let a = Citizen()
            let b = Citizen()
            a.id = 1
            b.id = 2
            try store.add(contentsOf: [a, b])
            a.friends.append(contentsOf: [a, b])
            b.friends.append(a)
            a.town = Town(name: "Oslo", population: 1)
        }
        let oslo = store.object(ofType: Town.self, forPrimaryKey: "Oslo")!
        try store.write {
            try store.delete(store.object(ofType: Citizen.self, forPrimaryKey: 1)!)
            try store.delete(oslo)
        }
        let b = store.object(ofType: Citizen.self, forPrimaryKey: 2)!
        #expect(b.friends.isEmpty)
        try store.verify()
    }

    @Test func verifyReportsALinkToAMissingObject() throws {
        let (_, store, _, _, _, _) = try populated()
        try store.verify()
        try RawAccess.deleteRowBytes(of: Person.self, key: RawAccess.keys(of: Person.self, in: store)[0], in: store)
        #expect {
            try store.verify()
        } throws: { error in
            guard case .corrupted(let damage) = error as? StoreError else { return false }
            return damage.contains("owner links to a missing Person")
        }
    }

    @Test func anInverseOfAPropertyThatIsNoLinkIsRejected() {
        let fixture = Fixture([BadInverse.self])
        #expect { try fixture.open() } throws: { isCase($0, .schemaMismatch("")) }
    }

    /// The unmanaged values of an added object are dropped once it is managed: a graph with a cycle
    /// (a dog's owner lists the dog) must not keep its objects, and so the Store, alive.
    @Test func addingAGraphWithACycleLeaksNothing() throws {
        let fixture = Fixture([Person.self, Dog.self])
        weak var weakOwner: Person?
        do {
            let store = try fixture.open()
            try store.write {
                let ann = Person(id: 1, name: "Ann")
                ann.dogs.append(Dog(name: "Rex", owner: ann))
                weakOwner = ann
                try store.add(ann)
            }
            #expect(store.objects(Dog.self).first?.owner?.dogs.count == 1)
        }
        #expect(weakOwner == nil)
        #expect(fixture.isClosed)
    }
}
