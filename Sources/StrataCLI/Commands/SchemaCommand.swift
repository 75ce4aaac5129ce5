#if CLI
    import ArgumentParser
    import Strata

    /// `strata schema PATH`: the stored types and their properties, as the file records them.
    struct SchemaCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schema",
            abstract: "Print the schema stored in a file: types, properties, keys, indexes and links.")

        @Argument(help: "The store file.") var path: String

        @OptionGroup var key: KeyFileOption

        func run() throws {
            let store = try openStore(path, key: key)
            Output.line("schema version \(store.schemaVersion), \(store.types.count) types")
            for type in store.types {
                Output.line()
                Output.line(
                    type.name
                        + (type.primaryKey.map { " (primary key \($0.name))" } ?? " (no primary key: keyed by row id)"))
                let nameWidth = type.properties.map(\.name.count).max() ?? 0
                let typeWidth = type.properties.map(\.typeName.count).max() ?? 0
                for property in type.properties {
                    var notes: [String] = []
                    if property.isPrimaryKey { notes.append("primary key") }
                    if property.isUnique {
                        notes.append("unique")
                    } else if property.isIndexed {
                        notes.append("indexed")
                    }
                    if property.hasFullTextIndex { notes.append("full-text indexed") }
                    if let dimensions = property.vectorDimensions, let metric = property.vectorMetric {
                        notes.append("vector indexed (\(dimensions) dimensions, \(metric.rawValue))")
                    }
                    if let target = property.linkedTypeName { notes.append("links to \(target)") }
                    let line =
                        "  \(property.name.rightPadded(to: nameWidth))  \(property.typeName.rightPadded(to: typeWidth))"
                    Output.line(notes.isEmpty ? line : line + "  " + notes.joined(separator: ", "))
                }
                for group in type.uniqueKeys {
                    Output.line("  unique together: \(group.joined(separator: ", "))")
                }
            }
            Output.flush()
        }
    }
#endif
