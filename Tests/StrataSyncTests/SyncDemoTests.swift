#if Sync
    import Foundation
    import StrataTestSupport
    import Testing

    /// `make demo-sync` runs this executable: it must get to its end on any machine the tests run on.
    @Suite("strata-sync-demo", .fixtureChecks)
    struct SyncDemoTests {
        @Test("the two-device scene runs to its end against the private PostgreSQL it starts and stops")
        func demoRuns() async throws {
            let executable = executableBesideTests("strata-sync-demo")
            let output = FileManager.default.temporaryDirectory.appendingPathComponent(
                "sync-demo-\(UUID().uuidString).out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: output) }
            let process = Process()
            process.executableURL = executable
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            process.standardInput = FileHandle.nullDevice
            try process.run()
            while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
            let transcript = try String(contentsOf: output, encoding: .utf8)
            #expect(process.terminationStatus == 0, "\(transcript)")
            #expect(
                transcript.contains("  laptop: #1 Buy almond milk (priority 2) | #3 Book flights (priority 3, done)"))
            #expect(transcript.contains("  1|Buy almond milk|f|2"))
            #expect(transcript.contains("Both devices hold the same 502 todos, as the server does."))
            #expect(transcript.contains("  bob-laptop:  #2 Eggs [alice, list groceries]\n"))
            #expect(transcript.contains("refused: insert of ListItem 1: the object belongs to another user"))
            #expect(transcript.contains("  the server's item 1 is still \"Alice's diary\""))
            #expect(transcript.contains("strata.changes holds 0 rows after the trim"))
            #expect(transcript.contains("  bob-watch (new, no subscription): []"))
            #expect(
                transcript.contains(
                    "  bob-watch: #2 Eggs [alice, list groceries] | #3 Bread [bob, list groceries]\n"))
            #expect(
                transcript.contains(
                    "  bob-watch:  #3 Bread [bob, list groceries] | #4 Milk [alice, list groceries]\n"))
            #expect(
                transcript.contains(
                    "  bob-laptop: #1 Bob was here [bob] | #3 Bread [bob, list groceries] | #4 Milk [alice, list groceries]\n"
                ))
            #expect(transcript.contains("unsubscribed: bob-watch holds []; the server still has 4 items"))
            #expect(transcript.hasSuffix("stopped and removed the private PostgreSQL\nDone.\n"))
        }
    }
#endif
