import Foundation
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `strata-stress` helper process (Tests/StrataStress), built beside the test binary.
final class StressProcess {
    static var executable: URL { executableBesideTests("strata-stress") }

    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()

    /// Starts the helper with `arguments`, and `environment` added to this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// The next line of its output, or nil once it has exited and said everything.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { return nil }
            buffer += chunk
        }
    }

    /// Every line it writes until it exits.
    func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    /// SIGKILL: no cleanup runs, as in a crash or a power cut of the process.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for it to exit; returns its exit status and what it wrote on stderr.
    @discardableResult
    func wait() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stderr)
    }
}
