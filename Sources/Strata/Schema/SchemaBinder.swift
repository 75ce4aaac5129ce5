/// Compares the code's schema with the file's, creates what is new (a new file, new types), and binds
/// every type to its tables. Writes only when something is new: opening an up-to-date file commits
/// nothing.
enum SchemaBinder {
    static let formatVersion: UInt32 = 1

    /// What the file needs so that the code's schema fits it.
    private struct Plan {
        var newTypes: [ObjectSchema] = []
        var versionChange = false
        var isNewFile = false
        var needsWrite: Bool { isNewFile || versionChange || !newTypes.isEmpty }

        /// - Throws: `.migrationRequired` when a stored type differs from the code's; `.schemaMismatch`
        ///   when the file's schema version is newer than the configuration's.
        init(code: [ObjectSchema], stored: StoredSchema?, schemaVersion: UInt64) throws(StoreError) {
            guard let stored else {
                isNewFile = true
                newTypes = code
                return
            }
            if schemaVersion < stored.schemaVersion {
                throw .schemaMismatch(
                    "the file's schema version \(stored.schemaVersion) is newer than the configuration's \(schemaVersion)"
                )
            }
            var differences: [String] = []
            for schema in code {
                guard let storedType = stored.type(named: schema.name) else {
                    newTypes.append(schema)
                    continue
                }
                differences += storedType.differences(from: schema)
            }
            if !differences.isEmpty {
                throw .migrationRequired(
                    "the file's schema (version \(stored.schemaVersion)) differs from the code's: "
                        + differences.joined(separator: "; "))
            }
            versionChange = schemaVersion != stored.schemaVersion
        }
    }

    /// Binds `schemas` to the file, creating tables when the file lacks them.
    ///
    /// - Throws: `.migrationRequired`, `.schemaMismatch`, `.corrupted` (unreadable format or schema),
    ///   `.readOnly` (a read-only store would need a write), `.alreadyInWriteTransaction` (the calling
    ///   thread holds the file's writer lock and a write is needed), `.storage`.
    static func bind(
        _ schemas: [ObjectSchema], schemaVersion: UInt64, environment: Environment
    ) throws(StoreError) -> [TableBinding] {
        let stored = try readStoredSchema(environment)
        var plan = try Plan(code: schemas, stored: stored, schemaVersion: schemaVersion)
        var finalSchema = stored
        if plan.needsWrite {
            guard !environment.options.readOnly else { throw .readOnly }
            guard !environment.isWriterOnCurrentThread else { throw .alreadyInWriteTransaction }
            finalSchema = try create(schemas, schemaVersion: schemaVersion, environment: environment, plan: &plan)
        }
        guard let finalSchema else { throw .corrupted("the file has no schema") }
        let tables = try openTables(for: schemas, stored: finalSchema, environment: environment)
        var bindings: [TableBinding] = []
        for (ordinal, schema) in schemas.enumerated() {
            guard let storedType = finalSchema.type(named: schema.name),
                let table = tables[TableName.objects(schema.name)]
            else { throw .corrupted("the file lacks the type \(schema.name) its schema was just given") }
            var indexes: [IndexBinding] = []
            for (column, property) in storedType.properties.enumerated() where property.isIndexed {
                guard let index = tables[TableName.index(schema.name, property.name)] else {
                    throw .corrupted("the file lacks the index of \(schema.name).\(property.name)")
                }
                indexes.append(IndexBinding(column: column, property: property.name, type: property.type, table: index))
            }
            var links: [LinkBinding] = []
            for (column, property) in storedType.properties.enumerated() {
                guard let target = property.type.linkedTypeName else { continue }
                guard let backlinks = tables[TableName.backlinks(schema.name, property.name)] else {
                    throw .corrupted("the file lacks the backlinks of \(schema.name).\(property.name)")
                }
                var isList = false
                if case .list = property.type { isList = true }
                links.append(LinkBinding(column: column, property: property.name, target: target, isList: isList, table: backlinks))
            }
            bindings.append(
                TableBinding(
                    schema: schema, stored: storedType, table: table, indexes: indexes, links: links, ordinal: ordinal))
        }
        return bindings
    }

    // MARK: Reading

    private static func readStoredSchema(_ environment: Environment) throws(StoreError) -> StoredSchema? {
        try environment.withTableRegistry { (registry) throws(StoreError) -> StoredSchema? in
            let transaction = try beginRead(environment)
            let meta: Table
            if let published = registry[TableName.meta] {
                meta = published
            } else {
                let dbi: UInt32?
                do throws(LMDBError) {
                    dbi = try transaction.openTable(named: TableName.meta, flags: [])
                } catch {
                    throw StoreError(error)
                }
                guard let dbi else { return nil }  // a new, empty file
                meta = Table(dbi: dbi, flags: [])
            }
            let schema = try readSchema(meta: meta) { (key) throws(LMDBError) in try transaction.get(meta, key: key) }
            do throws(LMDBError) {
                try transaction.commit()  // keeps the meta handle
            } catch {
                throw StoreError(error)
            }
            registry[TableName.meta] = meta
            return schema
        }
    }

    private static func beginRead(_ environment: Environment) throws(StoreError) -> ReadTransaction {
        do throws(LMDBError) {
            return try ReadTransaction(environment)
        } catch {
            throw StoreError(error)
        }
    }

    /// Reads and checks the format version and the schema through `get`.
    private static func readSchema(
        meta: Table, get: (UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer?
    ) throws(StoreError) -> StoredSchema? {
        do {
            let format = try Array(MetaKey.format.utf8).withBytes { (key) throws(LMDBError) in try get(key) }
            let schema = try Array(MetaKey.schema.utf8).withBytes { (key) throws(LMDBError) in try get(key) }
            switch (format, schema) {
            case (nil, nil):
                return nil
            case (let format?, let schema?):
                guard format.count == 4 else { throw StoreError.corrupted("the format version has \(format.count) bytes") }
                let version = UInt32(littleEndian: format.loadUnaligned(as: UInt32.self))
                guard version == formatVersion else {
                    throw StoreError.corrupted(
                        "the file's format version is \(version); this Strata reads version \(formatVersion)")
                }
                return try StoredSchema(decoding: schema)
            default:
                throw StoreError.corrupted("the meta table has only one of its format version and schema")
            }
        } catch let error as LMDBError {
            throw StoreError(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupted("\(error)")
        }
    }

    // MARK: Creating

    private static func create(
        _ schemas: [ObjectSchema], schemaVersion: UInt64, environment: Environment, plan: inout Plan
    ) throws(StoreError) -> StoredSchema {
        // Writer lock first, then the table registry lock (see `withTableRegistry`).
        var transaction: WriteTransaction?
        do {
            transaction = try WriteTransaction(environment)
        } catch {
            throw StoreError(error)
        }
        return try environment.withTableRegistry { (registry) throws(StoreError) -> StoredSchema in
            var opened: [String: Table] = [:]
            do {
                guard let metaDBI = try transaction!.openTable(named: TableName.meta, flags: [], create: true) else {
                    throw StoreError.corrupted("cannot create the meta table")
                }
                let meta = Table(dbi: metaDBI, flags: [])
                opened[TableName.meta] = meta
                // Another process may have written the schema since it was read: plan again.
                let current = try readSchema(meta: meta) { (key) throws(LMDBError) in try transaction!.get(meta, key: key) }
                plan = try Plan(code: schemas, stored: current, schemaVersion: schemaVersion)
                var schema = current ?? StoredSchema(schemaVersion: schemaVersion, types: [])
                schema.schemaVersion = schemaVersion
                for type in plan.newTypes {
                    for (name, flags) in tableNames(of: StoredSchema.StoredType(type)) {
                        guard let dbi = try transaction!.openTable(named: name, flags: flags, create: true) else {
                            throw StoreError.storage(.notFound)
                        }
                        opened[name] = Table(dbi: dbi, flags: flags)
                    }
                    schema.types.append(StoredSchema.StoredType(type))
                }
                if plan.isNewFile {
                    let format = formatVersion.littleEndian
                    _ = try withBytes(of: format) { (value) throws(LMDBError) in
                        try Array(MetaKey.format.utf8).withBytes { (key) throws(LMDBError) in
                            try transaction!.put(meta, key: key, value: value)
                        }
                    }
                }
                _ = try schema.encoded().withBytes { (value) throws(LMDBError) in
                    try Array(MetaKey.schema.utf8).withBytes { (key) throws(LMDBError) in
                        try transaction!.put(meta, key: key, value: value)
                    }
                }
                try transaction.take()!.commit()
                registry.merge(opened) { published, _ in published }
                return schema
            } catch let error as LMDBError {
                throw StoreError(error)
            } catch let error as StoreError {
                throw error
            } catch {
                throw .corrupted("\(error)")
            }
        }
    }

    /// The tables a type needs: its rows, and one table with duplicates per index.
    private static func tableNames(of type: StoredSchema.StoredType) -> [(String, TableFlags)] {
        let indexes: [(String, TableFlags)] = type.properties.filter(\.isIndexed).map {
            (TableName.index(type.name, $0.name), TableFlags.duplicates)
        }
        let backlinks: [(String, TableFlags)] = type.properties.filter { $0.type.linkedTypeName != nil }.map {
            (TableName.backlinks(type.name, $0.name), TableFlags.duplicates)
        }
        return [(TableName.objects(type.name), TableFlags())] + indexes + backlinks
    }

    /// Handles of every table of `schemas`, opening the ones no committed transaction opened yet.
    ///
    /// - Throws: `.corrupted` when the stored schema names a table the file lacks.
    private static func openTables(
        for schemas: [ObjectSchema], stored: StoredSchema, environment: Environment
    ) throws(StoreError) -> [String: Table] {
        let wanted = schemas.flatMap { schema in
            stored.type(named: schema.name).map(tableNames(of:)) ?? []
        }
        return try environment.withTableRegistry { (registry) throws(StoreError) -> [String: Table] in
            let missing = wanted.filter { registry[$0.0] == nil }
            if !missing.isEmpty {
                do {
                    let transaction = try ReadTransaction(environment)
                    var opened: [String: Table] = [:]
                    for (name, flags) in missing {
                        guard let dbi = try transaction.openTable(named: name, flags: flags) else {
                            throw StoreError.corrupted("the schema names table \(name), which the file lacks")
                        }
                        opened[name] = Table(dbi: dbi, flags: flags)
                    }
                    try transaction.commit()
                    registry.merge(opened) { published, _ in published }
                } catch let error as LMDBError {
                    throw StoreError(error)
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw .corrupted("\(error)")
                }
            }
            return registry
        }
    }
}
