import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The changes of a `SectionedResults` in Realm's convention: sections deleted (old positions) and
/// inserted (new positions); objects deleted at old index paths, inserted and modified at new ones.
@Suite(.fixtureChecks) struct SectionChangeTests {
    /// One delivered change, as the test keeps it.
    struct Delivery {
        var deletions: [IndexPath] = []
        var insertions: [IndexPath] = []
        var modifications: [IndexPath] = []
        var sectionsToInsert = IndexSet()
        var sectionsToDelete = IndexSet()
    }

    /// Observes `sections`; `take()` gives the changes delivered since the last call.
    final class Recorder {
        private(set) var deliveries: [Delivery] = []
        var token: NotificationToken?

        init<Key: Hashable>(_ sections: SectionedResults<Key, Person>) throws {
            token = try sections.observe { change in
                if case .update(_, let deletions, let insertions, let modifications, let inserted, let deleted) = change
                {
                    self.deliveries.append(
                        Delivery(
                            deletions: deletions, insertions: insertions, modifications: modifications,
                            sectionsToInsert: inserted, sectionsToDelete: deleted))
                }
            }
        }

        func take() -> [Delivery] {
            defer { deliveries = [] }
            return deliveries
        }
    }

    /// The sections' object ids, as the layout holds them now.
    static func ids<Key: Hashable>(_ sections: SectionedResults<Key, Person>) -> [[Int]] {
        sections.map { $0.map(\.id) }
    }

    /// The sections worked out afresh from the sorted objects (the layout is kept per state of the
    /// Store: this catches a stale one).
    static func reference<Key: Hashable>(_ sections: SectionedResults<Key, Person>) -> [[Int]] {
        var order: [Key] = []
        var groups: [Key: [Int]] = [:]
        for person in sections.results {
            let key = sections.sectionKey(person)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(person.id)
        }
        return order.map { groups[$0]! }
    }

    @Test("deleting A0 and renaming B1 in one write: section 0 deleted, B1 modified at [0, 1]")
    func modificationAfterADeletedSection() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for (id, name) in [(1, "A0"), (2, "B0"), (3, "B1")] { try store.add(Person(id: id, name: name)) }
        }
        let sections = store.objects(Person.self).sectioned(by: \.initial, sortDescriptors: [SortKey(\.name)])
        let recorder = try Recorder(sections)
        try store.write {
            try store.delete(store.object(ofType: Person.self, forPrimaryKey: 1)!)
            store.object(ofType: Person.self, forPrimaryKey: 3)!.name = "B1 renamed"
        }
        try store.refresh()
        let deliveries = recorder.take()
        try #require(deliveries.count == 1)
        #expect(deliveries[0].sectionsToDelete == IndexSet([0]))
        #expect(deliveries[0].sectionsToInsert.isEmpty)
        #expect(deliveries[0].deletions.isEmpty)
        #expect(deliveries[0].insertions.isEmpty)
        #expect(deliveries[0].modifications == [IndexPath(indexes: [0, 1])])
        #expect(sections[IndexPath(indexes: [0, 1])].name == "B1 renamed")
        recorder.token?.invalidate()
    }

    @Test("deleting row 0 of three and renaming row 2: deleted at [0, 0], modified at [0, 1]")
    func modificationAfterADeletedRow() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for (id, name) in [(1, "A0"), (2, "A1"), (3, "A2")] { try store.add(Person(id: id, name: name)) }
        }
        let sections = store.objects(Person.self).sectioned(by: \.initial, sortDescriptors: [SortKey(\.name)])
        let recorder = try Recorder(sections)
        try store.write {
            try store.delete(store.object(ofType: Person.self, forPrimaryKey: 1)!)
            store.object(ofType: Person.self, forPrimaryKey: 3)!.age = 40
        }
        try store.refresh()
        let deliveries = recorder.take()
        try #require(deliveries.count == 1)
        #expect(deliveries[0].deletions == [IndexPath(indexes: [0, 0])])
        #expect(deliveries[0].insertions.isEmpty)
        #expect(deliveries[0].modifications == [IndexPath(indexes: [0, 1])])
        recorder.token?.invalidate()
    }

    @Test("an object changed in place after an insert ahead of it is reported at its new row")
    func modificationAfterAnInsertAhead() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for (id, name) in [(1, "A1"), (2, "A2")] { try store.add(Person(id: id, name: name)) }
        }
        let sections = store.objects(Person.self).sectioned(by: \.initial, sortDescriptors: [SortKey(\.name)])
        let recorder = try Recorder(sections)
        try store.write {
            try store.add(Person(id: 3, name: "A0"))
            store.object(ofType: Person.self, forPrimaryKey: 2)!.age = 50
        }
        try store.refresh()
        let deliveries = recorder.take()
        try #require(deliveries.count == 1)
        #expect(deliveries[0].insertions == [IndexPath(indexes: [0, 0])])
        #expect(deliveries[0].modifications == [IndexPath(indexes: [0, 2])])
        #expect(sections[IndexPath(indexes: [0, 2])].id == 2)
        recorder.token?.invalidate()
    }

    /// The model kept from the changes alone: the old sections with the deletions removed, the
    /// sections deleted and inserted (an inserted section's rows as the new layout has them), then
    /// the insertions placed at their new index paths (their objects read from the new layout).
    static func applying(_ change: Delivery, to model: [[Int]], new: [[Int]]) -> [[Int]] {
        var model = model
        for path in change.deletions.sorted(by: >) {
            #expect(!change.sectionsToDelete.contains(path[0]), "a deletion in a deleted section: \(path)")
            model[path[0]].remove(at: path[1])
        }
        for section in change.sectionsToDelete.reversed() { model.remove(at: section) }
        for section in change.sectionsToInsert { model.insert(new[section], at: section) }
        for path in change.insertions.sorted() {
            #expect(!change.sectionsToInsert.contains(path[0]), "an insertion in an inserted section: \(path)")
            model[path[0]].insert(new[path[0]][path[1]], at: path[1])
        }
        return model
    }

    /// Random writes (inserts, deletes, renames that move an object or change its section, changes
    /// in place) against the sections, `rounds` times: after each, the model kept from the changes
    /// equals the new layout, and exactly the objects changed in place are reported modified.
    func randomWrites<Key: Hashable>(
        seed: UInt64, rounds: Int, sectioned: (Results<Person>) -> SectionedResults<Key, Person>
    ) throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        var random = SplitMix64(state: seed)
        let letters = ["A", "B", "C", "D", "E"]
        func randomName() -> String {
            letters.randomElement(using: &random)! + String(Int.random(in: 0..<50, using: &random))
        }
        try store.write {
            for id in 0..<12 {
                try store.add(Person(id: id, name: randomName(), age: Int.random(in: 1...4, using: &random)))
            }
        }
        let sections = sectioned(store.objects(Person.self))
        let recorder = try Recorder(sections)
        var model = Self.ids(sections)
        var nextID = 12
        for round in 0..<rounds {
            var changed = Set<Int>()  // objects changed in place (not inserted)
            try store.write {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let present = store.objects(Person.self).map(\.id)
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<2:
                        try store.add(
                            Person(id: nextID, name: randomName(), age: Int.random(in: 1...4, using: &random)))
                        nextID += 1
                    case 2..<4 where !present.isEmpty:
                        let id = present.randomElement(using: &random)!
                        try store.delete(store.object(ofType: Person.self, forPrimaryKey: id)!)
                        changed.remove(id)
                    case 4..<7 where !present.isEmpty:
                        let id = present.randomElement(using: &random)!
                        store.object(ofType: Person.self, forPrimaryKey: id)!.name = randomName()
                        changed.insert(id)
                    case 7..<10 where !present.isEmpty:
                        let id = present.randomElement(using: &random)!
                        store.object(ofType: Person.self, forPrimaryKey: id)!.age = Int.random(
                            in: 1...4, using: &random)
                        changed.insert(id)
                    default: break
                    }
                    #expect(Self.ids(sections) == Self.reference(sections), "round \(round): inside the write")
                }
            }
            try store.refresh()
            let new = Self.ids(sections)
            #expect(new == Self.reference(sections), "round \(round): after the write")
            let deliveries = recorder.take()
            try #require(deliveries.count <= 1, "round \(round): \(deliveries.count) deliveries for one write")
            guard let change = deliveries.first else {
                #expect(model == new, "round \(round): no change delivered, but the sections changed")
                continue
            }
            let modelNow = Self.applying(change, to: model, new: new)
            #expect(
                modelNow == new, "round \(round) (seed \(seed)): the changes give \(modelNow), the sections are \(new)")
            let inserted = Set(change.insertions.map { new[$0[0]][$0[1]] })
            let insertedSectionMembers = Set(change.sectionsToInsert.flatMap { new[$0] })
            let modified = change.modifications.map { new[$0[0]][$0[1]] }
            #expect(Set(modified).count == modified.count, "round \(round): an object modified twice")
            for id in modified {
                #expect(changed.contains(id), "round \(round): \(id) reported modified, but it did not change")
            }
            let present = Set(new.joined())
            for id in changed where present.contains(id) {
                #expect(
                    modified.contains(id) || inserted.contains(id) || insertedSectionMembers.contains(id),
                    "round \(round): \(id) changed but is reported neither modified nor moved")
            }
            model = new
        }
        recorder.token?.invalidate()
    }

    @Test("random writes against sections by a computed key: the changes rebuild the layout", arguments: [1, 2])
    func randomWritesByInitial(seed: UInt64) throws {
        try randomWrites(seed: seed, rounds: 200) { $0.sectioned(by: \.initial, sortDescriptors: [SortKey(\.name)]) }
    }

    @Test("random writes against sections by a stored key: the changes rebuild the layout", arguments: [3, 4])
    func randomWritesByAge(seed: UInt64) throws {
        try randomWrites(seed: seed, rounds: 200) { $0.sectioned(by: \.age) }
    }

    @Test("random writes against sections by a stored key read from its column, sorted by another property")
    func randomWritesByAgeColumnSortedByName() throws {
        try randomWrites(seed: 6, rounds: 200) { $0.sectioned(by: \.age, sortDescriptors: [SortKey(\.name)]) }
    }

    @Test("random writes against sections whose order is not the key's: sections that move are deleted and inserted")
    func randomWritesByAgeSortedByName() throws {
        try randomWrites(seed: 5, rounds: 200) {
            $0.sectioned(sortDescriptors: [SortKey(\.name)]) { $0.age }
        }
    }
}
