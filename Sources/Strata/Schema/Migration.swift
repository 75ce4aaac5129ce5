/// What a migration block works with: the objects as they were (old schema) and as they are becoming
/// (new schema), by type and property name.
///
/// ```swift
/// config.schemaVersion = 2
/// config.migration = { migration, oldVersion in
///     if oldVersion < 2 {
///         try migration.renameProperty(onType: "Person", from: "name", to: "fullName")
///         try migration.enumerateObjects(ofType: "Person") { old, new in
///             new?["age"] = (old?["birthYear"] as? Int).map { 2026 - $0 } ?? 0
///         }
///         try migration.deleteData(forType: "Legacy")
///     }
/// }
/// ```
/// Before the block runs, every object already has the new columns: a property of the same name and
/// type keeps its value, a new one gets the model's initial value. Removed properties and types are
/// readable through `old` objects only. The whole change is one write transaction: if the block
/// throws, the file stays exactly as it was and opening the Store fails with that error (a
/// `StoreError` as is, any other as `.migrationRequired`).
///
/// - Warning: The block runs while the file's writer lock is held: do not open a Store on the same
///   file inside it.
public final class Migration {
    let context: MigrationContext

    init(context: MigrationContext) {
        self.context = context
    }

    /// Calls `block` for each object the type had before the migration, with its old values and its
    /// new object. Objects deleted earlier in the migration are skipped; for a type gone from the new
    /// schema, `newObject` is nil. For a type new in this migration, `block` gets each object
    /// `create` made so far, with a nil `oldObject`.
    ///
    /// - Throws: `.invalidArgument` when neither schema has the type (a typo would otherwise migrate
    ///   nothing and commit); what `block` throws; `.corrupted`, `.storage`.
    public func enumerateObjects(
        ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) throws -> Void
    ) throws {
        try context.checkNotFailed()
        let oldType = context.old?.type(named: typeName)
        let newType = context.new.type(named: typeName)
        guard oldType != nil || newType != nil else {
            throw context.fail(
                .invalidArgument(
                    "enumerateObjects(ofType: \"\(typeName)\"): neither the old nor the new schema has a type \(typeName)"
                ))
        }
        let table = try context.table(TableName.objects(typeName))
        guard let oldType else {
            for (key, _) in try context.pairs(table, after: nil, limit: .max) {
                try block(nil, MigrationObject(context: context, type: newType!, key: key, isOld: false))
                try context.checkNotFailed()
            }
            return
        }
        var keys: [[UInt8]] = []
        try context.forEachOld(table) { (key, _) throws(StoreError) in keys.append(Array(key)) }
        let created = context.created[typeName] ?? []
        for key in keys {
            // Deleted in this migration (`delete`, `deleteData`, for a type gone from the new schema
            // too), or its key now names an object `create` made: not the old object any more.
            guard try context.get(table, key: key) != nil, !created.contains(key) else { continue }
            let old = MigrationObject(context: context, type: oldType, key: key, isOld: true)
            let new = newType.map { MigrationObject(context: context, type: $0, key: key, isOld: false) }
            try block(old, new)
            try context.checkNotFailed()
        }
    }

    /// Creates an object of a type of the new schema, with the model's initial values overridden by
    /// `values` (by property name).
    ///
    /// - Throws: `.alreadyExists` for a primary key already stored, `.invalidArgument` for an unknown
    ///   type or property or a value of the wrong type.
    @discardableResult
    public func create(_ typeName: String, value values: [String: Any] = [:]) throws(StoreError) -> MigrationObject {
        guard let type = context.new.type(named: typeName) else {
            throw .invalidArgument("\(typeName) is not a type of the new schema")
        }
        for name in values.keys where type.column(named: name) == nil {
            throw .invalidArgument("\(typeName) has no property \(name)")
        }
        let defaults = try context.defaultColumns(of: type)
        var encoder = _RowEncoder()
        encoder.beginRow(columns: type.properties.count)
        for (index, property) in type.properties.enumerated() {
            if let value = values[property.name] {
                try MigrationObject.encode(value, property: property, of: typeName, in: context, into: &encoder)
            } else if let bytes = defaults[index] {
                bytes.withUnsafeBytes { encoder.appendColumn(copying: $0) }
            } else {
                encoder.appendNullColumn()
            }
        }
        let table = try context.table(TableName.objects(typeName))
        let key = try encoder.withRow { (bytes) throws(StoreError) -> [UInt8] in
            let row = RowView(encoded: bytes, columns: type.properties.count)
            let key = try context.newRowKey(row, type: type)
            guard try context.putRow(table, key: key, row: bytes, options: .noOverwrite) else {
                let pk = type.properties.first(where: \.isPrimaryKey).flatMap { values[$0.name] }
                throw .alreadyExists(primaryKey: StoreError.PrimaryKey(pk.map { "\($0)" } ?? "?", typeName: typeName))
            }
            context.created[typeName, default: []].insert(key)
            return key
        }
        return MigrationObject(context: context, type: type, key: key, isOld: false)
    }

    /// Deletes a new object. Links to it are cleared when the migration ends.
    ///
    /// - Throws: `.invalidArgument` for an old object.
    public func delete(_ object: MigrationObject) throws(StoreError) {
        guard !object.isOld else { throw .invalidArgument("old objects are read-only; delete the new one") }
        try context.delete(try context.table(TableName.objects(object.typeName)), key: object.key)
    }

    /// Deletes every object of a type (new objects, those `create` made in this migration included;
    /// old ones stay readable). Returns whether either schema has the type (false for a name neither
    /// has, as in Realm).
    @discardableResult
    public func deleteData(forType typeName: String) throws(StoreError) -> Bool {
        guard context.old?.type(named: typeName) != nil || context.new.type(named: typeName) != nil,
            let table = context.tables[TableName.objects(typeName)]
        else { return false }
        try context.empty(table)
        return true
    }

    /// Carries a property's values over to its new name: every new object gets, in `newName`, the value
    /// its old object had in `oldName`.
    ///
    /// - Throws: `.invalidArgument` when the old schema lacks `oldName`, the new lacks `newName`, or
    ///   their types differ.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) throws(StoreError) {
        guard let oldType = context.old?.type(named: typeName), let oldColumn = oldType.column(named: oldName) else {
            throw .invalidArgument("the old schema has no \(typeName).\(oldName)")
        }
        guard let newType = context.new.type(named: typeName), let newColumn = newType.column(named: newName) else {
            throw .invalidArgument("the new schema has no \(typeName).\(newName)")
        }
        guard oldType.properties[oldColumn].type == newType.properties[newColumn].type else {
            throw .invalidArgument(
                "\(typeName).\(oldName) is a \(oldType.properties[oldColumn].type), .\(newName) a \(newType.properties[newColumn].type)"
            )
        }
        let table = try context.table(TableName.objects(typeName))
        var copies: [(key: [UInt8], value: [UInt8]?)] = []
        try context.forEachOld(table) { (key, value) throws(StoreError) in
            let row = try checkedRow(value, key: key, oldType)
            copies.append((Array(key), try column(row, oldColumn, of: oldType).map { Array($0) }))
        }
        for (key, value) in copies {
            try MigrationObject(context: context, type: newType, key: key, isOld: false).setColumn(newColumn) {
                encoder in
                if let value {
                    value.withUnsafeBytes { encoder.appendColumn(copying: $0) }
                } else {
                    encoder.appendNullColumn()
                }
            }
        }
    }
}
