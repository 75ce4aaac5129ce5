#if CLI
    import ArgumentParser
    import Foundation
    import Strata

    /// `strata query PATH TYPE QUERY [--format json|table] [--limit N] [--arg V …]`: the objects a
    /// query of the string language finds.
    struct QueryCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "query",
            abstract: "Print the objects of a type that satisfy a query (Realm Query Language's syntax).",
            discussion: """
                The query is what Results.where(_:_:) takes: comparisons, BEGINSWITH/ENDSWITH/CONTAINS/LIKE \
                with [c] and [d], BETWEEN, IN, AND/OR/NOT, key paths through links, ANY/ALL/NONE, @count, \
                @sum, @avg, @min, @max, SUBQUERY, and the SORT(…), DISTINCT(…) and LIMIT(n) clauses. \
                --arg gives $0, $1… in order, each read as an integer, a number, true/false, or else text \
                (never spliced into the query). Output as for dump.
                """)

        @Argument(help: "The store file.") var path: String

        @OptionGroup var key: KeyFileOption
        @Argument(help: "The type to query.") var typeName: String
        @Argument(help: "The query, e.g. \"age > 30 SORT(name ASC) LIMIT(10)\".") var query: String
        @Option(help: "json or table.") var format: Dump.Format = .json
        @Option(help: "At most this many objects.") var limit: Int?
        @Option(name: .customLong("arg"), help: "An argument: $0 for the first, $1 for the next…") var arguments:
            [String] = []

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() throws {
            let store = try openStore(path, key: key)
            guard let type = store.types.first(where: { $0.name == typeName }) else {
                Output.error(
                    "strata: \(path) has no type \(typeName); it has \(store.types.map(\.name).joined(separator: ", "))"
                )
                throw Failure.failed
            }
            let values: [any Sendable] = arguments.map(Self.argument)
            let found = try reportingFailures(of: path) { () throws(StoreError) in
                try store.objects(ofType: typeName, where: query, arguments: values)
            }
            let objects = Array(found.prefix(limit ?? .max))
            switch format {
            case .json: JSONDump.write(objects, of: type)
            case .table: TableDump.write(objects, of: type)
            }
            Output.flush()
        }

        /// An argument's text as the value it reads as.
        static func argument(_ text: String) -> any Sendable {
            if let integer = Int(text) { return integer }
            if let number = Double(text) { return number }
            if text == "true" || text == "false" { return text == "true" }
            return text
        }
    }
#endif
