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
    /// new object (nil when the type is gone from the schema, or the object was deleted).
    ///
    /// - Throws: what `block` throws; `.corrupted`, `.storage`.
    public func enumerateObjects(
        ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) throws -> Void
    ) throws {
        guard let oldType = context.old?.type(named: typeName) else { return }
        var keys: [[UInt8]] = []
        try context.forEachOld(try context.table(TableName.objects(typeName))) { (key, _) throws(StoreError) in
            keys.append(Array(key))
        }
        let newType = context.new.type(named: typeName)
        for key in keys {
            let old = MigrationObject(context: context, type: oldType, key: key, isOld: true)
            var new: MigrationObject?
            if let newType, try context.get(try context.table(TableName.objects(typeName)), key: key) != nil {
                new = MigrationObject(context: context, type: newType, key: key, isOld: false)
            }
            try block(old, new)
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
                try MigrationObject.encode(value, property: property, in: context, into: &encoder)
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
            guard try context.put(table, key: key, value: bytes, options: .noOverwrite) else {
                let pk = type.properties.first(where: \.isPrimaryKey).flatMap { values[$0.name] }
                throw .alreadyExists(primaryKey: pk.map { "\($0)" } ?? "?")
            }
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

    /// Deletes every object of a type (new objects; old ones stay readable). Returns whether the type
    /// had data in the file.
    @discardableResult
    public func deleteData(forType typeName: String) throws(StoreError) -> Bool {
        guard context.old?.type(named: typeName) != nil, let table = context.tables[TableName.objects(typeName)] else {
            return false
        }
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
                "\(typeName).\(oldName) is a \(oldType.properties[oldColumn].type), .\(newName) a \(newType.properties[newColumn].type)")
        }
        let table = try context.table(TableName.objects(typeName))
        var copies: [(key: [UInt8], value: [UInt8]?)] = []
        try context.forEachOld(table) { (key, value) throws(StoreError) in
            let row = try checkedRow(value, oldType)
            copies.append((Array(key), try column(row, oldColumn, of: oldType).map { Array($0) }))
        }
        for (key, value) in copies {
            try MigrationObject(context: context, type: newType, key: key, isOld: false).setColumn(newColumn) { encoder in
                if let value { value.withUnsafeBytes { encoder.appendColumn(copying: $0) } } else { encoder.appendNullColumn() }
            }
        }
    }
}

/// An object seen by a migration: its values by property name. Old objects are read-only.
///
/// ```swift
/// let name = old?["name"] as? String
/// new?["fullName"] = name
/// ```
/// Values come as their Swift types (Int, String?, Date…; enums as raw values, links as
/// `MigrationObject`, lists as arrays). Setting converts integers between widths when they fit.
public final class MigrationObject {
    let context: MigrationContext
    let type: StoredSchema.StoredType
    let key: [UInt8]
    let isOld: Bool

    init(context: MigrationContext, type: StoredSchema.StoredType, key: [UInt8], isOld: Bool) {
        self.context = context
        self.type = type
        self.key = key
        self.isOld = isOld
    }

    /// The type's name.
    public var typeName: String { type.name }

    /// A property's value (nil for nil, and for a property the type does not have).
    ///
    /// - Warning: Setting traps on an old object, an unknown property, a primary key or a value of the
    ///   wrong type; `setValue(_:forProperty:)` throws instead.
    public subscript(property: String) -> Any? {
        get {
            do {
                return try value(forProperty: property)
            } catch {
                preconditionFailure("Strata: reading \(type.name).\(property) in a migration: \(error)")
            }
        }
        set {
            do {
                try setValue(newValue, forProperty: property)
            } catch {
                preconditionFailure("Strata: setting \(type.name).\(property) in a migration: \(error)")
            }
        }
    }

    /// A property's value.
    ///
    /// - Throws: `.corrupted`, `.invalidated` when the object was deleted.
    public func value(forProperty property: String) throws(StoreError) -> Any? {
        guard let index = type.column(named: property) else { return nil }
        let table = try context.table(TableName.objects(type.name))
        guard let bytes = try isOld ? context.getOld(table, key: key) : context.get(table, key: key) else {
            throw .invalidated
        }
        let context = self.context
        let isOld = self.isOld
        return try bytes.withBytes { (raw) throws(StoreError) -> Any? in
            let row = try checkedRow(raw, type)
            return try DynamicValue.decode(column(row, index, of: type), type: type.properties[index].type) {
                (target, key) throws(StoreError) -> Any? in
                let schema = isOld ? context.old : context.new
                guard let targetType = schema?.type(named: target) else { return nil }
                let targetTable = try context.table(TableName.objects(target))
                let exists = try isOld ? context.getOld(targetTable, key: key) != nil : context.get(targetTable, key: key) != nil
                return exists ? MigrationObject(context: context, type: targetType, key: key, isOld: isOld) : nil
            }
        }
    }

    /// Sets a property of a new object.
    ///
    /// - Throws: `.invalidArgument` for an old object, an unknown property, the primary key, or a value
    ///   of the wrong type; `.invalidated` when the object was deleted.
    public func setValue(_ value: Any?, forProperty property: String) throws(StoreError) {
        guard !isOld else { throw .invalidArgument("old objects are read-only") }
        guard let index = type.column(named: property) else { throw .invalidArgument("\(type.name) has no property \(property)") }
        guard !type.properties[index].isPrimaryKey else {
            throw .invalidArgument("the primary key of an existing object cannot change in a migration")
        }
        let context = self.context
        let schemaProperty = type.properties[index]
        try setColumn(index) { (encoder) throws(StoreError) in
            try Self.encode(value, property: schemaProperty, in: context, into: &encoder)
        }
    }

    static func encode(
        _ value: Any?, property: PropertySchema, in context: MigrationContext, into encoder: inout _RowEncoder
    ) throws(StoreError) {
        try DynamicValue.encodeColumn(value, type: property.type, into: &encoder) { (target, value) throws(StoreError) in
            guard let object = value as? MigrationObject, !object.isOld, object.type.name == target else {
                throw .invalidArgument("\(property.name) links to new \(target) objects of the migration, not \(value)")
            }
            return object.key
        }
    }

    /// Rewrites the row with column `index` encoded by `encode`.
    func setColumn(_ index: Int, _ encode: (inout _RowEncoder) throws(StoreError) -> Void) throws(StoreError) {
        let table = try context.table(TableName.objects(type.name))
        guard let bytes = try context.get(table, key: key) else { throw .invalidated }
        var encoder = _RowEncoder()
        try bytes.withBytes { (raw) throws(StoreError) in
            let row = try checkedRow(raw, type)
            encoder.beginRow(columns: type.properties.count)
            for column in 0..<type.properties.count {
                if column == index {
                    try encode(&encoder)
                } else {
                    encoder.appendColumn(copying: try Strata.column(row, column, of: type))
                }
            }
        }
        try encoder.withRow { (row) throws(StoreError) in _ = try context.put(table, key: key, value: row) }
    }
}

@available(*, unavailable, message: "migration objects live only inside the migration block")
extension MigrationObject: Sendable {}
