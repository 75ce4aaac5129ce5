import Foundation
import Strata
import StrataExamples
import StrataReactive

/// Step 3: an object handed to another thread with a ThreadSafeReference, changed there, and the
/// change seen by the main thread's Store and its table.
func runHandoff(_ sync: SyncScenario, configuration: Store.Configuration) throws {
    Transcript.step("3. A ThreadSafeReference hands an object to another thread")
    let store = sync.store
    let milk = store.object(ofType: Todo.self, forPrimaryKey: "1")!
    let reference = try ThreadSafeReference(to: milk)
    Transcript.say("main: made a reference to \"\(milk.title)\" (objects are confined to their thread)")
    let batches = sync.table.batches
    let outcome = try Transcript.onAnotherThread("the worker thread") { () -> String in
        do {
            let worker = try Store(configuration: configuration)  // this thread's own Store of the file
            guard let todo = try worker.resolve(reference) else { return "the todo was deleted meanwhile" }
            try worker.write { todo.title = "Buy oat milk" }
            return "worker: resolved \"Buy milk\" in its own Store and renamed it to \"\(todo.title)\""
        } catch {
            return "worker failed: \(error)"
        }
    }
    Transcript.say(outcome)
    try Transcript.wait(for: "main to see the worker's commit") { sync.table.batches > batches }
    Transcript.say("main: the same object now reads \"\(milk.title)\" (the main Store refreshed on its own)")
}
