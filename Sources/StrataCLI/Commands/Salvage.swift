#if CLI
    import ArgumentParser
    import Foundation
    import Strata

    /// `strata salvage DAMAGED --to NEW`: every intact row of a damaged file, copied to a new file.
    struct Salvage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy every intact row of a damaged file into a new file, and report what was lost.",
            discussion: """
                Reads DAMAGED without trusting it (it is never written) and writes NEW with the same \
                schema, every row whose checksum matches, rebuilt indexes and backlinks, and links to lost \
                rows cleared. Prints, per type, the rows saved and the keys lost. Exit status 0 when \
                nothing was lost, 1 when rows were lost (NEW is still written) or nothing could be read.
                """)

        @Argument(help: "The damaged store file.") var path: String
        @Option(name: .customLong("to"), help: "The new file to write (it must not exist).") var destination: String
        @OptionGroup var key: KeyFileOption

        func run() throws {
            let encryptionKey = try key.read()  // an encrypted file's: NEW is encrypted with it too
            let report = try reportingFailures(of: path) { () throws(StoreError) in
                try Store.salvage(
                    from: URL(fileURLWithPath: path), to: URL(fileURLWithPath: destination),
                    encryptionKey: encryptionKey)
            }
            Output.line(
                "salvaged: \(destination): \(Output.grouped(report.savedRows)) rows, as of transaction \(report.transactionID)"
            )
            for line in report.description.split(separator: "\n") { Output.line("  \(line)") }
            Output.flush()
            if !report.isComplete { throw Failure.damaged }
        }
    }
#endif
