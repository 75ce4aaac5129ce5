import Foundation
import Strata
import StrataExamples

/// Step 8: async code. Many tasks share one `StorePool` (what a server's handlers would do): each
/// write and read is a block on one of the pool's queues, and a frozen Results crosses to another
/// task as a `Frozen` value. The pool has a file of its own, so the steps before keep theirs as is.
func runPool(directory: URL) throws {
    Transcript.step("8. Many tasks share one StorePool (async code, a server's handlers)")
    let configuration = Store.Configuration(
        fileURL: directory.appendingPathComponent("pool.strata"), objectTypes: [Todo.self, Project.self])
    let box = ResultBox<Result<[String], any Error>>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<[String], any Error>
        do {
            outcome = .success(try await poolWork(configuration))
        } catch {
            outcome = .failure(error)
        }
        box.lock.withLock { box.result = outcome }
        done.signal()
    }
    // The main thread waits for a condition, the tasks' end; the tasks run on the cooperative pool.
    guard done.wait(timeout: .now() + 30) == .success else { throw Transcript.TimedOut(what: "the pool's tasks") }
    for line in try box.lock.withLock({ box.result! }).get() { Transcript.say(line) }
}

private func poolWork(_ configuration: Store.Configuration) async throws -> [String] {
    let pool = try StorePool(configuration: configuration, readers: 3)
    let counts = try await withThrowingTaskGroup(of: (seen: Int, own: Bool).self) { group in
        for number in 0..<40 {
            group.addTask {
                try await pool.write { store in
                    try store.add(
                        Todo(RemoteTodo(id: "pool-\(number)", title: "Task \(number)", done: number % 2 == 0)))
                }
                return try await pool.read { store in
                    let own = store.object(ofType: Todo.self, forPrimaryKey: "pool-\(number)") != nil
                    return (store.objects(Todo.self).count, own)
                }
            }
        }
        return try await group.reduce(into: [(seen: Int, own: Bool)]()) { $0.append($1) }
    }
    let sawOwn = counts.allSatisfy(\.own) && counts.allSatisfy { $0.seen >= 1 }
    let open = try await pool.read { store in try Frozen(store.objects(Todo.self).where { !$0.done }) }
    let openCount = await Task.detached { open.value.count }.value
    let total = try await pool.read { store in store.objects(Todo.self).count }
    return [
        "40 tasks wrote one todo each and read the count after it: \(counts.count) writes, \(counts.count) reads, "
            + (sawOwn ? "none saw fewer than its own" : "one missed its own write: unexpected"),
        "a Frozen Results crossed to a detached task: \(openCount) open of \(total)",
    ]
}
