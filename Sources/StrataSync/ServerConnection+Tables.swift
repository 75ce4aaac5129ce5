import PostgresNIO
@_spi(StrataSync) import Strata

/// What a batch does to one object of the typed tables, its changes taken together in order: an
/// object is at last deleted, stored whole (inserted, perhaps then updated), or has some properties
/// set. (One statement per kind and type then does the batch; PostgreSQL's `ON CONFLICT` cannot
/// touch a row twice in one statement.)
enum NetChange {
    case delete
    case store([String: SyncValue])
    case set([String: SyncValue])

    mutating func apply(_ change: OutgoingChange) {
        let values = Dictionary(change.properties.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        switch (change.kind, self) {
        case (.delete, _): self = .delete
        case (.insert, _): self = .store(values)
        case (.update, .delete): break  // an update of a deleted object does nothing
        case (.update, .store(let stored)): self = .store(stored.merging(values) { $1 })
        case (.update, .set(let set)): self = .set(set.merging(values) { $1 })
        }
    }

    init(_ change: OutgoingChange) {
        self = .set([:])
        apply(change)
    }
}

extension ServerConnection {
    /// Applies `changes` (in order) to the typed tables of their types: per type, one statement for
    /// the objects deleted, one for those stored whole, one for those with some properties set, each
    /// binding one array per column (`ColumnArray`).
    func applyToTables(_ changes: [OutgoingChange], types: [String: SyncTypeSchema], keyTypes: [String: SyncType])
        async throws(SyncError)
    {
        var order: [String] = []
        var byType: [String: (keys: [SyncValue], net: [SyncValue: NetChange])] = [:]
        for change in changes {
            if byType[change.typeName] == nil {
                order.append(change.typeName)
                byType[change.typeName] = ([], [:])
            }
            if var net = byType[change.typeName]!.net[change.primaryKey] {
                net.apply(change)
                byType[change.typeName]!.net[change.primaryKey] = net
            } else {
                byType[change.typeName]!.keys.append(change.primaryKey)
                byType[change.typeName]!.net[change.primaryKey] = NetChange(change)
            }
        }
        for name in order {
            guard let type = types[name], let (keys, net) = byType[name] else {
                throw .unsupportedType("\(name) is not among this client's synced types")
            }
            let table = TypedTable(type, keyTypes: keyTypes)
            var deleted: [SyncValue] = []
            var stored: [[String: SyncValue]] = []
            var set: [(key: SyncValue, values: [String: SyncValue])] = []
            for key in keys {
                switch net[key]! {
                case .delete: deleted.append(key)
                case .store(let values): stored.append(values)
                case .set(let values):
                    guard values.keys.contains(where: { $0 != type.primaryKey }) else { continue }
                    set.append((key, values))
                }
            }
            if !deleted.isEmpty { try await execute(try table.delete(deleted)) }
            if !stored.isEmpty { try await execute(try table.upsert(stored)) }
            if !set.isEmpty { try await execute(try table.update(set)) }
        }
    }
}

/// The statements that change a type's table (`strata."<Type>"`), its rows bound as column arrays.
struct TypedTable {
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
        columns = type.properties.map { property in
            (
                property.name, ServerSchema.quoted(property.name),
                ServerSchema.sqlType(property.type, keyTypes: keyTypes),
                ColumnArray.Element(property.type, keyTypes: keyTypes)
            )
        }
    }

    private var keyColumn: (name: String, quoted: String, sqlType: String, element: ColumnArray.Element) {
        columns.first { $0.name == type.primaryKey }!
    }

    /// `r.<column>`, cast when its values travel as text.
    private static func read(_ alias: String, _ element: ColumnArray.Element, _ sqlType: String) -> String {
        element == .castText ? "r.\(alias)::\(sqlType)" : "r.\(alias)"
    }

    /// Deletes the objects of `keys`.
    func delete(_ keys: [SyncValue]) throws(SyncError) -> PostgresQuery {
        let column = keyColumn
        var array = ColumnArray(column.element, capacity: keys.count)
        for key in keys { try array.append(key) }
        var binds = PostgresBindings(capacity: 1)
        binds.append(array)
        return PostgresQuery(
            unsafeSQL: "DELETE FROM \(name) WHERE \(key) = ANY($1::\(column.sqlType)[])", binds: binds)
    }

    /// Inserts the objects of `rows` (every property), or replaces those already there.
    func upsert(_ rows: [[String: SyncValue]]) throws(SyncError) -> PostgresQuery {
        var binds = PostgresBindings(capacity: columns.count)
        for column in columns {
            var array = ColumnArray(column.element, capacity: rows.count)
            for row in rows { try array.append(row[column.name] ?? .null) }
            binds.append(array)
        }
        let aliases = columns.indices.map { "c\($0)" }
        let parameters = columns.indices.map { "$\($0 + 1)" }
        let values = zip(columns, aliases).map { column, alias in Self.read(alias, column.element, column.sqlType) }
        let others = columns.filter { $0.name != type.primaryKey }.map(\.quoted)
        let conflict =
            others.isEmpty
            ? "DO NOTHING" : "DO UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return PostgresQuery(
            unsafeSQL: """
                INSERT INTO \(name) (\(columns.map(\.quoted).joined(separator: ", ")))
                SELECT \(values.joined(separator: ", "))
                FROM unnest(\(parameters.joined(separator: ", "))) AS r(\(aliases.joined(separator: ", ")))
                ON CONFLICT (\(key)) \(conflict)
                """, binds: binds)
    }

    /// Sets some properties of existing objects: per row, the values of the properties it names.
    /// A column no row sets is left out; one that only some rows set comes with a flag per row.
    func update(_ rows: [(key: SyncValue, values: [String: SyncValue])]) throws(SyncError) -> PostgresQuery {
        var binds = PostgresBindings()
        var aliases: [String] = []
        var assignments: [String] = []
        let keyColumn = keyColumn
        var keys = ColumnArray(keyColumn.element, capacity: rows.count)
        for row in rows { try keys.append(row.key) }
        binds.append(keys)
        aliases.append("k")
        for (index, column) in columns.enumerated() where column.name != type.primaryKey {
            let setCount = rows.count { $0.values[column.name] != nil }
            guard setCount > 0 else { continue }
            var values = ColumnArray(column.element, capacity: rows.count)
            for row in rows { try values.append(row.values[column.name] ?? .null) }
            binds.append(values)
            aliases.append("v\(index)")
            let value = Self.read("v\(index)", column.element, column.sqlType)
            if setCount == rows.count {
                assignments.append("\(column.quoted) = \(value)")
                continue
            }
            var flags = ColumnArray(.bool, capacity: rows.count)
            for row in rows { flags.append(row.values[column.name] != nil) }
            binds.append(flags)
            aliases.append("s\(index)")
            assignments.append("\(column.quoted) = CASE WHEN r.s\(index) THEN \(value) ELSE t.\(column.quoted) END")
        }
        let parameters = aliases.indices.map { "$\($0 + 1)" }
        let keyValue = Self.read("k", keyColumn.element, keyColumn.sqlType)
        return PostgresQuery(
            unsafeSQL: """
                UPDATE \(name) AS t SET \(assignments.joined(separator: ", "))
                FROM unnest(\(parameters.joined(separator: ", "))) AS r(\(aliases.joined(separator: ", ")))
                WHERE t.\(key) = \(keyValue)
                """, binds: binds)
    }
}
