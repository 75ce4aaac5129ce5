#if CLI
    import ArgumentParser
    import Foundation
    import Strata

    /// `strata stat PATH`: size, use, versions, objects per type, and the readers that pin old versions.
    struct Stat: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a file's size and use, its versions, object counts, and the readers that pin old versions.")

        @Argument(help: "The store file.") var path: String

        @OptionGroup var key: KeyFileOption

        func run() throws {
            let store = try openStore(path, key: key)
            let report = try reportingFailures(of: path) { () throws(StoreError) in try store.diagnostics() }
            let counts = try reportingFailures(of: path) { () throws(StoreError) in
                try store.types.map { (type) throws(StoreError) in (type.name, try store.count(ofType: type.name)) }
            }
            let free = report.fileBytes - report.usedBytes
            let usedPercent = report.fileBytes > 0 ? report.usedBytes * 100 / report.fileBytes : 0
            Output.line("path:            \(store.path)")
            Output.line("file size:       \(Output.grouped(report.fileBytes)) bytes")
            Output.line(
                "used:            \(Output.grouped(report.usedBytes)) bytes (\(usedPercent)%), \(Output.grouped(free)) free"
            )
            Output.line("latest version:  \(report.latestVersion)")
            Output.line("schema version:  \(store.schemaVersion)")
            Output.line(
                "objects:         "
                    + (counts.isEmpty
                        ? "no types" : counts.map { "\($0.0) \(Output.grouped($0.1))" }.joined(separator: ", ")))
            let pinning = report.readers.filter { $0.version != nil }
            if report.readers.isEmpty {
                Output.line("readers:         none")
            } else {
                let oldest =
                    report.oldestPinnedVersion.map {
                        "; oldest pinned version \($0) (\(report.latestVersion - $0) behind)"
                    } ?? ""
                Output.line("readers:         \(report.readers.count) slots in use, \(pinning.count) reading\(oldest)")
                for reader in report.readers {
                    let who = "process \(reader.processID) (\(Self.processName(reader.processID)))"
                    guard let version = reader.version else {
                        Output.line("  \(who): an idle slot, pins nothing")
                        continue
                    }
                    let behind = report.latestVersion - version
                    let pins =
                        behind > 0
                        ? "\(behind) versions behind: pins the pages freed since version \(version)"
                        : "reads the latest version"
                    Output.line("  \(who), thread \(String(reader.thread, radix: 16)): version \(version), \(pins)")
                }
            }
            Output.flush()
        }

        /// The command name of a process, or `gone` for a slot a dead process left (cleared at the next open).
        static func processName(_ pid: Int32) -> String {
            guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return "gone" }
            return name.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
#endif
