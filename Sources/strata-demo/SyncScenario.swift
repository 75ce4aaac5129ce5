import Foundation
import Strata
import StrataExamples
import StrataReactive

/// Steps 1–2: a screen's list comes from the store alone (the single source of truth); a background
/// sync writes the remote's todos into the store; a table applies each change batch.
final class SyncScenario {
    let store: Store
    let api = FakeTodoAPI()
    let repository: TodoRepository
    let table = ChangeTable<Todo, String>(id: \.id, text: { "\($0.done ? "[x]" : "[ ]") \($0.title)" })
    private(set) var syncFailures = 0
    private var observation: Disposable?

    init(store: Store) {
        self.store = store
        repository = TodoRepository(store: store, api: api)
    }

    deinit {
        observation?.dispose()
    }

    /// Starts the screen's observation (which starts the first sync) and prints every batch.
    func start(firstAnswer: [RemoteTodo]) {
        api.next = FakeTodoAPI.answer(firstAnswer)
        observation = repository.observe().startWithResult { [self] result in
            switch result {
            case .success(.todos(let change)):
                table.apply(change)
                describe(change)
            case .success(.syncFailed(let error)):
                syncFailures += 1
                Transcript.say("sync failed: \(error); the screen keeps its \(table.rows.count) rows and stays live")
            case .failure(let error):
                Transcript.say("the list cannot be shown: \(error)")
            }
        }
    }

    private func describe(_ change: CollectionChange<Results<Todo>>) {
        switch change {
        case .initial:
            Transcript.say("table: initial state from the store, \(table.rows.count) rows")
        case .update(_, let deletions, let insertions, let modifications):
            Transcript.say(
                "table: batch \(table.batches): deleted \(deletions), inserted \(insertions), reloaded \(modifications)"
                    + " -> \(table.rows.map(\.text).joined(separator: ", "))")
        case .error(let error):
            Transcript.say("table: error \(error)")
        }
    }

    /// Asks for a sync answering `answer` (or failing with `failure`) and waits for what it causes.
    func sync(answering answer: [RemoteTodo]? = nil, failing failure: String? = nil) throws {
        let batches = table.batches
        let failures = syncFailures
        api.next = failure.map(FakeTodoAPI.failure) ?? FakeTodoAPI.answer(answer ?? [])
        repository.requestSync()
        try Transcript.wait(for: "the sync") {
            (table.batches > batches || syncFailures > failures) && !repository.isSyncing
        }
    }

    func run() throws {
        Transcript.step("1. A repository with a single source of truth, synced in the background")
        Transcript.say(
            "the screen observes the store only; the sync fetches on a network queue and writes on a background queue")
        Transcript.say("first sync: three todos from the network …")
        start(firstAnswer: [
            RemoteTodo(id: "1", title: "Buy milk"), RemoteTodo(id: "2", title: "Call Bo"),
            RemoteTodo(id: "3", title: "Fix the bike"),
        ])
        try Transcript.wait(for: "the first sync") { table.batches == 1 && !repository.isSyncing }
        Transcript.say(
            "first sync done: \(store.objects(Todo.self).count) todos stored, fetched \(api.fetchCount) time(s)")

        Transcript.step("2. A table-style consumer applies each change batch")
        Transcript.say("second sync: one todo changed, one added (.modified upserts) …")
        try sync(answering: [
            RemoteTodo(id: "1", title: "Buy milk", done: true), RemoteTodo(id: "4", title: "Answer Al"),
        ])
        Transcript.say("third sync: the network is offline …")
        try sync(failing: "offline")
        Transcript.say("table rows equal the store's, in title order: \(tableMatchesStore())")
    }

    func tableMatchesStore() -> Bool {
        table.rows == store.objects(Todo.self).sorted(by: \.title).map(table.row)
    }
}
