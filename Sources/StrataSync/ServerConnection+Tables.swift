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
    /// Applies `changes` (in order) to the typed tables of their types.
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
            var deleted = "["
            var stored = "["
            var set = "["
            for key in keys {
                switch net[key]! {
                case .delete:
                    Self.appendRecord([type.primaryKey: key], set: nil, to: &deleted)
                case .store(let values):
                    Self.appendRecord(values, set: nil, to: &stored)
                case .set(let values):
                    guard values.keys.contains(where: { $0 != type.primaryKey }) else { continue }
                    var keyed = values
                    keyed[type.primaryKey] = key
                    Self.appendRecord(keyed, set: Array(values.keys), to: &set)
                }
            }
            let table = ServerSchema.table(type.name)
            let key = ServerSchema.quoted(type.primaryKey)
            let others = type.properties.map(\.name).filter { $0 != type.primaryKey }.map(ServerSchema.quoted)
            if deleted.utf8.count > 1 {
                let record =
                    "\(key) \(ServerSchema.sqlType(type.properties.first { $0.name == type.primaryKey }!.type, keyTypes: keyTypes))"
                try await execute(
                    "DELETE FROM \(unescaped: table) AS t USING jsonb_to_recordset(\(deleted + "]")::jsonb) AS r(\(unescaped: record)) WHERE t.\(unescaped: key) = r.\(unescaped: key)"
                )
            }
            if stored.utf8.count > 1 {
                let columns = type.properties.map { ServerSchema.quoted($0.name) }.joined(separator: ", ")
                let record = ServerSchema.recordColumns(type, keyTypes: keyTypes, withSet: false)
                let update =
                    others.isEmpty
                    ? "DO NOTHING" : "DO UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
                try await execute(
                    "INSERT INTO \(unescaped: table) (\(unescaped: columns)) SELECT \(unescaped: columns) FROM jsonb_to_recordset(\(stored + "]")::jsonb) AS r(\(unescaped: record)) ON CONFLICT (\(unescaped: key)) \(unescaped: update)"
                )
            }
            if set.utf8.count > 1 {
                let record = ServerSchema.recordColumns(type, keyTypes: keyTypes, withSet: true)
                let assignments = type.properties.map(\.name).filter { $0 != type.primaryKey }.map { name in
                    let column = ServerSchema.quoted(name)
                    let literal = name.replacingOccurrences(of: "'", with: "''")
                    return "\(column) = CASE WHEN r._set ? '\(literal)' THEN r.\(column) ELSE t.\(column) END"
                }
                try await execute(
                    "UPDATE \(unescaped: table) AS t SET \(unescaped: assignments.joined(separator: ", ")) FROM jsonb_to_recordset(\(set + "]")::jsonb) AS r(\(unescaped: record)) WHERE t.\(unescaped: key) = r.\(unescaped: key)"
                )
            }
        }
    }

    private static func appendRecord(_ values: [String: SyncValue], set: [String]?, to text: inout String) {
        if text.utf8.count > 1 { text += "," }
        text += "{"
        var first = true
        if let set {
            text += "\"_set\":{"
            for (index, name) in set.enumerated() {
                if index > 0 { text += "," }
                JSONText.appendString(name, to: &text)
                text += ":true"
            }
            text += "}"
            first = false
        }
        for (name, value) in values {
            if !first { text += "," }
            first = false
            JSONText.appendString(name, to: &text)
            text += ":"
            JSONText.append(value, to: &text)
        }
        text += "}"
    }
}
