#if CLI
    import ArgumentParser

    /// `strata`: inspect, verify, dump, compact and salvage Strata files without the app that wrote them.
    @main
    struct StrataCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "strata",
            abstract: "Inspect, verify, dump, compact and salvage Strata store files.",
            discussion: """
                Every command opens the file read-only from the schema stored in it, so it works on a file \
                another process is using (except in-place compaction, which needs the file to itself).

                Exit status: 0 success; 1 the file is damaged (or not a Strata file); 2 any other failure \
                (missing file, permissions, file busy); 64 bad arguments.
                """,
            subcommands: [
                Stat.self, SchemaCommand.self, Dump.self, QueryCommand.self, Verify.self, Compact.self, Salvage.self,
            ]
        )
    }
#else
    import Foundation

    /// Built without the CLI trait: says how to build the command.
    @main
    enum StrataCommandUnavailable {
        static func main() {
            FileHandle.standardError.write(
                Data("the strata command needs the CLI trait: swift build --traits CLI\n".utf8))
            exit(2)
        }
    }
#endif
