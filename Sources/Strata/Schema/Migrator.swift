/// The row-level work of a schema change: converting rows to a type's new columns, and rebuilding
/// the tables derived from rows (indexes, backlinks).
extension MigrationContext {
    /// The bytes of each column of `type` for a new object: the model's declared initial values
    /// (links nil, lists of links empty).
    func defaultColumns(of type: StoredSchema.StoredType) throws(StoreError) -> [[UInt8]?] {
        guard let schema = code[type.name] else { throw .corrupted("\(type.name) is not in the code's schema") }
        let sample = schema.type.init()
        var columns: [[UInt8]?] = []
        for property in type.properties {
            guard let index = schema.properties.firstIndex(where: { $0.name == property.name }) else {
                throw .corrupted("\(type.name).\(property.name) is not in the code's schema")
            }
            var encoder = _RowEncoder()
            encoder.beginRow(columns: 1)
            switch property.type {
            case .link: encoder.appendNullColumn()
            case .list(.link), .set(.link), .map(.link):
                encoder.writeListHeader(count: 0)
                encoder.endColumn()
            default: try schema.accessors[index].encodeUnmanagedValue(of: sample, into: &encoder)
            }
            // Encoded just now: reading the column back cannot fail.
            columns.append(encoder.withRow { try? RowView(encoded: $0, columns: 1).column(0).map { Array($0) } } ?? nil)
        }
        withExtendedLifetime(sample) {}
        return columns
    }

    /// Rewrites every row of a type whose columns changed. A column of the same name keeps its value
    /// when its type is the same or wider (`String` → `String?`, `Int32` → `Int`, `Float` → `Double`,
    /// a number → `Decimal128`, a value → `AnyValue`, a `MutableSet` → a `List`, elements or Map
    /// values made optional; an optional made required keeps its values, nil becoming the initial
    /// value); any other gets the model's initial value. Keys do not change.
    func convertRows(from old: StoredSchema.StoredType, to new: StoredSchema.StoredType) throws(StoreError) {
        let defaults = try defaultColumns(of: new)
        let sources = new.properties.map { property in
            old.column(named: property.name).flatMap { column in
                ColumnConversion(from: old.properties[column].type, to: property.type).map { (column, $0) }
            }
        }
        let table = try table(TableName.objects(new.name))
        var encoder = _RowEncoder()
        try forEachOld(table) { (key, value) throws(StoreError) in
            let row = try checkedRow(value, key: key, old)
            encoder.beginRow(columns: new.properties.count)
            for (index, source) in sources.enumerated() {
                if let (oldColumn, conversion) = source {
                    if let bytes = try column(row, oldColumn, of: old), conversion.append(bytes, to: &encoder) {
                        continue
                    }
                    if new.properties[index].type.isOptional {
                        encoder.appendNullColumn()
                        continue
                    }
                }
                if let bytes = defaults[index] {
                    bytes.withUnsafeBytes { encoder.appendColumn(copying: $0) }
                } else {
                    encoder.appendNullColumn()
                }
            }
            try encoder.withRow { (bytes) throws(StoreError) in
                _ = try putRow(table, key: Array(key), row: bytes)
            }
        }
    }

    /// How a column's value carries over to a property of the same name whose type changed.
    enum ColumnConversion {
        /// The same bytes: the same type, or a value made optional (or required: nil takes the default).
        case same
        /// An integer widened: little-endian bytes of one width to a wider one.
        case integer(fromBytes: Int, signed: Bool, toBytes: Int)
        case floatToDouble
        /// A value of this type wrapped in an `AnyValue`.
        case toMixed(PropertyType)
        /// A number of this type as a `Decimal128` (exact for integers; the shortest decimal that
        /// reads back as a Float or Double).
        case toDecimal128(PropertyType)

        /// The conversion from `old` to `new`, or nil when values cannot carry over safely.
        init?(from old: PropertyType, to new: PropertyType) {
            if old == new {
                self = .same
                return
            }
            let (from, to) = (old.unwrapped, new.unwrapped)
            switch (from, to) {
            case _ where from == to && from.isScalar: self = .same
            case (.float, .double): self = .floatToDouble
            case (.set(let element), .list(let same)) where element == same: self = .same  // one format
            case (.list(let element), .list(.optional(let wrapped))) where element == wrapped: self = .same
            case (.map(let value), .map(.optional(let wrapped))) where value == wrapped: self = .same
            case (_, .mixed) where from.isScalar && AnyValue.canWrap(from): self = .toMixed(from)
            case (_, .decimal128) where from.integerWidth != nil || from == .float || from == .double:
                self = .toDecimal128(from)
            default:
                guard let fromWidth = from.integerWidth, let toWidth = to.integerWidth, toWidth > fromWidth,
                    !from.isSignedInteger || to.isSignedInteger
                else { return nil }
                self = .integer(fromBytes: fromWidth, signed: from.isSignedInteger, toBytes: toWidth)
            }
        }

        /// Appends the converted column; false (nothing appended) when the value does not convert.
        func append(_ bytes: UnsafeRawBufferPointer, to encoder: inout _RowEncoder) -> Bool {
            switch self {
            case .same:
                encoder.appendColumn(copying: bytes)
            case .toMixed(let type):
                guard let value = try? DynamicValue.decode(bytes, type: type, link: { _, _ in nil }),
                    let mixed = AnyValue(wrapping: DynamicValue.unwrap(value)),
                    (try? mixed._strataEncodeColumn(into: &encoder)) != nil
                else { return false }
            case .toDecimal128(let type):
                guard
                    let value = DynamicValue.unwrap(try? DynamicValue.decode(bytes, type: type, link: { _, _ in nil }))
                else { return false }
                let number: Decimal128
                switch value {
                case let double as Double: number = Decimal128(double)
                case let float as Float: number = Decimal128(Double(float))
                case let integer as any BinaryInteger:
                    guard let exact = Int(exactly: integer) else { return false }
                    number = Decimal128(exact)
                default: return false
                }
                guard (try? number._strataEncodeColumn(into: &encoder)) != nil else { return false }
            case .floatToDouble where bytes.count == 4:
                let value = Double(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))))
                withUnsafeBytes(of: value.bitPattern.littleEndian) { encoder.appendColumn(copying: $0) }
            case .integer(let fromBytes, let signed, let toBytes) where bytes.count == fromBytes:
                // Little-endian: the low bytes stay, the new high bytes extend the sign (or zero).
                let extending: UInt8 = signed && bytes[fromBytes - 1] & 0x80 != 0 ? 0xFF : 0
                let widened = Array(bytes) + Array(repeating: extending, count: toBytes - fromBytes)
                widened.withUnsafeBytes { encoder.appendColumn(copying: $0) }
            default:
                encoder.appendColumn(copying: bytes)  // a damaged value: verify() reports it
            }
            return true
        }
    }

    /// Empties and refills the indexes and backlinks of `types` from their rows. With `repairingLinks`,
    /// first clears links to objects that no longer exist (deleted by the migration).
    func rebuildDerivedTables(of types: [StoredSchema.StoredType], previous: StoredSchema?, repairingLinks: Bool)
        throws(StoreError)
    {
        for type in types {
            // Empty the derived tables the type has now, and the ones it had before.
            var derived = Set<String>()
            for property in type.properties + (previous?.type(named: type.name)?.properties ?? []) {
                if property.isIndexed { derived.insert(TableName.index(type.name, property.name)) }
                if property.type.linkedTypeName != nil { derived.insert(TableName.backlinks(type.name, property.name)) }
                if property.fullText != nil {
                    derived.insert(TableName.fullTextTerms(type.name, property.name))
                    derived.insert(TableName.fullTextDocuments(type.name, property.name))
                    derived.insert(TableName.fullTextRows(type.name, property.name))
                }
                if property.vector != nil {
                    derived.formUnion(TableName.vectorTables(type.name, property.name, integerKeys: false))
                }
            }
            for name in derived.sorted() {
                if let table = tables[name] { try empty(table) }
            }
        }
        if repairingLinks {
            for type in types { try repairLinks(of: type) }
        }
        for type in types { try fillDerivedTables(of: type) }
        try fullTextChanges.flush(to: self)
    }

    /// Clears links to rows that are gone.
    private func repairLinks(of type: StoredSchema.StoredType) throws(StoreError) {
        let links = type.properties.enumerated().filter { $0.element.type.linkedTypeName != nil }
        guard !links.isEmpty else { return }
        let table = try table(TableName.objects(type.name))
        var last: [UInt8]?
        while true {
            let batch = try pairs(table, after: last, limit: 1024)
            guard let final = batch.last else { return }
            last = final.key
            for (key, value) in batch {
                var changed = false
                var encoder = _RowEncoder()
                try value.withBytes { (bytes) throws(StoreError) in
                    let row = try key.withBytes { (rawKey) throws(StoreError) in
                        try checkedRow(bytes, key: rawKey, type)
                    }
                    encoder.beginRow(columns: type.properties.count)
                    for (index, property) in type.properties.enumerated() {
                        let current = try column(row, index, of: type)
                        guard let target = property.type.linkedTypeName, let current else {
                            encoder.appendColumn(copying: current)
                            continue
                        }
                        let targetTable = try self.table(TableName.objects(target))
                        if property.type.isCollection {
                            var missing: [[UInt8]: Bool] = [:]
                            do {
                                for target in try CollectionLinks.targets(current, type: property.type) {
                                    let key = Array(target)
                                    if missing[key] == nil { missing[key] = try get(targetTable, key: key) == nil }
                                }
                                changed = changed || missing.values.contains(true)
                                try CollectionLinks.appendRewritten(current, type: property.type, into: &encoder) {
                                    missing[Array($0)] == true ? nil : Array($0)
                                }
                            } catch {
                                throw .corrupted("\(type.name).\(property.name): \(error)")
                            }
                        } else if try get(targetTable, key: Array(current)) == nil {
                            changed = true
                            encoder.appendNullColumn()
                        } else {
                            encoder.appendColumn(copying: current)
                        }
                    }
                }
                if changed {
                    try encoder.withRow { (bytes) throws(StoreError) in _ = try putRow(table, key: key, row: bytes) }
                }
            }
        }
    }

    private func fillDerivedTables(of type: StoredSchema.StoredType) throws(StoreError) {
        let stored = try StoredTables(type, in: tables)
        let derived = stored.derived
        guard !derived.isEmpty else { return }
        // Each group's values seen so far (a migration-time check: every row is visited anyway).
        var seenGroupValues = Array(repeating: Set<[UInt8]>(), count: stored.uniqueGroups.count)
        let rows = try table(TableName.objects(type.name))
        var last: [UInt8]?
        var buffer: [UInt8] = []
        while true {
            let batch = try pairs(rows, after: last, limit: 4096)
            guard let final = batch.last else { return }
            last = final.key
            for (key, value) in batch {
                try value.withBytes { (bytes) throws(StoreError) in
                    try key.withBytes { (rowKey) throws(StoreError) in
                        let row = try checkedRow(bytes, key: rowKey, type)
                        try checkUniqueWhileFilling(row, derived: derived, rows: rows, type: type)
                        for (number, group) in stored.uniqueGroups.enumerated() {
                            let values: [UInt8]?
                            do {
                                values = try group.fingerprint(of: row)
                            } catch {
                                throw .damaged(at: "\(type.name).\(group.properties[0])", error)
                            }
                            guard let values else { continue }
                            guard seenGroupValues[number].insert(values).inserted else {
                                throw .alreadyExists(
                                    primaryKey: StoreError.PrimaryKey(
                                        group.shownValues(of: row), typeName: type.name, property: group.name))
                            }
                        }
                        try derived.insert(of: row, rowKey: rowKey, into: self, buffer: &buffer, at: type.name)
                    }
                }
            }
        }
    }

    /// Throws `.alreadyExists` when a unique property of `row` holds a value a row filled before it
    /// holds (a property made unique over values that repeat: the migration fails, nothing written).
    private func checkUniqueWhileFilling(
        _ row: RowView, derived: DerivedEntries, rows: Table, type: StoredSchema.StoredType
    ) throws(StoreError) {
        var indexKey: [UInt8] = []
        for index in derived.indexes where index.isUnique {
            let value: [UInt8]
            do {
                guard let bytes = try row.column(index.column) else { continue }
                value = Array(bytes)
                try KeyEncoding.indexKey(column: bytes, type: index.type, into: &indexKey)
            } catch {
                throw .damaged(at: "\(type.name).\(index.property)", error)
            }
            if index.type.unwrapped == .string, value.count >= KeyEncoding.maxIndexedValueBytes {
                // A long string: the index key holds its prefix only, so every holder of the prefix is
                // compared in full (another value may share it).
                var same = false
                for holder in try duplicates(index.table, key: indexKey) where !same {
                    guard let other = try get(rows, key: holder) else { continue }
                    same = try other.withBytes { (raw) throws(StoreError) in
                        let holderRow = try holder.withBytes { (key) throws(StoreError) in
                            try checkedRow(raw, key: key, type)
                        }
                        do {
                            return try holderRow.column(index.column).map { $0.elementsEqual(value) } ?? false
                        } catch {
                            throw .damaged(at: "\(type.name).\(index.property)", error)
                        }
                    }
                }
                guard same else { continue }
            } else {
                guard try get(index.table, key: indexKey) != nil else { continue }
            }
            let shown = String(decoding: value, as: UTF8.self)
            throw .alreadyExists(
                primaryKey: StoreError.PrimaryKey(
                    index.type.unwrapped == .string ? shown : "\(value)", typeName: type.name,
                    property: index.property))
        }
    }

    /// The row key a new object of `type` gets: its primary key, or the next row id (after every
    /// key the type had before the migration, too, so that no old object's key is used again). A type
    /// being keyed anew gets a key after every one its table holds, until `rekeyRows` keys it.
    func newRowKey(_ row: RowView, type: StoredSchema.StoredType) throws(StoreError) -> [UInt8] {
        let table = try table(TableName.objects(type.name))
        if rekeyed.contains(type.name) {
            let last = try lastKey(of: table, old: false)
            let lastOld = self.old?.type(named: type.name) == nil ? nil : try lastKey(of: table, old: true)
            // Greater than both, and unique: the largest key, extended.
            let greatest = [last ?? [], lastOld ?? []].max { $0.lexicographicallyPrecedes($1) } ?? []
            return greatest + [0]
        }
        if let pk = type.properties.firstIndex(where: \.isPrimaryKey) {
            return try primaryKeyRowKey(row, column: pk, of: type)
        }
        var last: UInt64 = 0
        let hadType = self.old?.type(named: type.name) != nil
        for key in [try lastKey(of: table, old: false), hadType ? try lastKey(of: table, old: true) : nil] {
            guard let key, key.count == 8 else { continue }
            last = max(last, key.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
        }
        return RowKey.integer(last + 1).withBytes { Array($0) }
    }

    /// The row key of an object whose primary key is `column`: the value's key encoding.
    ///
    /// - Throws: `.invalidArgument` when the object has no primary key value, or one too long.
    func primaryKeyRowKey(_ row: RowView, column pk: Int, of type: StoredSchema.StoredType) throws(StoreError)
        -> [UInt8]
    {
        guard let bytes = try column(row, pk, of: type) else {
            throw .invalidArgument("\(type.name) needs a primary key")
        }
        do {
            return try KeyEncoding.rowKey(column: bytes, type: type.properties[pk].type).withBytes { Array($0) }
        } catch {
            throw .invalidArgument("\(type.name): \(error)")
        }
    }

    /// The greatest key of `table`, in this write or (`old`) as the file was.
    private func lastKey(of table: Table, old: Bool) throws(StoreError) -> [UInt8]? {
        do {
            if old {
                guard read != nil else { return nil }
                return try read!.withCursor(table) { (cursor) throws(LMDBError) in
                    try cursor.last().map { Array($0.key) }
                }
            }
            return try write!.withCursor(table) { (cursor) throws(LMDBError) in try cursor.last().map { Array($0.key) }
            }
        } catch {
            throw StoreError(error)
        }
    }
}
