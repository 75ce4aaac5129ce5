/// One group of `Object.uniqueKeys` as stored: its columns, and the index of the first one, which
/// finds the rows that may hold the same values.
struct UniqueGroup: Sendable {
    let columns: [Int]
    let properties: [String]
    let types: [PropertyType]
    /// The index of `columns[0]`.
    let index: IndexBinding

    /// The group `names` of `type`, bound to its columns and the first one's index.
    ///
    /// - Throws: `.corrupted` when the file's schema names a property or index it lacks.
    init(_ names: [String], of type: StoredSchema.StoredType, indexes: [IndexBinding]) throws(StoreError) {
        var columns: [Int] = []
        for name in names {
            guard let column = type.column(named: name) else {
                throw .corrupted("\(type.name): uniqueKeys name \(name), which the schema lacks")
            }
            columns.append(column)
        }
        guard let first = columns.first, let index = indexes.first(where: { $0.column == first }) else {
            throw .corrupted("\(type.name): uniqueKeys \(names) lack the index of their first property")
        }
        self.columns = columns
        properties = names
        types = columns.map { type.properties[$0].type }
        self.index = index
    }

    /// How a clash names the group: `"flight, seat"`.
    var name: String { properties.joined(separator: ", ") }

    /// The values of the group's columns in `row` as one comparable byte string, or nil when any is
    /// nil (nil is no value, as in SQL). Values compare as queries do: by index key (so `Decimal128`
    /// 1 and 1.00 are one value), strings by all their bytes (an index key keeps only a prefix).
    func fingerprint(of row: RowView) throws(RowDamage) -> [UInt8]? {
        var result: [UInt8] = []
        var key: [UInt8] = []
        for (column, type) in zip(columns, types) {
            guard let bytes = try row.column(column) else { return nil }
            if type.unwrapped == .string {
                key = Array(bytes)
            } else {
                try KeyEncoding.indexKey(column: bytes, type: type, into: &key)
            }
            withUnsafeBytes(of: UInt32(key.count).littleEndian) { result.append(contentsOf: $0) }
            result.append(contentsOf: key)
        }
        return result
    }

    /// The group's values in `row` as a clash shows them: `"LH400, 12A"`.
    func shownValues(of row: RowView) -> String {
        zip(columns, types).map { column, type in
            guard let bytes = try? row.column(column) else { return "nil" }
            return UniqueGroup.shown(bytes, type: type)
        }.joined(separator: ", ")
    }

    /// A unique value as `.alreadyExists` shows it: decoded when it decodes, its bytes otherwise.
    static func shown(_ bytes: UnsafeRawBufferPointer, type: PropertyType) -> String {
        let decoded = DynamicValue.unwrap(
            (try? DynamicValue.decode(bytes, type: type.unwrapped) { _, _ in nil }) ?? nil)
        return decoded.map { "\($0)" } ?? "\(Array(bytes))"
    }
}
