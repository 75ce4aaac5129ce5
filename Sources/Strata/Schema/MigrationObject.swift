/// An object seen by a migration: its values by property name. Old objects are read-only.
///
/// ```swift
/// let name = old?["name"] as? String
/// new?["fullName"] = name
/// ```
/// Values come as their Swift types (String?, Date…; enums as raw values, links as
/// `MigrationObject`, lists as arrays). Integers of every width come as `NSNumber`, as in Realm: `as?
/// Int`, `as? Int64`, `as? Int8` all give the value when it fits. Setting converts numbers between
/// widths when they fit.
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

    /// A property's value, or nil.
    ///
    /// - Warning: The subscript cannot throw. Reading or setting a property the type does not have,
    ///   setting an old object, a primary key or a value of the wrong type abandons the migration: the
    ///   subscript returns nil (or sets nothing), and opening the Store throws that error
    ///   (`.invalidArgument` naming the type and property); nothing is written. `value(forProperty:)`
    ///   and `setValue(_:forProperty:)` throw at once instead.
    public subscript(property: String) -> Any? {
        get {
            do {
                return try value(forProperty: property)
            } catch {
                context.fail(error)
                return nil
            }
        }
        set {
            do {
                try setValue(newValue, forProperty: property)
            } catch {
                context.fail(error)
            }
        }
    }

    /// A property's value (nil for nil).
    ///
    /// - Throws: `.invalidArgument` for a property the type does not have, `.corrupted`, `.invalidated`
    ///   when the object was deleted.
    public func value(forProperty property: String) throws(StoreError) -> Any? {
        guard let index = type.column(named: property) else {
            throw .invalidArgument(
                "\(type.name) has no property \(property) in the \(isOld ? "old" : "new") schema (reading it in a migration)"
            )
        }
        let table = try context.table(TableName.objects(type.name))
        guard let bytes = try isOld ? context.getOld(table, key: key) : context.get(table, key: key) else {
            throw .invalidated
        }
        let context = self.context
        let isOld = self.isOld
        let rowKey = key
        return try bytes.withBytes { (raw) throws(StoreError) -> Any? in
            let row = try rowKey.withBytes { (rawKey) throws(StoreError) in try checkedRow(raw, key: rawKey, type) }
            let value = try DynamicValue.decode(column(row, index, of: type), type: type.properties[index].type) {
                (target, key) throws(StoreError) -> Any? in
                let schema = isOld ? context.old : context.new
                guard let targetType = schema?.type(named: target) else { return nil }
                let targetTable = try context.table(TableName.objects(target))
                let exists =
                    try isOld ? context.getOld(targetTable, key: key) != nil : context.get(targetTable, key: key) != nil
                return exists ? MigrationObject(context: context, type: targetType, key: key, isOld: isOld) : nil
            }
            return DynamicValue.numbersBridged(value)
        }
    }

    /// Sets a property of a new object.
    ///
    /// - Throws: `.invalidArgument` for an old object, an unknown property, the primary key, or a value
    ///   of the wrong type; `.invalidated` when the object was deleted.
    public func setValue(_ value: Any?, forProperty property: String) throws(StoreError) {
        guard !isOld else { throw .invalidArgument("old objects are read-only") }
        guard let index = type.column(named: property) else {
            throw .invalidArgument(
                "\(type.name) has no property \(property) in the new schema (setting it in a migration)")
        }
        guard !type.properties[index].isPrimaryKey || context.rekeyed.contains(type.name) else {
            throw .invalidArgument("the primary key of an existing object cannot change in a migration")
        }
        let context = self.context
        let schemaProperty = type.properties[index]
        try setColumn(index) { (encoder) throws(StoreError) in
            try Self.encode(value, property: schemaProperty, of: type.name, in: context, into: &encoder)
        }
    }

    static func encode(
        _ value: Any?, property: PropertySchema, of typeName: String, in context: MigrationContext,
        into encoder: inout _RowEncoder
    ) throws(StoreError) {
        do {
            try DynamicValue.encodeColumn(value, type: property.type, into: &encoder) {
                (target, value) throws(StoreError) in
                guard let object = value as? MigrationObject, !object.isOld, object.type.name == target else {
                    throw .invalidArgument("links to new \(target) objects of the migration, not \(value)")
                }
                return object.key
            }
        } catch .invalidArgument(let reason) {
            throw .invalidArgument("\(typeName).\(property.name): \(reason)")
        }
    }

    /// Rewrites the row with column `index` encoded by `encode`.
    func setColumn(_ index: Int, _ encode: (inout _RowEncoder) throws(StoreError) -> Void) throws(StoreError) {
        let table = try context.table(TableName.objects(type.name))
        guard let bytes = try context.get(table, key: key) else { throw .invalidated }
        var encoder = _RowEncoder()
        try bytes.withBytes { (raw) throws(StoreError) in
            let row = try key.withBytes { (rawKey) throws(StoreError) in try checkedRow(raw, key: rawKey, type) }
            encoder.beginRow(columns: type.properties.count)
            for column in 0..<type.properties.count {
                if column == index {
                    try encode(&encoder)
                } else {
                    encoder.appendColumn(copying: try Strata.column(row, column, of: type))
                }
            }
        }
        try encoder.withRow { (row) throws(StoreError) in _ = try context.putRow(table, key: key, row: row) }
    }
}

@available(*, unavailable, message: "migration objects live only inside the migration block")
extension MigrationObject: Sendable {}
