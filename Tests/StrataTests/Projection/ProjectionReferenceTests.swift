import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A projection against a plain Swift model: hundreds of seeded random writes to the root object,
/// its friends, its address and badges; after each, the projection's values equal the model's, and
/// its observer was told exactly the projected properties whose root values changed (or, for a linked
/// object's property, were set in the write).
@Suite(.fixtureChecks) struct ProjectionReferenceTests {
    struct Person: Equatable {
        var first = "", last = "", age = 0, note = ""
        var city: String?
        /// Bumped when the address is replaced or removed: the link changed, whatever the city.
        var address = 0
        var friends: [Int] = []
        var badges: Set<String> = []
    }

    struct Model {
        var people: [Int: Person] = [:]
        var levels: [String: Int] = [:]

        /// What ViewedCard shows of person 1.
        func card() -> [String: String] {
            let root = people[1]!
            return [
                "firstName": root.first, "age": "\(root.age)", "lastCaps": root.last.localizedUppercase,
                "city": root.city ?? "nil", "friendNames": "\(root.friends.map { people[$0]!.first })",
                "badgeLevels": "\(root.badges.map { levels[$0]! }.sorted())",
            ]
        }

        /// What the root properties each projected property reads hold: a change of any of them is
        /// told (a last name of another case, a new address of the same city, a badge swapped for one
        /// of the same level).
        func read() -> [String: String] {
            let root = people[1]!
            return [
                "firstName": root.first, "age": "\(root.age)", "lastCaps": root.last,
                "city": "\(root.address) \(root.city ?? "nil")",
                "friendNames": "\(root.friends.map { "\($0) \(people[$0]!.first)" })",
                "badgeLevels": "\(root.badges.sorted().map { "\($0) \(levels[$0]!)" })",
            ]
        }
    }

    @Test(arguments: [11, 12])
    func randomWritesMatchThePlainModel(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture(ViewedTypes.all)
        let store = try fixture.open()
        var model = Model()
        try store.write {
            for id in 1...4 {
                try store.create(Viewed.self, value: ["id": id])
                model.people[id] = Person()
            }
            for name in ["a", "b", "c"] {
                try store.create(ViewedBadge.self, value: [name, 0])
                model.levels[name] = 0
            }
        }
        let root = store.object(ofType: Viewed.self, forPrimaryKey: 1)!
        let card = ViewedCard(projecting: root)
        var told: [Set<String>] = []
        let token = try card.observe { change in
            if case .change(_, let properties) = change { told.append(Set(properties.map(\.name))) }
        }
        try store.refresh()
        var deliveries = 0
        for step in 0..<300 {
            let before = model.read()
            told = []
            // A linked object's property changed in the write is told even when the write sets it
            // back (the root's own properties are compared by value before and after).
            var touched = Set<String>()
            try store.write {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let id = Int.random(in: 1...4, using: &random)
                    let person = store.object(ofType: Viewed.self, forPrimaryKey: id)!
                    let word = ["x", "y", "Zz"][Int.random(in: 0..<3, using: &random)]
                    switch Int.random(in: 0..<9, using: &random) {
                    case 0:
                        person.first = word
                        if model.people[1]!.friends.contains(id), model.people[id]!.first != word {
                            touched.insert("friendNames")
                        }
                        model.people[id]!.first = word
                    case 1:
                        person.last = word
                        model.people[id]!.last = word
                    case 2:
                        let age = Int.random(in: 0..<3, using: &random)
                        person.age = age
                        model.people[id]!.age = age
                    case 3:
                        person.note = word
                        model.people[id]!.note = word
                    case 4:
                        if person.address == nil || Int.random(in: 0..<3, using: &random) == 0 {
                            person.address = try ViewedAddress(value: ["city": word])
                            model.people[id]!.address += 1
                        } else {
                            person.address!.city = word
                            if id == 1, model.people[1]!.city != word { touched.insert("city") }
                        }
                        model.people[id]!.city = word
                    case 5:
                        if person.address != nil { model.people[id]!.address += 1 }
                        person.address = nil
                        model.people[id]!.city = nil
                    case 6 where id == 1:
                        let friend = Int.random(in: 2...4, using: &random)
                        person.friends.append(store.object(ofType: Viewed.self, forPrimaryKey: friend)!)
                        model.people[1]!.friends.append(friend)
                    case 7 where id == 1 && !person.friends.isEmpty:
                        let index = Int.random(in: 0..<person.friends.count, using: &random)
                        person.friends.remove(at: index)
                        model.people[1]!.friends.remove(at: index)
                    case 8 where id == 1:
                        let name = ["a", "b", "c"][Int.random(in: 0..<3, using: &random)]
                        let badge = store.object(ofType: ViewedBadge.self, forPrimaryKey: name)!
                        if model.people[1]!.badges.contains(name) {
                            person.badges.remove(badge)
                            model.people[1]!.badges.remove(name)
                        } else {
                            person.badges.insert(badge)
                            model.people[1]!.badges.insert(name)
                        }
                    default:
                        let name = ["a", "b", "c"][Int.random(in: 0..<3, using: &random)]
                        let level = Int.random(in: 0..<3, using: &random)
                        store.object(ofType: ViewedBadge.self, forPrimaryKey: name)!.level = level
                        if model.people[1]!.badges.contains(name), model.levels[name] != level {
                            touched.insert("badgeLevels")
                        }
                        model.levels[name] = level
                    }
                }
            }
            try store.refresh()
            let after = model.card()
            let shown = [
                "firstName": card.firstName, "age": "\(card.age)", "lastCaps": card.lastCaps,
                "city": card.city ?? "nil", "friendNames": "\(Array(card.friendNames))",
                "badgeLevels": "\(card.badgeLevels.sorted())",
            ]
            #expect(shown == after, "step \(step)")
            // Told: the projected properties whose root values changed.
            let read = model.read()
            let expected = Set(read.keys.filter { read[$0] != before[$0] }).union(touched)
            if expected.isEmpty {
                #expect(told.isEmpty, "step \(step): told \(told)")
            } else {
                deliveries += 1
                #expect(told == [expected], "step \(step)")
            }
        }
        #expect(deliveries > 100)
        withExtendedLifetime(token) {}
    }
}
