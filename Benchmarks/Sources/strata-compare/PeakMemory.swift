import Foundation
import Workloads

/// Peak resident memory of one measurement, taken in a child process. The child reports its own
/// high-water mark (`VmHWM`, which belongs to the address space that `exec` starts afresh; the
/// `ru_maxrss` a parent gets from `wait4` survives `exec` and would include the parent's own peak).
enum PeakMemory {
    /// The child's peak RSS in bytes.
    static func measure(workload: String, system: System, count: Int, directory: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--child", "\(workload):\(system.rawValue):\(count)", "--dir", directory]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
            let bytes = Int(line)
        else { throw WorkloadFailure("the \(workload) child for \(system.rawValue) failed") }
        return bytes
    }

    /// Runs the child's single measurement and prints its peak RSS in bytes.
    static func runChild(workload: String, system: String, count: Int, directory: String) throws {
        guard let spec = WorkloadSpec.all.first(where: { $0.id == workload }),
            let system = System(rawValue: system)
        else { throw WorkloadFailure("unknown child workload \(workload) \(system)") }
        // The workload alone: its check (a scan) would add the memory of reading everything back.
        let prepared = try Runner.prepare(spec, system: system, count: count, in: URL(fileURLWithPath: directory))
        try prepared.run()
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
                Int($0)
            })
        else { throw WorkloadFailure("no VmHWM in /proc/self/status") }
        print(kilobytes * 1024)
    }
}
