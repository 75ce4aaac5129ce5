import Foundation
import Testing

/// Runs `strata-demo` (the README's main job) as a process and checks its transcript, step by step.
@Suite(.fixtureChecks) struct DemoTranscriptTests {
    private static func runDemo(_ arguments: [String] = []) throws -> (status: Int32, lines: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .appendingPathComponent("strata-demo")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        )
    }

    /// The lines of the step whose heading starts with `number`.
    private static func step(_ number: Int, in lines: [String]) -> [String] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("== \(number).") }) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("== ") || $0 == "Done." } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    @Test func theDemoRunsEveryStepOfTheScenario() throws {
        let (status, lines) = try Self.runDemo()
        #expect(status == 0, "\(lines.suffix(5))")
        #expect(lines.last == "Done.")
        #expect(!lines.contains { $0.contains("unexpected") || $0.hasSuffix(": false") || $0.contains(": failed:") })
        let headings = lines.filter { $0.hasPrefix("== ") }.map { $0.split(separator: " ")[1] }
        #expect(
            headings == ["1.", "2.", "3.", "4.", "5.", "6.", "7.", "8.", "9.", "10."])

        func has(_ step: [String], _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(step.contains { $0.contains(text) }, "missing: \(text)", sourceLocation: sourceLocation)
        }
        let sync = Self.step(1, in: lines)
        has(sync, "table: initial state from the store, 0 rows")
        has(
            sync,
            "table: batch 1: deleted [], inserted [0, 1, 2], reloaded [] -> [ ] Buy milk, [ ] Call Bo, [ ] Fix the bike"
        )
        has(sync, "first sync done: 3 todos stored, fetched 1 time(s)")

        /// Whether `first` comes before `then` in `step` (each table update after the action causing it).
        func ordered(
            _ step: [String], _ first: String, _ then: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let a = step.firstIndex { $0.contains(first) }
            let b = step.firstIndex { $0.contains(then) }
            #expect(a != nil, "\(first) before \(then)", sourceLocation: sourceLocation)
            #expect(b != nil, "\(first) before \(then)", sourceLocation: sourceLocation)
            #expect(a! < b!, "\(first) before \(then)", sourceLocation: sourceLocation)
        }
        ordered(sync, "first sync: three todos from the network", "table: batch 1:")

        let batches = Self.step(2, in: lines)
        ordered(batches, "second sync: one todo changed, one added", "table: batch 2:")
        has(batches, "table: batch 2: deleted [], inserted [0], reloaded [0] -> [ ] Answer Al, [x] Buy milk")
        has(batches, "sync failed: remote(\"offline\"); the screen keeps its 4 rows and stays live")
        has(batches, "table rows equal the store's, in title order: true")

        let handoff = Self.step(3, in: lines)
        has(handoff, "worker: resolved \"Buy milk\" in its own Store and renamed it to \"Buy oat milk\"")
        has(handoff, "reloaded [1] -> [ ] Answer Al, [x] Buy oat milk")
        has(handoff, "main: the same object now reads \"Buy oat milk\"")

        let writes = Self.step(4, in: lines)
        for write in [
            "add on .main", "update on .background", "add on .background", "update on .main",
            "remove on .background", "remove on .main",
        ] {
            has(writes, "\(write): completed")
            ordered(writes, "\(write) …", "\(write): completed")
        }
        ordered(writes, "add on .main …", "table: batch 5:")
        has(writes, "main reads the background's change: done = true")
        has(writes, "the added object is managed by main's Store now: true")
        has(writes, "table rows equal the store's, in title order: true")

        let queries = Self.step(5, in: lines)
        has(queries, "where { !$0.done && $0.title.starts(with: \"A\") } -> [\"Answer Al\"]")
        has(queries, "plan: scan Todo row by row, then test (!(done == true) && title BEGINSWITH \"A\")")
        has(queries, "plan: primary key Todo.id: 2 ranges")
        has(
            queries,
            "sorted(by: \\.title, ascending: false) -> [\"Fix the bike\", \"Call Bo\", \"Buy oat milk\", \"Answer Al\"]"
        )
        has(queries, "the project's inverse link finds them: [\"Measure the window\", \"Buy paint\"]")
        has(queries, "the inverse link is live: [\"Measure the window\"]")

        let errors = Self.step(6, in: lines)
        ordered(errors, "another thread deletes", "table: batch 10: deleted [2]")
        for name in [
            "wrongThread", "deletedInAnotherThread", "invalidated", "alreadyExists", "notInWriteTransaction",
            "alreadyInWriteTransaction", "notManaged", "alreadyResolved", "migrationRequired", "schemaMismatch",
            "corrupted", "fileAccess", "mapFull", "readOnly", "invalidArgument", "encryption", "storage",
        ] {
            #expect(errors.filter { $0.contains("-> .\(name):") }.count == 1, "\(name) shown once")
        }
        has(errors, "the small store holds 0 todos and works on: true")
        has(errors, "freeing them makes the next one work: true")
        has(errors, "and store.verify() passes")
        has(errors, "StoreError cases shown: 17 of 17")

        let migration = Self.step(7, in: lines)
        has(migration, "migrated from version 0 to 1: 2 open todos got a due date: [\"Answer Al\", \"Fix the bike\"]")
        has(migration, "the live file stays at version 0 and still opens with this version's Todo: 3 todos")

        let pool = Self.step(8, in: lines)
        has(
            pool,
            "40 tasks wrote one todo each and read the count after it: 40 writes, 40 reads, none saw fewer than its own"
        )
        has(pool, "a Frozen Results crossed to a detached task: 20 open of 40")

        let model = Self.step(9, in: lines)
        has(model, "tags [\"friend\", \"vip\"] (one \"friend\")")
        has(model, "the Map's notification names keys: deleted [], inserted [\"work\"], modified [\"home\"]")
        has(model, "balance 19.99 + 0.01 = 20.00 (exact); addresses stored: 1, in Bergen")
        has(model, "address.city == \"Bergen\" } -> 1")
        has(model, "where { preference.type == .map } -> 1")
        has(model, "a second card with the same email -> ")

        let file = Self.step(10, in: lines)
        has(file, "types: ContactCard, PostalAddress, Project, ProjectNote, Todo; todos: 3")
        has(file, "verify: ok")

        // The store lived in a temporary directory, removed at the end.
        let storePath = try #require(lines.first?.components(separatedBy: "store at ").last)
        #expect(
            !FileManager.default.fileExists(atPath: URL(fileURLWithPath: storePath).deletingLastPathComponent().path))
    }

    @Test func theDemoRunsTwiceInOneDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-demo-twice-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.runDemo([directory.path])
        #expect(first.status == 0, "\(first.lines.suffix(3))")
        #expect(first.lines.last?.hasPrefix("Done.") == true, "\(first.lines.suffix(3))")
        // The second run found the first's store: it reported .alreadyExists and "14 of 15" before.
        let second = try Self.runDemo([directory.path])
        #expect(second.status == 0, "\(second.lines.suffix(3))")
        #expect(second.lines.last?.hasPrefix("Done.") == true, "\(second.lines.suffix(3))")
        #expect(second.lines.contains { $0.hasPrefix("(started afresh: removed") })
        #expect(second.lines.contains { $0.contains("StoreError cases shown: 17 of 17") })
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("todos.strata").path))
    }
}
