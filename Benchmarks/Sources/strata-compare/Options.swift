import Foundation

/// Command-line options (kept dependency-free).
struct Options {
    var scale = 1.0
    var rounds = 3
    var only: Set<String>?
    /// Only these systems (for profiling one of them).
    var systems: Set<String>?
    var docsPath: String?
    var memory = false
    var directory = FileManager.default.temporaryDirectory.path
    /// Child mode: run one measurement and exit (for peak memory).
    var child: (workload: String, system: String, count: Int)?

    static let usage = """
        usage: strata-compare [--scale F] [--rounds N] [--only W1,R2] [--memory] [--dir PATH] [--write-docs PATH]
          --scale F        multiply every workload's count by F (default 1; CI smoke runs use 0.01)
          --rounds N       rounds; each runs every system once per workload, interleaved (default 3)
          --only IDS       run only these workloads
          --systems NAMES  run only these systems, e.g. Strata (for profiling; no ratios then)
          --memory         also measure W1's peak memory, in child processes, at the count and a quarter of it
          --dir PATH       where the temporary stores go (default: the temporary directory)
          --write-docs P   write the table, the machine and the command to P (e.g. ../Docs/Benchmarks.md)
        """

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw WorkloadFailure("\(flag) needs a value\n\(Self.usage)") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--scale":
                guard let scale = Double(try value(argument)), scale > 0 else { throw WorkloadFailure("bad --scale") }
                self.scale = scale
            case "--rounds":
                guard let rounds = Int(try value(argument)), rounds > 0 else { throw WorkloadFailure("bad --rounds") }
                self.rounds = rounds
            case "--only":
                only = Set(try value(argument).uppercased().split(separator: ",").map(String.init))
            case "--systems":
                systems = Set(try value(argument).split(separator: ",").map(String.init))
            case "--write-docs":
                docsPath = try value(argument)
            case "--memory":
                memory = true
            case "--dir":
                directory = try value(argument)
            case "--child":
                let parts = try value(argument).split(separator: ":").map(String.init)
                guard parts.count == 3, let count = Int(parts[2]) else { throw WorkloadFailure("bad --child") }
                child = (parts[0], parts[1], count)
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                throw WorkloadFailure("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}

struct WorkloadFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
