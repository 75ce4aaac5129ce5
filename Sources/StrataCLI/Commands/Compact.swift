#if CLI
    import ArgumentParser
    import Foundation
    import Strata

    /// `strata compact PATH [--to OUT]`: a copy without free pages, in place or to a new file.
    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rewrite a file without its free pages, in place or to a new file.",
            discussion: """
                In place, the file must not be open in any process (exit status 2 otherwise): use --to \
                to compact a file in use. The original is replaced only once the copy is complete.
                """)

        @Argument(help: "The store file.") var path: String

        @OptionGroup var key: KeyFileOption
        @Option(name: .customLong("to"), help: "Write the compacted copy here (a new file) and leave PATH as it is.")
        var destination: String?
        @Option(
            help: "When to draw a progress bar on stderr: auto (a terminal, runs over half a second), always, never.")
        var progress: ProgressMode = .auto

        func run() throws {
            var source: DynamicStore? = try openStore(path, key: key)
            let usedBytes = try reportingFailures(of: path) { () throws(StoreError) in
                try source!.diagnostics().usedBytes
            }
            let before = fileSize(path)
            // LMDB copies without reporting progress: watch the copy grow towards the used size instead.
            let copyPath = destination ?? URL(fileURLWithPath: path).resolvingSymlinksInPath().path + ".compacting"
            let bar = ProgressBar("compact", unit: "bytes", mode: progress)
            let watcher = DispatchSource.makeTimerSource(queue: .global())
            watcher.schedule(deadline: .now(), repeating: .milliseconds(100))
            watcher.setEventHandler { bar.update(min(fileSize(copyPath), usedBytes), of: usedBytes) }
            watcher.resume()
            defer { watcher.cancel() }
            let after: Int
            if let destination {
                after = try reportingFailures(of: destination) { () throws(StoreError) in
                    try source!.writeCopy(to: URL(fileURLWithPath: destination), compact: true)
                    return fileSize(destination)
                }
            } else {
                source = nil  // in-place compaction needs the file closed in this process
                let encryptionKey = try key.read()
                do {
                    after = try DynamicStore.compactFile(atPath: path, encryptionKey: encryptionKey).bytesAfter
                } catch .fileAccess(_, EBUSY) {
                    Output.error("strata: \(path) is open in another process: compact a copy with --to OUT instead")
                    throw Failure.failed
                } catch {
                    throw Failure.report(error, path: path)
                }
            }
            watcher.cancel()
            bar.finish(usedBytes)
            let target = destination ?? path
            Output.line("compacted: \(target): \(Output.grouped(after)) bytes (from \(Output.grouped(before)))")
            Output.flush()
        }
    }

    func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
#endif
