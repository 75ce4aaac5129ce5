import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Counts how often the declared initial values of `Stamped` run.
final class EvaluationCounter: @unchecked Sendable {  // `count` only under `lock`
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }

    var evaluations: Int { lock.withLock { count } }
}

/// Declared initial values with a side effect, as `@Persisted(primaryKey: true) var id = UUID()` has.
final class Stamped: Object {
    static let counter = EvaluationCounter()

    @Persisted(primaryKey: true) var id = Stamped.counter.next()
    @Persisted var label: String = "label \(Stamped.counter.next())"
    @Persisted var stampedAt = Date()
    @Persisted var tags: List<String>
}

/// A declared initial value runs once per unmanaged object, when first needed; reading objects from a
/// Store runs none (it was `UUID()` per object read, 14× the cost of the read itself).
@Suite(.serialized, .fixtureChecks) struct InitialValueTests {
    @Test func anUnmanagedObjectEvaluatesEachInitialValueOnceWhenFirstRead() {
        let before = Stamped.counter.evaluations
        let object = Stamped()
        #expect(Stamped.counter.evaluations == before)  // nothing evaluated yet
        let id = object.id
        #expect(object.id == id)  // the same value on every read
        #expect(Stamped.counter.evaluations == before + 1)
        object.label = "set before it was read"
        #expect(object.label == "set before it was read")
        #expect(Stamped.counter.evaluations == before + 1)  // a set replaces the initial value unevaluated
        #expect(object.tags.isEmpty)
        object.tags.append("a")
        #expect(Array(object.tags) == ["a"])  // the same List instance on every read
    }

    @Test func readingManagedObjectsEvaluatesNoInitialValue() throws {
        let fixture = Fixture([Stamped.self])
        let store = try fixture.open()
        try store.write {
            for _ in 0..<100 { try store.add(Stamped()) }
        }
        let afterAdding = Stamped.counter.evaluations
        var labels = 0
        for object in store.objects(Stamped.self) where !object.label.isEmpty { labels += 1 }
        _ = store.objects(Stamped.self).where { $0.id > 0 }.map(\.tags.count)
        _ = store.objects(Stamped.self).sorted(by: \.label).first?.stampedAt
        #expect(labels == 100)
        #expect(Stamped.counter.evaluations == afterAdding)
    }

    @Test func theValueStoredIsTheOneTheUnmanagedObjectShowed() throws {
        let fixture = Fixture([Stamped.self])
        let store = try fixture.open()
        let read = Stamped()
        let shownID = read.id
        let unread = Stamped()
        try store.write { try store.add(contentsOf: [read, unread]) }
        #expect(read.id == shownID)
        #expect(store.object(ofType: Stamped.self, forPrimaryKey: shownID)?.label == read.label)
        #expect(store.object(ofType: Stamped.self, forPrimaryKey: unread.id) != nil)

        // A failed add leaves the unmanaged object with the values it tried to store.
        let duplicate = Stamped()
        duplicate.id = shownID
        let label = duplicate.label
        #expect { try store.write { try store.add(duplicate) } } throws: { isCase($0, .alreadyExists(primaryKey: "")) }
        #expect(!duplicate.isManaged)
        #expect(duplicate.id == shownID)
        #expect(duplicate.label == label)
    }
}

/// Initial values counted in order, for the model check below.
final class Sampled: Object {
    static let counter = EvaluationCounter()

    @Persisted(primaryKey: true) var id: Int
    @Persisted var count: Int = Sampled.counter.next()
    @Persisted var label: String = "label \(Sampled.counter.next())"
    @Persisted var plain: Int
}

/// Random reads, sets and adds of objects with declared initial values against a plain model: each
/// initial value runs once, when first read or at the add (in declaration order), a set before any
/// read replaces it unevaluated, and the Store keeps what the unmanaged object showed.
@Suite(.serialized, .fixtureChecks) struct InitialValueModelTests {
    /// What one object should show: nil where an initial value has not run yet.
    struct Expected {
        var count: Int?
        var label: String?
        var plain = 0
        var isManaged = false
    }

    @Test(arguments: 0..<300) func readsSetsAndAddsShowWhatAPlainModelShows(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([Sampled.self])
        let store = try fixture.open()
        var next = Sampled.counter.evaluations + 1  // the number the next initial value takes
        var objects: [Sampled] = []
        var expected: [Expected] = []
        for step in 0..<40 {
            if objects.isEmpty || random.next() % 8 == 0 {
                let object = Sampled()
                object.id = step
                objects.append(object)
                expected.append(Expected())
                continue
            }
            let index = Int(random.next() % UInt64(objects.count))
            let object = objects[index]
            let value = Int(random.next() % 1000)
            switch random.next() % 7 {
            case 0:
                if expected[index].count == nil {
                    expected[index].count = next
                    next += 1
                }
                #expect(object.count == expected[index].count, "seed \(seed) step \(step)")
            case 1:
                if expected[index].label == nil {
                    expected[index].label = "label \(next)"
                    next += 1
                }
                #expect(object.label == expected[index].label, "seed \(seed) step \(step)")
            case 2:
                #expect(object.plain == expected[index].plain, "seed \(seed) step \(step)")
            case 3:
                try write(to: object, in: store, managed: expected[index].isManaged) { $0.count = value }
                expected[index].count = value
            case 4:
                try write(to: object, in: store, managed: expected[index].isManaged) { $0.label = "set \(value)" }
                expected[index].label = "set \(value)"
            case 5:
                try write(to: object, in: store, managed: expected[index].isManaged) { $0.plain = value }
                expected[index].plain = value
            default:
                guard !expected[index].isManaged else { continue }
                try store.write { try store.add(object) }
                // The add settles what was never read nor set, in declaration order.
                if expected[index].count == nil {
                    expected[index].count = next
                    next += 1
                }
                if expected[index].label == nil {
                    expected[index].label = "label \(next)"
                    next += 1
                }
                expected[index].isManaged = true
            }
            #expect(Sampled.counter.evaluations == next - 1, "seed \(seed) step \(step)")
        }
        for (object, shown) in zip(objects, expected) where shown.isManaged {
            let stored = try #require(store.object(ofType: Sampled.self, forPrimaryKey: object.id))
            #expect(stored.count == shown.count && stored.label == shown.label && stored.plain == shown.plain)
        }
    }

    private func write(to object: Sampled, in store: Store, managed: Bool, _ change: (Sampled) -> Void) throws {
        if managed { try store.write { change(object) } } else { change(object) }
    }
}
