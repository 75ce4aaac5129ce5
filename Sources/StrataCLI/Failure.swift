#if CLI
    import ArgumentParser
    import Foundation
    import Strata

    /// How `strata` ends when it cannot do what was asked: one line on stderr, and an exit status that
    /// says why (see the root command's help).
    enum Failure {
        static let damaged = ExitCode(1)
        static let failed = ExitCode(2)

        /// Writes `strata: <path>: <message>` on stderr and returns the exit code for `error`.
        static func report(_ error: StoreError, path: String) -> ExitCode {
            let message = error.localizedDescription
            Output.error("strata: " + (message.contains(path) ? message : "\(path): \(message)"))
            if case .corrupted = error { return damaged }
            return failed
        }
    }

    /// Runs a command's body on the file at `path`, turning a `StoreError` into a reported exit code.
    func reportingFailures<R>(of path: String, _ body: () throws(StoreError) -> R) throws(ExitCode) -> R {
        do {
            return try body()
        } catch {
            throw Failure.report(error, path: path)
        }
    }

    /// Opens `path` for a command, turning failures into a reported exit code.
    func openStore(_ path: String) throws(ExitCode) -> DynamicStore {
        try reportingFailures(of: path) { () throws(StoreError) in try DynamicStore(path: path) }
    }
#endif
