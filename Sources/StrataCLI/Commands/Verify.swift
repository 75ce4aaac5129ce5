#if CLI
    import ArgumentParser
    import Strata

    extension ProgressMode: ExpressibleByArgument {}

    /// `strata verify PATH`: every page, row, index and link; the exit status is the verdict.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every page, row, index and link of a file.",
            discussion:
                "Exit status 0: the file is sound. 1: it is damaged (stderr names the type, key and damage). 2: it cannot be read."
        )

        @Argument(help: "The store file.") var path: String

        @OptionGroup var key: KeyFileOption
        @Option(
            help: "When to draw a progress bar on stderr: auto (a terminal, runs over half a second), always, never.")
        var progress: ProgressMode = .auto

        func run() throws {
            let store = try openStore(path, key: key)
            let bar = ProgressBar("verify", unit: "rows", mode: progress)
            var rows = 0
            var orphans: [String] = []
            try reportingFailures(of: path) { () throws(StoreError) in
                orphans = try store.verify { report in
                    rows = report.totalRows
                    bar.update(report.checkedRows, of: report.totalRows)
                }.orphans
            }
            bar.finish(rows)
            // Not damage (the exit status stays 0): objects an owner dropped from an owning link
            // without deleting them.
            for orphan in orphans { Output.line("orphan (no owning link holds it): \(orphan)") }
            Output.line(
                "ok: \(store.path): \(store.types.count) types, \(Output.grouped(rows)) objects; every page, row, index and link checked"
            )
            Output.flush()
        }
    }
#endif
