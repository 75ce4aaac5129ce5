#if CLI
    import ArgumentParser
    import Strata

    /// `strata dump PATH [--type T] [--format json|table]`: the objects, read from the stored schema.
    struct Dump: ParsableCommand {
        enum Format: String, CaseIterable, ExpressibleByArgument {
            case json, table
        }

        static let configuration = CommandConfiguration(
            abstract: "Print the objects of a file, as JSON or as tables.",
            discussion: """
                JSON: one object whose keys are type names, each an array of objects in primary key order. \
                Links are the target's primary key; Data is base64; dates are ISO 8601 in UTC \
                (2026-11-23T12:00:00.000Z); types without a primary key add "_rowID". Embedded objects \
                appear inside their owner (their own type is listed only when --type names it). Tables \
                print as they read: column widths come from the first \(TableDump.sampleRows) rows.
                """)

        @Argument(help: "The store file.") var path: String

        @OptionGroup var key: KeyFileOption
        @Option(name: .customLong("type"), help: "Dump only this type.") var typeName: String?
        @Option(help: "json or table.") var format: Format = .json
        @Option(help: "At most this many objects of each type.") var limit: Int?

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() throws {
            let store = try openStore(path, key: key)
            let types = store.types.filter { typeName == nil ? !$0.isEmbedded : $0.name == typeName }
            if let typeName, types.isEmpty {
                Output.error(
                    "strata: \(path) has no type \(typeName); it has \(store.types.map(\.name).joined(separator: ", "))"
                )
                throw Failure.failed
            }
            try reportingFailures(of: path) { () throws(StoreError) in
                switch format {
                case .json: try JSONDump.write(types, of: store, limit: limit ?? .max)
                case .table: try TableDump.write(types, of: store, limit: limit ?? .max)
                }
            }
            Output.flush()
        }
    }
#endif
