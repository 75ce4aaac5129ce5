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
