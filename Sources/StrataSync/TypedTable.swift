#if Sync
    import PostgresNIO
    @_spi(StrataSync) import Strata

    /// The statements that change a type's table (`strata."<Type>"`), its rows bound as column arrays.
    ///
    /// Each statement comes as text whose parameters continue the numbering of the bindings it adds
    /// its arrays to, so that several can make one statement (`PreparedPush.oneStatement`), and may
    /// do its work only when a condition holds (there: that the push got its sequence numbers).
    struct TypedTable: Sendable {
        let type: SyncTypeSchema
        let keyTypes: [String: SyncType]
        let name: String
        let key: String
        /// Per property (in the type's order): its quoted column, its SQL type, how its values travel.
        let columns: [(name: String, quoted: String, sqlType: String, element: ColumnArray.Element)]

        init(_ type: SyncTypeSchema, keyTypes: [String: SyncType]) {
            self.type = type
            self.keyTypes = keyTypes
            name = ServerSchema.table(type.name)
            key = ServerSchema.quoted(type.primaryKey)
            keyIndex = type.properties.firstIndex { $0.name == type.primaryKey } ?? 0
            indexOfColumn = Dictionary(
                type.properties.enumerated().map { ($0.element.name, $0.offset) },
                uniquingKeysWith: { first, _ in first })
            columns = type.properties.map { property in
                (
                    property.name, ServerSchema.quoted(property.name),
                    ServerSchema.sqlType(property.type, keyTypes: keyTypes),
                    ColumnArray.Element(property.type, keyTypes: keyTypes)
                )
            }
        }

        /// The primary key's column number.
        let keyIndex: Int
        private let indexOfColumn: [String: Int]

        private var keyColumn: (name: String, quoted: String, sqlType: String, element: ColumnArray.Element) {
            columns[keyIndex]
        }

        /// A change's properties by column number (nil: not among them). An insert's come in the
        /// columns' order: matched by position, without a look-up by name.
        func columnValues(_ properties: [OutgoingChange.Property]) -> [SyncValue?] {
            var values = [SyncValue?](repeating: nil, count: columns.count)
            for (position, property) in properties.enumerated() {
                if position < columns.count, columns[position].name == property.name {
                    values[position] = property.value
                } else if let index = indexOfColumn[property.name] {
                    values[index] = property.value
                }
            }
            return values
        }

        /// Objects' images (change payloads of every property) as one bytea array.
        private static func imageArray(_ images: [[UInt8]]) -> ColumnArray {
            var array = ColumnArray(.bytea, capacity: images.count)
            for image in images { array.append(bytes: image) }
            return array
        }

        /// `r.<column>`, cast when its values travel as text.
        private static func read(_ alias: String, _ element: ColumnArray.Element, _ sqlType: String) -> String {
            element == .castText || element == .json ? "r.\(alias)::\(sqlType)" : "r.\(alias)"
        }

        /// `AND <condition>`, or nothing.
        private static func and(_ condition: String?) -> String {
            condition.map { " AND \($0)" } ?? ""
        }

        /// A statement of its own: `build` numbers its parameters from $1.
        private static func query(_ build: (inout PostgresBindings) throws(SyncError) -> String) throws(SyncError)
            -> PostgresQuery
        {
            var binds = PostgresBindings()
            let sql = try build(&binds)
            return PostgresQuery(unsafeSQL: sql, binds: binds)
        }

        /// Deletes the objects of `keys`.
        func delete(_ keys: [SyncValue]) throws(SyncError) -> PostgresQuery {
            try Self.query { (binds) throws(SyncError) in try delete(keys, into: &binds) }
        }

        /// Deletes the objects of `keys` (when `condition` holds); their array goes into `binds`.
        func delete(_ keys: [SyncValue], into binds: inout PostgresBindings, onlyIf condition: String? = nil)
            throws(SyncError) -> String
        {
            let column = keyColumn
            var array = ColumnArray(column.element, capacity: keys.count)
            for key in keys { try array.append(key) }
            binds.append(array)
            return "DELETE FROM \(name) WHERE \(key) = ANY($\(binds.count)::\(column.sqlType)[])\(Self.and(condition))"
        }

        /// Inserts the objects of `rows` (every property by column number; none of them is there).
        func insert(_ rows: [[SyncValue?]], images: [[UInt8]]) throws(SyncError) -> PostgresQuery {
            try Self.query { (binds) throws(SyncError) in try insert(rows, images: images, into: &binds) }
        }

        /// Inserts the objects of `rows` (when `condition` holds); one array per column, and the
        /// images', go into `binds`. `boundImages` names a parameter bound already that holds the
        /// images (the changes' payloads of a batch of inserts only), instead of `images`.
        func insert(
            _ rows: [[SyncValue?]], images: [[UInt8]], into binds: inout PostgresBindings,
            onlyIf condition: String? = nil, boundImages: String? = nil
        ) throws(SyncError) -> String {
            var arrays: [ColumnArray] = []
            for (index, column) in columns.enumerated() {
                var array = ColumnArray(column.element, capacity: rows.count)
                for row in rows { try array.append(row[index] ?? .null) }
                arrays.append(array)
            }
            return insert(
                columns: arrays, images: boundImages.map(InsertedImages.bound) ?? .values(Self.imageArray(images)),
                into: &binds, onlyIf: condition)
        }

        /// Where an insert finds its objects' images: an array of its own, or a parameter bound
        /// already (the changes' payloads, for a batch of inserts only).
        enum InsertedImages {
            case values(ColumnArray)
            case bound(String)
        }

        /// Inserts objects whose values come as one array per column (in the columns' order).
        func insert(
            columns arrays: [ColumnArray], images: InsertedImages, into binds: inout PostgresBindings,
            onlyIf condition: String? = nil
        ) -> String {
            var parameters: [String] = []
            for array in arrays {
                binds.append(array)
                parameters.append("$\(binds.count)")
            }
            switch images {
            case .bound(let parameter): parameters.append(parameter)
            case .values(let array):
                binds.append(array)
                parameters.append("$\(binds.count)")
            }
            let aliases = columns.indices.map { "c\($0)" } + ["image"]
            let values =
                zip(columns, aliases).map { column, alias in Self.read(alias, column.element, column.sqlType) } + [
                    "r.image"
                ]
            return """
                INSERT INTO \(name) (\(columns.map(\.quoted).joined(separator: ", ")), \(ServerSchema.imageColumn))
                SELECT \(values.joined(separator: ", "))
                FROM unnest(\(parameters.joined(separator: ", "))) AS r(\(aliases.joined(separator: ", ")))
                \(condition.map { "WHERE \($0)" } ?? "")
                """
        }

        /// Sets some properties of existing objects: per row, the values of the properties it names,
        /// and the payload that patches its image (`images`).
        func update(_ rows: [(key: SyncValue, values: [SyncValue?])], images: [[UInt8]]) throws(SyncError)
            -> PostgresQuery
        {
            try Self.query { (binds) throws(SyncError) in try update(rows, images: images, into: &binds) }
        }

        /// Sets some properties of existing objects (when `condition` holds): per row, the values of
        /// the properties it names. A column no row sets is left out; one that only some rows set
        /// comes with a flag per row.
        func update(
            _ rows: [(key: SyncValue, values: [SyncValue?])], images: [[UInt8]], into binds: inout PostgresBindings,
            onlyIf condition: String? = nil
        ) throws(SyncError) -> String {
            let first = binds.count + 1
            var aliases: [String] = []
            var assignments: [String] = []
            binds.append(Self.imageArray(images))
            aliases.append("image")
            // The image patched as the columns are (the update's properties only): `ServerImages`.
            assignments.append(
                "\(ServerSchema.imageColumn) = strata.patched_image(t.\(ServerSchema.imageColumn), r.image)")
            let keyColumn = keyColumn
            var keys = ColumnArray(keyColumn.element, capacity: rows.count)
            for row in rows { try keys.append(row.key) }
            binds.append(keys)
            aliases.append("k")
            for (index, column) in columns.enumerated() where index != keyIndex {
                let setCount = rows.count { $0.values[index] != nil }
                guard setCount > 0 else { continue }
                var values = ColumnArray(column.element, capacity: rows.count)
                for row in rows { try values.append(row.values[index] ?? .null) }
                binds.append(values)
                aliases.append("v\(index)")
                var value = Self.read("v\(index)", column.element, column.sqlType)
                if rows.contains(where: { if case .mapPatch = $0.values[index] { true } else { false } }) {
                    // Map patches: the keys removed (a JSON array per row), then the keys set on top.
                    var patched = ColumnArray(.bool, capacity: rows.count)
                    var removed = ColumnArray(.text, capacity: rows.count)
                    for row in rows {
                        if case .mapPatch(_, let keys) = row.values[index] {
                            patched.append(true)
                            var json = ""
                            JSONText.append(.list(keys.map(SyncValue.string)), to: &json)
                            removed.append(bytes: json.utf8)
                        } else {
                            patched.append(false)
                            removed.append(bytes: "[]".utf8)
                        }
                    }
                    binds.append(patched)
                    aliases.append("p\(index)")
                    binds.append(removed)
                    aliases.append("m\(index)")
                    value = """
                        CASE WHEN r.p\(index) THEN (t.\(column.quoted) - ARRAY(SELECT jsonb_array_elements_text(r.m\(index)::jsonb))) \
                        || \(value) ELSE \(value) END
                        """
                }
                if setCount == rows.count {
                    assignments.append("\(column.quoted) = \(value)")
                    continue
                }
                var flags = ColumnArray(.bool, capacity: rows.count)
                for row in rows { flags.append(row.values[index] != nil) }
                binds.append(flags)
                aliases.append("s\(index)")
                assignments.append("\(column.quoted) = CASE WHEN r.s\(index) THEN \(value) ELSE t.\(column.quoted) END")
            }
            let parameters = aliases.indices.map { "$\(first + $0)" }
            let keyValue = Self.read("k", keyColumn.element, keyColumn.sqlType)
            return """
                UPDATE \(name) AS t SET \(assignments.joined(separator: ", "))
                FROM unnest(\(parameters.joined(separator: ", "))) AS r(\(aliases.joined(separator: ", ")))
                WHERE t.\(key) = \(keyValue)\(Self.and(condition))
                """
        }
    }
#endif
