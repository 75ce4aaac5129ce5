import Strata

/// `dump --format table`: per type, a header and aligned columns (long cells cut with `…`).
enum TableDump {
    static let maximumCellWidth = 40

    static func write(_ types: [DynamicObjectType], of store: DynamicStore) throws(StoreError) {
        for (position, type) in types.enumerated() {
            if position > 0 { Output.line() }
            var rows: [[String]] = []
            try store.forEachObject(ofType: type.name) { object in
                rows.append(object.values.map { cell($0.value) })
            }
            Output.line("\(type.name): \(Output.grouped(rows.count)) objects")
            let header = type.properties.map(\.name)
            let widths = header.indices.map { column in
                ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
            }
            func line(_ cells: [String]) -> String {
                var text = zip(cells, widths).map { $0.rightPadded(to: $1) }.joined(separator: "  ")
                while text.last == " " { text.removeLast() }
                return text
            }
            Output.line(line(header))
            Output.line(line(widths.map { String(repeating: "-", count: $0) }))
            for row in rows { Output.line(line(row)) }
        }
    }

    static func cell(_ value: Any?) -> String {
        let text: String =
            switch value {
            case let link as DynamicLink: link.description
            case let array as [Any]: "[" + array.map { cell($0) }.joined(separator: ", ") + "]"
            default: DynamicObject.describe(value)
            }
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return flat.count > maximumCellWidth ? String(flat.prefix(maximumCellWidth - 1)) + "…" : flat
    }
}
