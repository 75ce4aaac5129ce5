import Foundation
import Strata
import StrataExamples
import StrataReactive
import StrataTestSupport
import XCTest

/// The seeds' patterns end to end, on the main thread: single source of truth, table updates, and a
/// view model in virtual time.
final class PatternTests: ReactiveTestCase {
    private func makeRepository(_ fixture: Fixture) throws -> TodoRepository {
        TodoRepository(store: try fixture.open(), api: FakeTodoAPI())
    }

    private func titles(_ feed: [TodoFeed]) -> [String] {
        feed.map { event in
            switch event {
            case .todos(.initial(let todos)): "initial \(todos.map(\.title))"
            case .todos(.update(let todos, let deletions, let insertions, let modifications)):
                "update \(todos.map(\.title)) -\(deletions) +\(insertions) ~\(modifications)"
            case .todos(.error(let error)): "error \(error)"
            case .syncFailed(let error): "sync failed \(error)"
            }
        }
    }

    func testSingleSourceOfTruthSyncFailuresDoNotEndTheObservation() throws {
        let fixture = Fixture([Todo.self])
        let repository = try makeRepository(fixture)
        repository.api.next = FakeTodoAPI.answer([
            RemoteTodo(id: "1", title: "Buy milk"), RemoteTodo(id: "2", title: "Call Bo"),
        ])
        let feed = start(repository.observe())
        XCTAssertEqual(titles(feed.events.compactMap(\.value)), ["initial []"])  // the store, synchronously
        waitUntil { feed.events.count == 2 && !repository.isSyncing }
        XCTAssertEqual(
            titles(feed.events.compactMap(\.value)).last, "update [\"Buy milk\", \"Call Bo\"] -[] +[0, 1] ~[]")
        // A failing sync is shown, and the observation stays alive.
        repository.api.next = FakeTodoAPI.failure("offline")
        repository.requestSync()
        waitUntil { feed.events.count == 3 && !repository.isSyncing }
        XCTAssertEqual(titles(feed.events.compactMap(\.value)).last, "sync failed remote(\"offline\")")
        XCTAssertFalse(feed.isTerminated)
        repository.api.next = FakeTodoAPI.answer([
            RemoteTodo(id: "1", title: "Buy milk", done: true), RemoteTodo(id: "3", title: "Art"),
        ])
        repository.requestSync()
        waitUntil { feed.events.count == 4 }
        XCTAssertEqual(
            titles(feed.events.compactMap(\.value)).last, "update [\"Art\", \"Buy milk\", \"Call Bo\"] -[] +[0] ~[0]")
        XCTAssertEqual(feed.offMainEvents, 0)
        feed.disposable?.dispose()
        XCTAssertEqual(feed.descriptions.last, "interrupted")
    }

    func testTheLimiterLetsOneSyncRunAtATime() throws {
        let fixture = Fixture([Todo.self])
        let repository = try makeRepository(fixture)
        let (held, release) = pipeProducer([RemoteTodo].self, SyncError.self)
        repository.api.next = held
        let first = start(repository.sync().promoteToStoreErrorForTest())
        let second = start(repository.sync().promoteToStoreErrorForTest())
        XCTAssertEqual(second.descriptions, ["completed"])  // one was running: nothing started
        XCTAssertEqual(repository.api.fetchCount, 1)
        release.send(value: [RemoteTodo(id: "1", title: "One")])
        release.sendCompleted()
        waitUntil { first.isTerminated }
        XCTAssertEqual(first.descriptions, ["completed"])
        XCTAssertEqual(repository.store.objects(Todo.self).count, 1)
        repository.api.next = FakeTodoAPI.answer([])
        run(repository.sync().promoteToStoreErrorForTest())
        XCTAssertEqual(repository.api.fetchCount, 2)  // free again once the first ended
    }

    func testAStorageFailureDuringSyncIsReportedAndWritesNothing() throws {
        let fixture = Fixture([Todo.self])
        let repository = try makeRepository(fixture)
        let tooLong = String(repeating: "k", count: 600)  // over LMDB's 511-byte keys
        repository.api.next = FakeTodoAPI.answer([
            RemoteTodo(id: "1", title: "Fine"), RemoteTodo(id: tooLong, title: "Bad"),
        ])
        let feed = start(repository.observe())
        waitUntil { feed.events.count == 2 }
        guard case .syncFailed(.storage(.invalidArgument))? = feed.events.last?.value else {
            return XCTFail("\(feed.descriptions)")
        }
        XCTAssertEqual(repository.store.objects(Todo.self).count, 0)  // the batch is all or nothing
        feed.disposable?.dispose()
    }

    func testATableConsumerStaysEqualToTheResultsAfterEveryBatch() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let byScore = store.objects(Item.self).sorted(by: [SortKey(\.score), SortKey(\.id)])
        let table = ChangeTable<Item, Int>(id: \.id, text: { "\($0.id):\($0.name) \($0.score)" })
        let observation = byScore.reactive.changes.startWithResult { result in
            if case .success(let change) = result { table.apply(change) }
        }
        var random = SplitMix64(state: 6)
        var nextID = 0
        for _ in 0..<60 {
            // One to three background writes at once: their changes may arrive together or apart.
            let writes = (0..<Int.random(in: 1...3, using: &random)).map { _ -> SignalProducer<Void, StoreError> in
                let existing = Array(store.objects(Item.self))
                let roll = existing.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
                switch roll {
                case 0..<4:
                    let items = (0..<Int.random(in: 1...3, using: &random)).map { _ -> Item in
                        nextID += 1
                        return Item(
                            id: nextID, score: Double(Int.random(in: 0..<20, using: &random)), name: "n\(nextID)")
                    }
                    return items.reactive.add(to: store, on: .background)
                case 4..<8:
                    var targets: [Item] = []
                    for _ in 0..<Int.random(in: 1...2, using: &random) {
                        let target = existing.randomElement(using: &random)!
                        if !targets.contains(where: { $0.id == target.id }) { targets.append(target) }
                    }
                    let newScore = Double(Int.random(in: 0..<20, using: &random))
                    let rename = Bool.random(using: &random)
                    return targets.reactive.update(in: store, on: .background) { item in
                        if rename { item.name += "'" } else { item.score = newScore }
                    }
                default:
                    return existing.randomElement(using: &random)!.reactive.remove(from: store, on: .background)
                }
            }
            let outcomes = writes.map { start($0) }
            waitUntil { outcomes.allSatisfy(\.isTerminated) }
            for outcome in outcomes { XCTAssertEqual(outcome.descriptions, ["value ()", "completed"]) }
            XCTAssertEqual(table.rows, byScore.map(table.row))
        }
        XCTAssertGreaterThan(table.batches, 30)
        XCTAssertGreaterThan(table.moves, 0)
        XCTAssertGreaterThan(table.reloads, 0)
        observation.dispose()
    }

    func testAViewModelInVirtualTime() throws {
        let fixture = Fixture([Todo.self])
        let repository = try makeRepository(fixture)
        let scheduler = TestScheduler()
        repository.api.next = FakeTodoAPI.answer([RemoteTodo(id: "1", title: "Buy milk")])
        let viewModel = TodoListViewModel(repository: repository, scheduler: scheduler)
        viewModel.start()
        XCTAssertEqual(viewModel.titles, [])
        waitUntil { repository.store.objects(Todo.self).count == 1 && !scheduler.isIdle && !repository.isSyncing }
        XCTAssertEqual(viewModel.titles, [])  // nothing reaches the view model until its scheduler runs
        scheduler.advance()
        XCTAssertEqual(viewModel.titles, ["Buy milk"])
        // A failure shows a banner for exactly three (virtual) seconds; a second one restarts the clock.
        repository.api.next = FakeTodoAPI.failure("offline")
        viewModel.refresh()
        waitUntil { !scheduler.isIdle && !repository.isSyncing }
        scheduler.advance()
        XCTAssertEqual(viewModel.banner, "Sync failed: remote(\"offline\")")
        scheduler.advance(by: 2)
        let waiting = scheduler.pendingActions  // the first banner's timer
        viewModel.refresh()
        waitUntil { scheduler.pendingActions > waiting }  // the second failure has reached the scheduler
        scheduler.advance()
        scheduler.advance(by: 2.9)
        XCTAssertNotNil(viewModel.banner)
        scheduler.advance(by: 0.1)
        XCTAssertNil(viewModel.banner)
        XCTAssertEqual(viewModel.titles, ["Buy milk"])
    }
}

extension SignalProducer where Value == Never, Error == SyncError {
    /// Test helper: a sync as a producer the test case's recorder takes.
    func promoteToStoreErrorForTest() -> SignalProducer<Void, StoreError> {
        SignalProducer<Void, StoreError> { observer, lifetime in
            lifetime += start { event in
                switch event {
                case .failed(let error): observer.send(error: .invalidArgument("\(error)"))
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                case .value: break
                }
            }
        }
    }
}
