// strata-demo: a small todo app's data layer, end to end, printed as a transcript.
//
//   swift run strata-demo            a store in a temporary directory, removed afterwards
//   swift run strata-demo DIRECTORY  the store stays in DIRECTORY (inspect it with `strata stat`)
import Foundation
import Strata
import StrataExamples

func runDemo() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    let keep = !arguments.isEmpty
    let directory =
        arguments.first.map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(getpid())")
    defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let removed = try removeEarlierRun(in: directory)
        let configuration = Store.Configuration(
            fileURL: directory.appendingPathComponent("todos.strata"),
            objectTypes: [Todo.self, Project.self, ContactCard.self])
        let store = try Store(configuration: configuration)  // the main thread's Store
        print("Strata demo: a todo app's data layer, with its store at \(configuration.fileURL!.path)")
        if removed > 0 { print("(started afresh: removed \(removed) files of an earlier run in that directory)") }

        let sync = SyncScenario(store: store)
        try sync.run()
        try runHandoff(sync, configuration: configuration)
        try runReactiveWrites(sync)
        try runQueries(sync)
        let errors = ErrorsScenario(store: store, configuration: configuration, directory: directory)
        try errors.run()
        try runMigration(store, directory: directory)
        try runPool(directory: directory)
        try runModel(store)

        Transcript.step("10. The file, as the strata command sees it")
        let file = try DynamicStore(path: configuration.fileURL!.path)
        let report = try file.diagnostics()
        try file.verify()
        Transcript.say(
            "types: \(file.types.map(\.name).joined(separator: ", ")); todos: \(try file.count(ofType: "Todo"))")
        Transcript.say(
            "file \(report.fileBytes) bytes, \(report.usedBytes) used, version \(report.latestVersion); verify: ok")
        print(
            "\nDone.\(keep ? " The store stays in \(directory.path): try `swift run strata stat \(configuration.fileURL!.path)`." : "")"
        )
        return 0
    } catch {
        print("\nstrata-demo failed: \(error)")
        return 1
    }
}

/// The files a run leaves in its directory (the store, the error step's, the migrated copy): a second
/// run in the same directory starts from nothing, as the first did. Returns how many it removed.
func removeEarlierRun(in directory: URL) throws -> Int {
    let names = ["todos", "truncated", "small", "read-only", "readers", "next-version", "pool"]
    var removed = 0
    for name in names {
        for suffix in [".strata", ".strata-lock"] {
            let file = directory.appendingPathComponent(name + suffix)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            try FileManager.default.removeItem(at: file)
            removed += 1
        }
    }
    return removed
}

exit(runDemo())
