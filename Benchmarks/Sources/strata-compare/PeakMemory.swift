import Foundation
import Workloads

/// Peak resident memory of one measurement, taken in a child process (the process-wide peak of this
/// one would mix every workload).
enum PeakMemory {
    /// The child's peak RSS in bytes.
    static func measure(workload: String, system: System, count: Int, directory: String) throws -> Int {
        let executable = CommandLine.arguments[0]
        let arguments = [executable, "--child", "\(workload):\(system.rawValue):\(count)", "--dir", directory]
        var pid: pid_t = 0
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        guard posix_spawn(&pid, executable, nil, nil, cArguments, environ) == 0 else {
            throw WorkloadFailure("cannot start \(executable)")
        }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid, status == 0 else {
            throw WorkloadFailure("the \(workload) child for \(system) failed (status \(status))")
        }
        return usage.ru_maxrss * 1024  // Linux reports KiB
    }

    /// Runs the child's single measurement.
    static func runChild(workload: String, system: String, count: Int, directory: String) throws {
        guard let spec = WorkloadSpec.all.first(where: { $0.id == workload }),
            let system = System(rawValue: system)
        else { throw WorkloadFailure("unknown child workload \(workload) \(system)") }
        _ = try Runner.measure(spec, system: system, count: count, in: URL(fileURLWithPath: directory))
    }
}
