import Foundation
import Strata
import StrataExamples
import StrataReactive

/// Step 4: reactive add, update and remove, on the main thread and in the background. Each write's
/// change reaches the table (through the store) before the write's producer completes.
func runReactiveWrites(_ sync: SyncScenario) throws {
    Transcript.step("4. Reactive add / update / remove, on main and in the background")
    let store = sync.store

    func perform(_ label: String, _ producer: SignalProducer<Void, StoreError>) throws {
        Transcript.say("\(label) …")  // the table's update, printed as it arrives, comes after this
        var outcome: String?
        producer.startWithResult { result in
            switch result {
            case .success: outcome = "completed"
            case .failure(let error): outcome = "failed: \(error)"
            }
        }
        // A write on .main completes inside start(); the table hears of it when main's Store delivers.
        try Transcript.wait(for: label) { outcome != nil && sync.tableMatchesStore() }
        Transcript.say("\(label): \(outcome!)")
    }

    let plants = Todo(RemoteTodo(id: "5", title: "Water plants"))
    try perform("add on .main", plants.reactive.add(to: store, on: .main))
    try perform("update on .background", plants.reactive.update(in: store, on: .background) { $0.done = true })
    Transcript.say("main reads the background's change: done = \(plants.done)")
    let rent = Todo(RemoteTodo(id: "6", title: "Pay rent"))
    try perform("add on .background", rent.reactive.add(to: store, on: .background))
    Transcript.say("the added object is managed by main's Store now: \(rent.isManaged && rent.store == store)")
    try perform("update on .main", rent.reactive.update(in: store, on: .main) { $0.title = "Pay the rent" })
    try perform("remove on .background", plants.reactive.remove(from: store, on: .background))
    try perform("remove on .main", rent.reactive.remove(from: store, on: .main))
    Transcript.say("table rows equal the store's, in title order: \(sync.tableMatchesStore())")
}
