#if CLI
    @_spi(StrataTools) import Strata

    /// `dump --format table`: per type, a header and aligned columns (long cells cut with `…`), printed
    /// as the rows are read: the column widths come from the first `sampleRows` rows (a longer cell
    /// later widens its own line only), so the first lines appear at once however large the file.
    enum TableDump {
        static let maximumCellWidth = 40
        static let sampleRows = 200

        static func write(_ types: [DynamicObjectType], of store: DynamicStore, limit: Int) throws(StoreError) {
            for (position, type) in types.enumerated() {
                if position > 0 { Output.line() }
                let count = min(try store.count(ofType: type.name), limit)
                Output.line("\(type.name): \(Output.grouped(count)) objects")
                let header = type.properties.map(\.name)
                var sample: [[String]] = []
                var widths: [Int]?
                func line(_ cells: [String], _ widths: [Int]) -> String {
                    var text = zip(cells, widths).map { $0.rightPadded(to: $1) }.joined(separator: "  ")
                    while text.last == " " { text.removeLast() }
                    return text
                }
                func start(with rows: [[String]]) -> [Int] {
                    let widths = header.indices.map { column in
                        ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
                    }
                    Output.line(line(header, widths))
                    Output.line(line(widths.map { String(repeating: "-", count: $0) }, widths))
                    for row in rows { Output.line(line(row, widths)) }
                    Output.flush()  // the first lines, now
                    return widths
                }
                try store.forEachObject(ofType: type.name, limit: limit) { object in
                    let row = object.values.map { cell($0.value) }
                    if let widths {
                        Output.line(line(row, widths))
                    } else {
                        sample.append(row)
                        if sample.count == sampleRows { widths = start(with: sample) }
                    }
                }
                if widths == nil { _ = start(with: sample) }
            }
        }

        /// `query --format table`: the objects found, under a header.
        static func write(_ objects: [DynamicObject], of type: DynamicObjectType) {
            let header = type.properties.map(\.name)
            let rows = objects.map { $0.values.map { cell($0.value) } }
            let widths = header.indices.map { column in
                ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
            }
            func line(_ cells: [String]) -> String {
                var text = zip(cells, widths).map { $0.rightPadded(to: $1) }.joined(separator: "  ")
                while text.last == " " { text.removeLast() }
                return text
            }
            Output.line("\(type.name): \(Output.grouped(objects.count)) objects")
            Output.line(line(header))
            Output.line(line(widths.map { String(repeating: "-", count: $0) }))
            for row in rows { Output.line(line(row)) }
        }

        static func cell(_ value: Any?) -> String {
            let text: String =
                switch value {
                case let link as DynamicLink: link.description
                case let mixed as AnyValue: cell(mixed.unwrapped)
                case let array as [Any]: "[" + array.map { cell($0) }.joined(separator: ", ") + "]"
                case let map as [String: Any]:
                    "["
                        + map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                        .map { "\($0): \(cell(map[$0] ?? nil))" }.joined(separator: ", ") + "]"
                default: DynamicObject.describe(value)
                }
            let flat = text.replacingOccurrences(of: "\n", with: "\\n")
            return flat.count > maximumCellWidth ? String(flat.prefix(maximumCellWidth - 1)) + "…" : flat
        }
    }
#endif
