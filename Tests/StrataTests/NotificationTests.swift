import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Stores of plain threads deliver on `refresh()` and at `beginWrite`, which makes these tests
/// deterministic; queue delivery is tested with semaphores, main-thread delivery under XCTest.
@Suite(.fixtureChecks) struct NotificationTests {
    /// What an observer received, in order.
    final class Recorder<T: Object> {
        var changes: [CollectionChange<Results<T>>] = []
        var versions: [ChangeVersions] = []
    }

    @Test func initialComesFirstAndAloneThenUpdates() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (1...3).map { Item(id: $0, score: 0, name: "i\($0)") }) }
        let recorder = Recorder<Item>()
        let token = try store.objects(Item.self).observe { change, versions in
            recorder.changes.append(change)
            recorder.versions.append(versions)
        }
        #expect(recorder.changes.isEmpty)  // nothing until the Store delivers
        try store.refresh()
        guard case .initial(let initial)? = recorder.changes.first else {
            Issue.record("no initial")
            return
        }
        #expect(initial.count == 3)
        #expect(recorder.changes.count == 1)
        try store.write {
            try store.add(Item(id: 4, score: 0, name: "i4"))
            try store.delete(store.object(ofType: Item.self, forPrimaryKey: 1)!)
            store.object(ofType: Item.self, forPrimaryKey: 3)!.score = 5
        }
        try store.refresh()
        #expect(recorder.changes.count == 2)
        guard case .update(let results, let deletions, let insertions, let modifications) = recorder.changes[1] else {
            Issue.record("no update")
            return
        }
        #expect(deletions == [0])
        #expect(insertions == [2])
        #expect(modifications == [2])
        #expect(results.map(\.id) == [2, 3, 4])
        #expect(recorder.versions[1].commits == 1)
        try store.refresh()  // nothing new: nothing delivered
        #expect(recorder.changes.count == 2)
        token.invalidate()
        try store.write { try store.add(Item(id: 5, score: 0, name: "i5")) }
        try store.refresh()
        #expect(recorder.changes.count == 2)
    }

    @Test func everyCommitDeliversEachCommitOnItsOwn() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let each = Recorder<Item>()
        let coalesced = Recorder<Item>()
        var counts: [Int] = []
        var frozen: [Bool] = []
        let eachToken = try store.objects(Item.self).observe(everyCommit: true) { change, versions in
            each.changes.append(change)
            each.versions.append(versions)
            if case .update(let results, _, _, _) = change {
                counts.append(results.count)
                frozen.append(results.isFrozen)
            }
        }
        var scores: [Double] = []
        try store.write { try store.add(Item(id: 100, score: 0, name: "")) }
        let watched = store.object(ofType: Item.self, forPrimaryKey: 100)!
        let objectToken = try watched.observe(keyPaths: [\.score], everyCommit: true) { change in
            if case .change(let item, _) = change { scores.append(item.score) }
        }
        let coalescedToken = try store.objects(Item.self).observe { change, versions in
            coalesced.changes.append(change)
            coalesced.versions.append(versions)
        }
        try store.refresh()
        _ = onAnotherThread { [configuration = fixture.configuration] () -> Bool in
            guard let there = try? Store(configuration: configuration) else { return false }
            for id in 1...3 {
                try? there.write {
                    try there.add(Item(id: id, score: 0, name: ""))
                    there.object(ofType: Item.self, forPrimaryKey: 100)!.score = Double(id)
                }
            }
            return true
        }
        try store.refresh()
        // The first update is item 100's own commit, delivered live on the refresh before the others.
        #expect(each.versions.dropFirst().map(\.commits) == [1, 1, 1, 1])
        #expect(counts == [1, 2, 3, 4])
        #expect(frozen == [false, true, true, false])
        #expect(scores == [1, 2, 3])
        #expect(coalesced.versions.last?.commits == 3)
        #expect(coalesced.changes.count == 2)
        if case .update(_, _, let insertions, let modifications)? = each.changes.last {
            // item 100 was third before, fourth now
            #expect(insertions == [2])
            #expect(modifications == [2])
        } else {
            Issue.record("no update")
        }
        withExtendedLifetime((eachToken, objectToken, coalescedToken)) {}
    }

    @Test func logsAreKeptOnlyUntilEveryObserverHasThem() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let hub = store.core.shared.changes
        var updates = 0
        let token = try store.objects(Item.self).observe { if case .update = $0 { updates += 1 } }
        try store.refresh()
        for id in 1...5 { try store.write { try store.add(Item(id: id, score: 0, name: "")) } }
        // Each write delivered the one before it (beginWrite catches observers up): only the last is kept.
        #expect(hub.keptLogCount == 1)
        #expect(updates == 4)
        try store.refresh()
        #expect(updates == 5)
        #expect(hub.keptLogCount == 0)
        token.invalidate()
        try store.write { try store.add(Item(id: 9, score: 0, name: "")) }
        #expect(hub.keptLogCount == 0)
        #expect(!hub.isObserved)
    }

    @Test func commitsOfOtherThreadsCoalesceUntilTheStoreMoves() throws {
        // this thread                          other thread
        // observe Items; refresh(): .initial
        //                                       add Item 1, commit
        //                                       add Item 2, commit
        //                                       add Item 3, commit
        // refresh(): one .update of 3 commits
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let recorder = Recorder<Item>()
        let token = try store.objects(Item.self).observe { change, versions in
            recorder.changes.append(change)
            recorder.versions.append(versions)
        }
        try store.refresh()
        _ = onAnotherThread { [configuration = fixture.configuration] () -> Bool in
            guard let there = try? Store(configuration: configuration) else { return false }
            for id in 1...3 { try? there.write { try there.add(Item(id: id, score: 0, name: "")) } }
            return true
        }
        try store.refresh()
        #expect(recorder.changes.count == 2)
        #expect(recorder.versions.last?.commits == 3)
        if case .update(let results, let deletions, let insertions, let modifications)? = recorder.changes.last {
            #expect(results.count == 3)
            #expect(deletions.isEmpty)
            #expect(insertions == [0, 1, 2])
            #expect(modifications.isEmpty)
        } else {
            Issue.record("no update")
        }
        withExtendedLifetime(token) {}
    }

    /// The invariant over hundreds of random transactions on a filtered, sorted Results: deletions then
    /// insertions turn the previous keys into the new ones, and modifications are exactly the staying
    /// objects whose observed property (score) changed.
    @Test(arguments: [false, true])
    func randomTransactionsKeepTheIndexInvariant(wholeTable: Bool) throws {
        var random = SplitMix64(state: wholeTable ? 7 : 99)
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        // The whole table takes the log-only path; a filtered, sorted Results is evaluated again.
        let observed =
            wholeTable ? store.objects(Item.self) : store.objects(Item.self).where { $0.score > 0.3 }.sorted(by: \.name)
        var previous: [Int] = []
        var expectedModified = Set<Int>()
        var deliveries = 0
        var failures: [String] = []
        let token = try observed.observe(keyPaths: [\.score]) { change in
            switch change {
            case .initial(let results):
                previous = results.map(\.id)
            case .update(let results, let deletions, let insertions, let modifications):
                deliveries += 1
                let now = results.map(\.id)
                var applied = previous
                for index in deletions.reversed() { applied.remove(at: index) }
                for index in insertions { applied.insert(now[index], at: index) }
                if applied != now { failures.append("keys: \(applied) != \(now)") }
                let staying = Set(previous.enumerated().filter { !deletions.contains($0.offset) }.map(\.element))
                let modified = Set(modifications.map { previous[$0] })
                if modified != expectedModified.intersection(staying) {
                    failures.append(
                        "modified \(modified.sorted()) != \(expectedModified.intersection(staying).sorted())")
                }
                previous = now
            case .error(let error):
                failures.append("\(error)")
            }
        }
        try store.refresh()
        var nextID = 0
        for _ in 0..<300 {
            expectedModified = []
            try store.write {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let existing = store.objects(Item.self)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where !existing.isEmpty:
                        try store.delete(existing[Int.random(in: 0..<existing.count, using: &random)])
                    case 1 where !existing.isEmpty:
                        let item = existing[Int.random(in: 0..<existing.count, using: &random)]
                        let score = Double(Int.random(in: 0...10, using: &random)) / 10
                        if item.score != score { expectedModified.insert(item.id) }
                        item.score = score
                    case 2 where !existing.isEmpty:
                        existing[Int.random(in: 0..<existing.count, using: &random)].name =
                            "n\(Int.random(in: 0...50, using: &random))"
                    default:
                        nextID += 1
                        try store.add(
                            Item(
                                id: nextID, score: Double(Int.random(in: 0...10, using: &random)) / 10,
                                name: "n\(Int.random(in: 0...50, using: &random))"))
                    }
                }
            }
            // An object changed and then deleted, or inserted, in the same write is no modification.
            try store.refresh()
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(deliveries > 200)
        #expect(previous == observed.map(\.id))
        withExtendedLifetime(token) {}
    }

    @Test func objectObserversReportTheirPropertiesAndDeletion() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann", age: 30)
        try store.write { try store.add(ann) }
        var all: [ObjectChange<Person>] = []
        var namesOnly: [ObjectChange<Person>] = []
        let everything = try ann.observe { all.append($0) }
        let names = try ann.observe(keyPaths: [\.name]) { namesOnly.append($0) }
        try store.write { ann.age = 31 }
        try store.refresh()
        #expect(all.count == 1)
        #expect(namesOnly.isEmpty)
        if case .change(let object, let properties)? = all.first {
            #expect(object.id == 1)
            #expect(properties.map(\.name) == ["age"])
            #expect(properties.first?.oldValue as? Int == 30)
            #expect(properties.first?.newValue as? Int == 31)
        } else {
            Issue.record("no change")
        }
        try store.write { ann.name = "Anna" }
        try store.refresh()
        if case .change(_, let properties)? = namesOnly.last {
            #expect(properties.map(\.name) == ["name"])
            #expect(properties[0].oldValue as? String == "Ann")
        } else {
            Issue.record("no name change")
        }
        try store.write { try store.delete(ann) }
        try store.refresh()
        guard case .deleted? = all.last, case .deleted? = namesOnly.last else {
            Issue.record("no deletion")
            return
        }
        #expect(throws: StoreError.notManaged) { try Person(id: 2).observe { _ in } }
        withExtendedLifetime((everything, names)) {}
    }

    @Test func commitWithoutNotifyingSkipsOnlyThatWrite() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let recorder = Recorder<Item>()
        let skipped = try store.objects(Item.self).observe { recorder.changes.append($0) }
        var others = 0
        let other = try store.objects(Item.self).observe { _ in others += 1 }
        try store.refresh()
        try store.beginWrite()
        try store.add(Item(id: 1, score: 0, name: ""))
        try store.commitWrite(withoutNotifying: [skipped])
        try store.refresh()
        #expect(recorder.changes.count == 1)
        #expect(others == 2)
        try store.write { try store.add(Item(id: 2, score: 0, name: "")) }
        try store.refresh()
        if case .update(_, _, let insertions, _)? = recorder.changes.last {
            #expect(insertions == [1])  // only the second write's object
        } else {
            Issue.record("no update")
        }
        let foreign = Fixture([Item.self])
        let foreignStore = try foreign.open()
        let foreignToken = try foreignStore.objects(Item.self).observe { _ in }
        try store.beginWrite()
        #expect { try store.commitWrite(withoutNotifying: [foreignToken]) } throws: { isCase($0, .invalidArgument("")) }
        try store.cancelWrite()
        withExtendedLifetime((skipped, other)) {}
    }

    @Test func aQueueStoreIsToldOnItsQueueAfterMovingToTheCommit() throws {
        // this thread                          queue "observer"
        //                                       open a Store, observe Items: .initial, signal `initial`
        // (waits for `initial`)
        // add Item 1, commit
        //                                       woken by the commit: moves to it, .update, signal `updated`
        // (waits for `updated`)
        let fixture = Fixture([Item.self])
        let queue = DispatchQueue(label: "observer")
        let initial = DispatchSemaphore(value: 0)
        let updated = DispatchSemaphore(value: 0)
        let seen = ResultBox<[String]>()
        seen.value = []
        let token = try queue.sync { () throws -> NotificationToken in
            let store = try Store(configuration: fixture.configuration, queue: queue)
            return try store.objects(Item.self).observe(on: queue) { change in
                switch change {
                case .initial(let results):
                    seen.value!.append("initial \(results.count)")
                    initial.signal()
                case .update(let results, _, let insertions, _):
                    seen.value!.append(
                        "update \(results.count) \(insertions) \(Confinement.isCurrentQueue(results.core.confinementToken!))"
                    )
                    updated.signal()
                case .error(let error):
                    seen.value!.append("\(error)")
                }
            }
        }
        #expect(initial.wait(timeout: .now() + 30) == .success)
        let store = try fixture.open()
        try store.write { try store.add(Item(id: 1, score: 0, name: "")) }
        #expect(updated.wait(timeout: .now() + 30) == .success)
        queue.sync {}
        #expect(seen.value == ["initial 0", "update 1 [0] true"])
        queue.sync { token.invalidate() }
    }

    @Test func aThreadStoresResultsObservedOnAnotherQueue() throws {
        // this thread                          queue "elsewhere"
        // add Item 1; observe (score < 5) on elsewhere
        //                                       open its Store: .initial [1]
        // add Item 2, set Item 1's score to 9
        //                                       .update: 1 left, 2 came
        // observe Item 2 on elsewhere
        //                                       takes its baseline
        // delete Item 2
        //                                       .update: 2 left; Item 2: .deleted
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        try store.write { try store.add(Item(id: 1, score: 0, name: "")) }
        let elsewhere = DispatchQueue(label: "elsewhere")
        let delivered = DispatchSemaphore(value: 0)
        let seen = ResultBox<[String]>()
        seen.value = []
        let cheap = store.objects(Item.self).where { $0.score < 5 }
        let token = try cheap.observe(keyPaths: [\.score], on: elsewhere) { change in
            switch change {
            case .initial(let results):
                seen.value!.append(
                    "initial \(results.count) \(results.core.confinementToken.map(Confinement.isCurrentQueue) == true)")
            case .update(let results, let deletions, let insertions, let modifications):
                seen.value!.append("update \(results.map(\.id)) \(deletions) \(insertions) \(modifications)")
            case .error(let error):
                seen.value!.append("\(error)")
            }
            delivered.signal()
        }
        #expect(delivered.wait(timeout: .now() + 30) == .success)
        try store.write {
            try store.add(Item(id: 2, score: 1, name: ""))
            store.object(ofType: Item.self, forPrimaryKey: 1)!.score = 9
        }
        #expect(delivered.wait(timeout: .now() + 30) == .success)
        let item = store.object(ofType: Item.self, forPrimaryKey: 2)!
        let objectToken = try item.observe(on: elsewhere) { change in
            if case .deleted = change { seen.value!.append("deleted") }
            delivered.signal()
        }
        elsewhere.sync {}  // the object observer has its baseline
        try store.write { try store.delete(item) }
        #expect(delivered.wait(timeout: .now() + 30) == .success)  // the Results
        #expect(delivered.wait(timeout: .now() + 30) == .success)  // the object
        elsewhere.sync {}
        #expect(seen.value == ["initial 1 true", "update [2] [0] [0] []", "update [] [0] [] []", "deleted"])
        token.invalidate()
        objectToken.invalidate()
    }

    @Test func changesAsAnAsyncSequence() async throws {
        let fixture = Fixture([Item.self])
        let queue = DispatchQueue(label: "stream")
        let stream = try queue.sync { () throws -> Unchecked<ResultsChanges<Item>> in
            let store = try Store(configuration: fixture.configuration, queue: queue)
            return Unchecked(store.objects(Item.self).changes)
        }
        func describe(_ change: CollectionChange<Results<Item>>?) -> String {
            switch change {
            case .initial?: "initial"  // the Results stays unread here: it belongs to `queue`
            case .update(_, let deletions, let insertions, let modifications)?:
                "update \(deletions) \(insertions) \(modifications)"
            case .error(let error)?: "\(error)"
            case nil: "end"
            }
        }
        var iterator = stream.value.makeAsyncIterator()
        let first = describe(await iterator.next())
        // Write only once the initial value is out, so that it cannot already hold the object.
        let wrote = await onAnotherThread { [configuration = fixture.configuration] () -> Bool in
            guard let store = try? Store(configuration: configuration) else { return false }
            return (try? store.write { try store.add(Item(id: 1, score: 0, name: "")) }) != nil
        }
        let second = describe(await iterator.next())
        #expect(wrote)
        #expect([first, second] == ["initial", "update [] [0] []"])
        // Off the Store's queue (a task of the pool could be running on a plain thread's Store).
        let otherQueue = DispatchQueue(label: "elsewhere")
        let results = try otherQueue.sync {
            Unchecked(try Store(configuration: fixture.configuration, queue: otherQueue).objects(Item.self))
        }
        let errors = await Task.detached { () -> [String] in
            var seen: [String] = []
            for await change in results.value.changes {
                if case .error(let error) = change { seen.append("\(error)") }
            }
            return seen
        }.value
        #expect(errors == ["wrongThread"])
    }

    static func writeFromChild(_ path: String) {
        let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Item.self])
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                try store.add(Item(id: 2, score: 1, name: "child"))
                store.object(ofType: Item.self, forPrimaryKey: 1)!.score = 9
            }
        } catch {
            fatalError("\(error)")
        }
    }

    @Test func commitsOfAnotherProcessAreNoticedOnRefresh() async throws {
        let fixture = Fixture([Item.self])
        let path = fixture.path
        let queue = DispatchQueue(label: "parent")
        let recorder = Recorder<Item>()
        let (store, token) = try queue.sync { () throws -> (Unchecked<Store>, NotificationToken) in
            let store = try Store(configuration: fixture.configuration, queue: queue)
            try store.write { try store.add(Item(id: 1, score: 0, name: "parent")) }
            let token = try store.objects(Item.self).observe { recorder.changes.append($0) }
            try store.refresh()
            return (Unchecked(store), token)
        }
        await #expect(processExitsWith: .success) { [path = path as String] in
            NotificationTests.writeFromChild(path)
        }
        try queue.sync { _ = try store.value.refresh() }
        queue.sync {
            if case .update(let results, let deletions, let insertions, let modifications)? = recorder.changes.last {
                #expect(results.map(\.id) == [1, 2])
                #expect(deletions.isEmpty)
                #expect(insertions == [1])
                #expect(modifications == [0])
            } else {
                Issue.record("no update: \(recorder.changes.count)")
            }
            token.invalidate()
        }
    }
}

extension StoreCore {
    var confinementToken: QueueToken? {
        if case .queue(let token) = confinement { return token }
        return nil
    }
}
