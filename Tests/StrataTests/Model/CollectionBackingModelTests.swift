import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The three collections of one object, for the model check below.
final class Bag: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var numbers: List<Int>
    @Persisted var members: MutableSet<Int>
    @Persisted var scores: Map<String, Int?>
}

/// Random changes to a List, a MutableSet and a Map, first unmanaged, then managed (each change in
/// its own write, or several in one), against an array, an array of distinct members and a
/// dictionary: the same contents at every step (a managed set in ascending order, an unmanaged one in
/// insertion order; a map in key order), the same values returned, and what another Store reads
/// after the last commit. A deleted owner leaves all three invalidated.
@Suite(.serialized, .fixtureChecks) struct CollectionBackingModelTests {
    struct Reference {
        var numbers: [Int] = []
        var members: [Int] = []  // insertion order, each once
        var scores: [String: Int?] = [:]
    }

    @Test(arguments: 0..<200) func randomChangesMatchPlainSwiftCollections(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([Bag.self])
        let store = try fixture.open()
        let bag = Bag()
        bag.id = Int(seed)
        var reference = Reference()
        for step in 0..<30 {
            change(bag, &reference, &random)
            check(bag, reference, managed: false, "seed \(seed) unmanaged step \(step)")
        }
        try store.write { try store.add(bag) }
        check(bag, reference, managed: true, "seed \(seed) added")
        for step in 0..<30 {
            let changes = Int(random.next() % 3) + 1
            try store.write {
                for _ in 0..<changes { change(bag, &reference, &random) }
            }
            check(bag, reference, managed: true, "seed \(seed) managed step \(step)")
        }
        let id = Int(seed)
        let seen = onAnotherThread { () -> [[String]] in
            guard let other = try? fixture.open(), let stored = other.object(ofType: Bag.self, forPrimaryKey: id)
            else { return [] }
            return [
                stored.numbers.map(String.init), stored.members.map(String.init),
                stored.scores.asKeyValueSequence().map { "\($0.key)=\(String(describing: $0.value))" },
            ]
        }
        #expect(
            seen == [
                reference.numbers.map(String.init), reference.members.sorted().map(String.init),
                reference.scores.keys.sorted().map { "\($0)=\(String(describing: reference.scores[$0]!))" },
            ], "seed \(seed): another Store")

        let (numbers, members, scores) = (bag.numbers, bag.members, bag.scores)
        #expect(!numbers.isInvalidated && !members.isInvalidated && !scores.isInvalidated)
        try store.write { try store.delete(bag) }
        #expect(numbers.isInvalidated && members.isInvalidated && scores.isInvalidated)
    }

    /// One random change to one of the three, made to the reference too.
    private func change(_ bag: Bag, _ reference: inout Reference, _ random: inout SplitMix64) {
        let value = Int(random.next() % 12)
        let count = reference.numbers.count
        switch random.next() % 17 {
        case 0, 1:
            bag.numbers.append(value)
            reference.numbers.append(value)
        case 2:
            let index = Int(random.next() % UInt64(count + 1))
            bag.numbers.insert(value, at: index)
            reference.numbers.insert(value, at: index)
        case 3 where count > 0:
            let index = Int(random.next() % UInt64(count))
            #expect(bag.numbers.remove(at: index) == reference.numbers.remove(at: index))
        case 4:
            bag.numbers.removeAll { $0 % 3 == value % 3 }
            reference.numbers.removeAll { $0 % 3 == value % 3 }
        case 5 where count > 1:
            let (i, j) = (Int(random.next() % UInt64(count)), Int(random.next() % UInt64(count)))
            bag.numbers.move(from: i, to: j)
            reference.numbers.insert(reference.numbers.remove(at: i), at: j)
        case 6:
            let lower = Int(random.next() % UInt64(count + 1))
            let upper = lower + Int(random.next() % UInt64(count - lower + 1))
            bag.numbers.replaceSubrange(lower..<upper, with: [value, value + 1])
            reference.numbers.replaceSubrange(lower..<upper, with: [value, value + 1])
        case 7:
            bag.numbers.sort()
            reference.numbers.sort()
        case 8, 9:
            bag.members.insert(value)
            if !reference.members.contains(value) { reference.members.append(value) }
        case 10:
            bag.members.remove(value)
            reference.members.removeAll { $0 == value }
        case 11:
            let others = [value, (value + 5) % 12, (value + 7) % 12]
            switch random.next() % 3 {
            case 0:
                bag.members.formUnion(others)
                for other in others where !reference.members.contains(other) { reference.members.append(other) }
            case 1:
                bag.members.formIntersection(others)
                reference.members.removeAll { !others.contains($0) }
            default:
                bag.members.subtract(others)
                reference.members.removeAll { others.contains($0) }
            }
        case 12, 13:
            bag.scores["k\(value)"] = value
            reference.scores["k\(value)"] = value
        case 14:
            try! bag.scores.setValue(nil, forKey: "k\(value)")  // a key holding nil
            reference.scores["k\(value)"] = .some(nil)
        case 15:
            let old = bag.scores.updateValue(value * 2, forKey: "k\(value % 6)")
            #expect(old == reference.scores.updateValue(value * 2, forKey: "k\(value % 6)"))
        case 16:
            bag.scores.removeObject(for: "k\(value)")
            reference.scores["k\(value)"] = nil
        default:
            if random.next() % 4 == 0 {
                bag.members.removeAll()
                reference.members.removeAll()
            }
        }
    }

    private func check(_ bag: Bag, _ reference: Reference, managed: Bool, _ comment: Comment) {
        #expect(bag.numbers.isManaged == managed && bag.members.isManaged == managed && bag.scores.isManaged == managed)
        #expect(Array(bag.numbers) == reference.numbers, comment)
        #expect(bag.numbers.count == reference.numbers.count, comment)
        #expect(Array(bag.members) == (managed ? reference.members.sorted() : reference.members), comment)
        #expect(reference.members.allSatisfy(bag.members.contains), comment)
        let entries = bag.scores.asKeyValueSequence()
        #expect(entries.map(\.key) == reference.scores.keys.sorted(), comment)
        #expect(entries.allSatisfy { reference.scores[$0.key] == $0.value }, comment)
        #expect(bag.scores.count == reference.scores.count, comment)
        for key in ["k0", "k5", "k11"] {
            #expect(bag.scores[key] == reference.scores[key], comment)
        }
    }
}
