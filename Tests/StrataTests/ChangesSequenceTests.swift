import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `Results.changes` (the AsyncSequence): each element is exactly the previous collection with its
/// deletions removed and its insertions added, however fast other tasks commit (Docs/Notifications.md).
@Suite(.fixtureChecks) struct ChangesSequenceTests {
    /// The ids each commit leaves: 14 inserts, then 6 deletes, one object per commit.
    static let commits: [(insert: Int?, delete: Int?)] =
        (1...14).map { (insert: $0, delete: nil) } + [2, 5, 7, 9, 11, 13].map { (insert: nil, delete: $0) }
    static let finalIDs = [1, 3, 4, 6, 8, 10, 12, 14]

    @Test("a model kept from every element equals the element's Results, 100 runs of 20 rapid commits")
    func modelKeptFromElementsMatches() async throws {
        for run in 0..<100 {
            let fixture = Fixture()
            let follower = Follower()
            let started = Locked(false)
            try await follower.open(fixture.configuration)
            async let mismatches = follower.follow(until: Self.finalIDs, started: started)
            #expect(await waitUntil { started.withLock { $0 } })
            let writers = Writer()
            try await writers.open(fixture.configuration)
            try await writers.commitAll(Self.commits)  // one after the other, as fast as they go
            let found = await mismatches
            #expect(found.isEmpty, "run \(run): \(found.prefix(3))")
            await writers.close()
            await follower.close()
            if !found.isEmpty { break }
        }
    }

    @Test("a consumer that starts iterating after the commits landed gets a consistent first element")
    func lateConsumer() async throws {
        let fixture = Fixture()
        let follower = Follower()
        try await follower.open(fixture.configuration)
        await follower.observe()
        let writers = Writer()
        try await writers.open(fixture.configuration)
        // Each commit delivered on its own (a callback observer of the same Store sees it) before the
        // next; only then does the follower iterate.
        #expect(await waitUntil { await follower.callbackDeliveries() == 1 })
        for (number, commit) in Self.commits.enumerated() {
            try await writers.commit(insert: commit.insert, delete: commit.delete)
            #expect(await waitUntil { await follower.callbackDeliveries() == number + 2 })
        }
        // After the first element, one more commit: the next element must describe exactly it.
        let found = await follower.iterate(until: Self.finalIDs + [1_000]) {
            Task { try await writers.commit(insert: 1_000, delete: nil) }
        }
        #expect(found.isEmpty, "\(found.prefix(3))")
        await writers.close()
        await follower.close()
    }

    @Test("the main actor's Store's changes, iterated on the main actor, are exact too")
    @MainActor
    func mainActorIteration() async throws {
        let fixture = Fixture()
        let store = try await Store(configuration: fixture.configuration, actor: MainActor.shared)
        var model: [Int] = []
        var mismatches: [String] = []
        let writers = Writer()
        try await writers.open(fixture.configuration)
        let changes = store.objects(Person.self).changes
        var sent = false
        for await change in changes {
            mismatches += apply(change, to: &model)
            if !sent {
                sent = true
                Task {
                    for commit in Self.commits {
                        try await writers.commit(insert: commit.insert, delete: commit.delete)
                    }
                }
            }
            if model == Self.finalIDs { break }
        }
        #expect(mismatches.isEmpty)
        await writers.close()
    }
}

/// Applies a change to a model of ids; returns what does not match the change's Results.
func apply(_ change: CollectionChange<Results<Person>>, to model: inout [Int]) -> [String] {
    switch change {
    case .initial(let results):
        model = results.map(\.id)
        return []
    case .update(let results, let deletions, let insertions, _):
        let ids = results.map(\.id)
        for index in deletions.reversed() {
            guard index < model.count else { return ["deletion \(index) beyond \(model)"] }
            model.remove(at: index)
        }
        for index in insertions {
            guard index <= model.count, index < ids.count else {
                return ["insertion \(index) into \(model), results \(ids)"]
            }
            model.insert(ids[index], at: index)
        }
        return model == ids ? [] : ["model \(model) != results \(ids) (-\(deletions) +\(insertions))"]
    case .error(let error):
        return ["error \(error)"]
    }
}

/// Keeps a model from an actor Store's `changes`.
private actor Follower {
    private var store: Store?

    func open(_ configuration: Store.Configuration) async throws {
        store = try await Store(configuration: configuration, actor: self)
    }

    private var changes: (any AsyncSequence<CollectionChange<Results<Person>>, Never>)?

    func follow(until expected: [Int], started: Locked<Bool>) async -> [String] {
        guard store != nil else { return ["no store"] }
        observe()
        started.withLock { $0 = true }
        return await iterate(until: expected)
    }

    private var token: NotificationToken?
    private var deliveries = 0

    func observe() {
        changes = store?.objects(Person.self).changes
        token = try? store?.objects(Person.self).observe { [weak self] _ in
            self?.assumeIsolated { $0.deliveries += 1 }
        }
    }

    func callbackDeliveries() -> Int {
        deliveries
    }

    /// Keeps a model from the elements until it is `expected`; `afterFirst` runs once the first is in.
    func iterate(until expected: [Int], afterFirst: () -> Void = {}) async -> [String] {
        guard let changes else { return ["not observed"] }
        var model: [Int] = []
        var mismatches: [String] = []
        var first = true
        for await change in changes {
            mismatches += apply(change, to: &model)
            if first { afterFirst() }
            first = false
            if model == expected || !mismatches.isEmpty { break }
        }
        return mismatches
    }

    func close() {
        token?.invalidate()
        changes = nil
        store = nil
    }
}

/// Commits one object at a time from an actor's Store.
private actor Writer {
    private var store: Store?

    func open(_ configuration: Store.Configuration) async throws {
        store = try await Store(configuration: configuration, actor: self)
    }

    func commitAll(_ commits: [(insert: Int?, delete: Int?)]) throws {
        for commit in commits { try self.commit(insert: commit.insert, delete: commit.delete) }
    }

    func commit(insert: Int?, delete: Int?) throws {
        guard let store else { return }
        try store.write {
            if let insert { try store.add(Person(id: insert)) }
            if let delete, let person = store.object(ofType: Person.self, forPrimaryKey: delete) {
                try store.delete(person)
            }
        }
    }

    func close() {
        store = nil
    }
}
