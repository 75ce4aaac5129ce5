import Foundation
import Strata
import StrataExamples
import StrataReactive

/// Step 5: every `StoreError` case once, each caught as a typed error, none leaving anything behind.
final class ErrorsScenario {
    let store: Store
    let configuration: Store.Configuration
    let directory: URL
    private(set) var shown: Set<String> = []

    init(store: Store, configuration: Store.Configuration, directory: URL) {
        self.store = store
        self.configuration = configuration
        self.directory = directory
    }

    /// Prints what `attempt` threw; a case seen here counts once.
    private func expect(_ what: String, _ attempt: () throws -> Void) {
        do {
            try attempt()
            Transcript.say("\(what) -> no error (unexpected)")
        } catch let error as StoreError {
            let name = "\(error)".prefix { $0 != "(" }
            shown.insert(String(name))
            Transcript.say("\(what) -> .\(name): \(error.localizedDescription)")
        } catch {
            Transcript.say("\(what) -> \(error) (not a StoreError: unexpected)")
        }
    }

    /// The error a reactive producer fails with.
    private func failure(of producer: SignalProducer<Void, StoreError>) throws -> StoreError? {
        var outcome: Result<Void, StoreError>?
        producer.startWithResult { outcome = $0 }
        try Transcript.wait(for: "a reactive write") { outcome != nil }
        if case .failure(let error) = outcome { return error }
        return nil
    }

    private func file(_ name: String) -> Store.Configuration {
        var other = configuration
        other.fileURL = directory.appendingPathComponent(name)
        return other
    }

    func run() throws {
        Transcript.step("6. Typed errors, one of each; nothing is half-written")
        let todos = store.objects(Todo.self).count
        let store = self.store

        let unchecked = UncheckedStore(store: store)
        let offThread = try Transcript.onAnotherThread("the other thread") { () -> StoreError? in
            do throws(StoreError) {
                try unchecked.store.refresh()
                return nil
            } catch {
                return error
            }
        }
        expect("main's Store used on another thread") { if let offThread { throw offThread } }

        let doomed = store.object(ofType: Todo.self, forPrimaryKey: "2")!
        let configuration = self.configuration
        Transcript.say("another thread deletes \"\(doomed.title)\" …")
        _ = try Transcript.onAnotherThread("the deleting thread") { () -> Bool in
            guard let worker = try? Store(configuration: configuration),
                let todo = worker.object(ofType: Todo.self, forPrimaryKey: "2")
            else { return false }
            return (try? worker.write { try worker.delete(todo) }) != nil
        }
        try Transcript.wait(for: "main to see the deletion") { doomed.isInvalidated }
        expect("deleting that todo again through main's stale object") { try store.write { try store.delete(doomed) } }
        expect("deleting a todo twice in one write (the write rolls back: the todo stays)") {
            try store.write {
                let todo = store.object(ofType: Todo.self, forPrimaryKey: "3")!
                try store.delete(todo)
                try store.delete(todo)
            }
        }

        let existing = Todo(RemoteTodo(id: "1", title: "A second Buy milk"))
        expect("reactive add (.error policy, background) of a stored key") {
            if let error = try failure(of: existing.reactive.add(to: store, update: .error, on: .background)) {
                throw error
            }
        }
        expect("add outside a write") { try store.add(Todo(RemoteTodo(id: "7", title: "Outside"))) }
        expect("a write inside a write") { try store.write { try store.beginWrite() } }
        expect("reactive remove of an unmanaged todo") {
            if let error = try failure(of: Todo(RemoteTodo(id: "8", title: "Loose")).reactive.remove(from: store)) {
                throw error
            }
        }
        let reference = try ThreadSafeReference(to: store.object(ofType: Todo.self, forPrimaryKey: "3")!)
        _ = try store.resolve(reference)
        expect("resolving a ThreadSafeReference twice") { _ = try store.resolve(reference) }

        var nextVersion = configuration
        nextVersion.objectTypes = [NextVersion.Todo.self]
        expect("the next app version's Todo, same schema version") { _ = try Store(configuration: nextVersion) }
        expect("store.reactive.objects of a type outside the schema") {
            var failed: StoreError?
            store.reactive.objects(Unlisted.self).startWithFailed { failed = $0 }
            if let failed { throw failed }
        }
        _ = FileManager.default.createFile(
            atPath: directory.appendingPathComponent("truncated.strata").path, contents: Data())
        expect("opening a file truncated to 0 bytes") { _ = try Store(configuration: file("truncated.strata")) }
        var nowhere = configuration
        nowhere.fileURL = URL(fileURLWithPath: "/nonexistent-directory/app.strata")
        expect("a file in a directory that does not exist") { _ = try Store(configuration: nowhere) }

        var small = file("small.strata")
        small.maximumSize = 256 << 10
        let smallStore = try Store(configuration: small)
        expect("a 1 MiB title in a 256 KiB store") {
            try smallStore.write {
                try smallStore.add(Todo(RemoteTodo(id: "9", title: String(repeating: "x", count: 1 << 20))))
            }
        }
        Transcript.say(
            "   the small store holds \(smallStore.objects(Todo.self).count) todos and works on: "
                + "\((try? smallStore.write { try smallStore.add(Todo(RemoteTodo(id: "9", title: "short"))) }) != nil)")
        var readOnly = small
        readOnly.fileURL = directory.appendingPathComponent("read-only.strata")
        _ = try Store(configuration: readOnly)  // creates it
        readOnly.readOnly = true
        let reader = try Store(configuration: readOnly)
        expect("a write to a read-only Store") {
            try reader.write { try reader.add(Todo(RemoteTodo(id: "1", title: "x"))) }
        }

        var tiny = configuration
        tiny.maximumSize = 1_000
        expect("maximumSize of 1,000 bytes") { _ = try Store(configuration: tiny) }

        var keyed = configuration
        keyed.encryptionKey = Data(repeating: 7, count: 64)
        expect("the (plain) todo file opened with an encryptionKey") { _ = try Store(configuration: keyed) }

        var pinning = file("readers.strata")
        pinning.durability = .noSync
        pinning.maximumReaders = 64  // 1,024 by default
        let pinned = try Store(configuration: pinning)
        var snapshots: [Store] = []
        expect("a frozen snapshot per version until the reader table (maximumReaders = 64) is full") {
            for round in 0..<1_000 {
                snapshots.append(try pinned.freeze())
                try pinned.write {
                    try pinned.add(Todo(RemoteTodo(id: "r", title: "round \(round)")), update: .modified)
                }
            }
        }
        let frozenCount = snapshots.count
        snapshots.removeAll()
        let freezesAgain = (try? pinned.freeze()) != nil
        Transcript.say(
            "   after \(frozenCount) frozen snapshots; freeing them makes the next one work: \(freezesAgain)")

        try store.verify()
        Transcript.say(
            "after all of them: \(store.objects(Todo.self).count) todos (one deleted on purpose, was \(todos)), "
                + "and store.verify() passes")
        Transcript.say("StoreError cases shown: \(shown.count) of 17")
    }
}

/// Carries main's Store to another thread on purpose, to show what using it there does.
struct UncheckedStore: @unchecked Sendable {
    let store: Store
}
