import Foundation

/// What the measurements ran on, for the report.
enum Machine {
    static func describe(directory: String) -> String {
        let cpu =
            firstLine(of: "/proc/cpuinfo", startingWith: "model name").map {
                $0.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? $0
            } ?? "unknown CPU"
        let memory =
            firstLine(of: "/proc/meminfo", startingWith: "MemTotal").map {
                $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }
                    .map { String(format: "%.0f GiB", $0 / 1_048_576) } ?? "?"
            } ?? "?"
        let kernel =
            (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        let swift = run("/usr/bin/env", ["swift", "--version"])?.split(separator: "\n").first.map(String.init) ?? "?"
        let filesystem =
            run("/usr/bin/env", ["stat", "-f", "-c", "%T", directory])?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) RAM; Linux \(kernel); "
            + "\(swift); stores on \(filesystem) (\(directory))"
    }

    private static func firstLine(of file: String, startingWith prefix: String) -> String? {
        (try? String(contentsOfFile: file, encoding: .utf8))?.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .map(String.init)
    }

    static func run(_ executable: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
