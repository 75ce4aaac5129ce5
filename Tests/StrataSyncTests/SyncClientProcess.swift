#if Sync
    import Foundation
    @_spi(StrataSync) import Strata
    import StrataTestSupport

    #if canImport(Glibc)
        import Glibc
    #endif

    /// A `strata-sync-client` process (Tests/StrataSyncClient), built beside the test binary. Its output
    /// goes to a file (never a pipe a killed client could leave half-read).
    final class SyncClientProcess {
        static var executable: URL { executableBesideTests("strata-sync-client") }

        private let process = Process()
        private let outputFile: URL
        private let errorFile: URL

        /// Starts a client in `mode` on `file`, against `scene`'s server.
        init(_ mode: String, file: URL, scene: SyncScene, options: [String: String] = [:]) throws {
            outputFile = file.deletingLastPathComponent().appendingPathComponent("client-\(UUID().uuidString).out")
            errorFile = outputFile.appendingPathExtension("err")
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            process.executableURL = Self.executable
            var arguments = [
                mode, "--file", file.path, "--port", "\(scene.cluster.port)", "--database", scene.database,
                "--ca", scene.cluster.certificateAuthorityFile,
            ]
            for (name, value) in options.sorted(by: { $0.key < $1.key }) { arguments += ["--\(name)", value] }
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: outputFile)
            process.standardError = try FileHandle(forWritingTo: errorFile)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            if process.isRunning { kill() }
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }

        var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }
        var lines: [Substring] { output.split(separator: "\n") }

        /// SIGKILL: no cleanup runs, as in a crash.
        func kill() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Waits for it to exit (suspended); returns its exit status.
        func exitStatus() async -> Int32 {
            while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
            return process.terminationStatus
        }
    }

    /// The `SyncItem`s of the file at `url`, read by a Store of this thread (opened and closed here).
    func itemsInFile(_ url: URL) throws -> [ItemState] {
        let store = try Store(
            configuration: Store.Configuration(fileURL: url, objectTypes: [SyncItem.self, SyncOwner.self]))
        return store.objects(SyncItem.self).sorted(by: \.id).map(ItemState.init)
    }

    /// The outbox and pull position of the file at `url`.
    func syncStatusOfFile(_ url: URL) throws -> (pending: Int, position: Int64) {
        let store = try Store(
            configuration: Store.Configuration(fileURL: url, objectTypes: [SyncItem.self, SyncOwner.self]))
        return (try store.capturedChanges().count, try store.syncPosition())
    }
#endif
