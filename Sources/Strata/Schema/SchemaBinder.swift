/// Compares the code's schema with the file's, creates what is new (a new file, new types), and binds
/// every type to its tables. Writes only when something is new: opening an up-to-date file commits
/// nothing.
enum SchemaBinder {
    static let formatVersion = StrataFormat.version

    /// What the file needs so that the code's schema fits it.
    struct Plan {
        var newTypes: [ObjectSchema] = []
        /// Types whose columns changed (added, removed, retyped): every row is converted.
        var convertedTypes: [(code: ObjectSchema, stored: StoredSchema.StoredType)] = []
        /// Converted types whose primary key changes: their rows are keyed anew after the migration block.
        var rekeyedTypeNames: Set<String> = []
        /// Types whose indexes alone changed: the indexes are rebuilt, no migration is needed.
        var reindexedTypes: [(code: ObjectSchema, stored: StoredSchema.StoredType)] = []
        /// Stored types the code no longer declares (dropped by a migration).
        var removedTypeNames: Set<String> = []
        var versionChange = false
        var isNewFile = false
        /// The file's version is lower than the configuration's: the migration block runs, and types
        /// gone from the code are dropped.
        var runsMigration = false
        var needsWrite: Bool {
            isNewFile || versionChange || !newTypes.isEmpty || !convertedTypes.isEmpty || !reindexedTypes.isEmpty
        }

        /// - Throws: `.migrationRequired` when a stored type's columns or primary key differ from the
        ///   code's and the schema version did not grow; `.schemaMismatch` when the file's schema version
        ///   is newer than the configuration's.
        init(code: [ObjectSchema], stored: StoredSchema?, schemaVersion: UInt64, readOnly: Bool) throws(StoreError) {
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
            runsMigration = schemaVersion > stored.schemaVersion
            var differences: [String] = []
            for schema in code {
                guard let storedType = stored.type(named: schema.name) else {
                    newTypes.append(schema)
                    continue
                }
                let change = storedType.change(to: schema)
                if let keyChange = change.primaryKey {
                    guard runsMigration else {
                        throw .migrationRequired(
                            "the file's schema (version \(stored.schemaVersion)) differs from the code's: \(keyChange)")
                    }
                    rekeyedTypeNames.insert(schema.name)
                    convertedTypes.append((schema, storedType))
                    continue
                }
                if !change.columns.isEmpty {
                    differences += change.columns
                    convertedTypes.append((schema, storedType))
                } else if change.indexes, !readOnly {
                    reindexedTypes.append((schema, storedType))
                }
            }
            if !differences.isEmpty, !runsMigration {
                throw .migrationRequired(
                    "the file's schema (version \(stored.schemaVersion)) differs from the code's: "
                        + differences.joined(separator: "; ") + "; raise Configuration.schemaVersion")
            }
            if runsMigration {
                removedTypeNames = Set(stored.types.map(\.name)).subtracting(code.map(\.name))
            }
            versionChange = schemaVersion != stored.schemaVersion
        }

        /// The schema the file has once the plan is carried out.
        func finalSchema(from stored: StoredSchema?, schemaVersion: UInt64) -> StoredSchema {
            var schema = stored ?? StoredSchema(schemaVersion: schemaVersion, types: [])
            schema.schemaVersion = schemaVersion
            for (code, _) in convertedTypes {
                schema.types.removeAll { $0.name == code.name }
                schema.types.append(StoredSchema.StoredType(code))
            }
            for (code, stored) in reindexedTypes {
                var type = stored
                type.isEmbedded = code.isEmbedded
                type.uniqueKeys = code.uniqueKeys
                for index in type.properties.indices {
                    let name = type.properties[index].name
                    let property = code.properties.first { $0.name == name }
                    type.properties[index].isIndexed = property?.isIndexed ?? false
                    type.properties[index].isUnique = property?.isUnique ?? false
                    type.properties[index].isOwning = property?.isOwning ?? false
                    type.properties[index].fullText = property?.fullText
                    type.properties[index].vector = property?.vector
                }
                schema.types.removeAll { $0.name == code.name }
                schema.types.append(type)
            }
            for type in newTypes { schema.types.append(StoredSchema.StoredType(type)) }
            schema.types.removeAll { removedTypeNames.contains($0.name) }
            return schema
        }
    }

    /// Binds `schemas` to the file, creating tables when the file lacks them and migrating it when
    /// the required schema version is higher.
    ///
    /// - Throws: `.migrationRequired`, `.schemaMismatch`, `.corrupted` (unreadable format or schema),
    ///   `.readOnly` (a read-only store would need a write), `.alreadyInWriteTransaction` (the calling
    ///   thread holds the file's writer lock and a write is needed), what the migration block throws,
    ///   `.storage`.
    static func bind(
        _ schemas: [ObjectSchema], requirements: SchemaRequirements, environment: Environment
    ) throws(StoreError) -> [TableBinding] {
        var finalSchema: StoredSchema?
        for _ in 0..<3 {
            let stored: StoredSchema?
            switch try readStoredState(environment) {
            case .current(let schema):
                stored = schema
            case .upgradable:
                try FormatUpgrade.upgrade(environment)
                stored = try readStoredSchema(environment)
            }
            let plan = try Plan(
                code: schemas, stored: stored, schemaVersion: requirements.schemaVersion,
                readOnly: environment.options.readOnly)
            guard plan.needsWrite else {
                finalSchema = stored
                break
            }
            if requirements.deletesFileNeedingMigration, plan.runsMigration || !plan.convertedTypes.isEmpty {
                // the file is deleted
                throw .migrationRequired("the file's schema version is \(stored?.schemaVersion ?? 0)")
            }
            guard !environment.options.readOnly else { throw .readOnly }
            guard !environment.isWriterOnCurrentThread else { throw .alreadyInWriteTransaction }
            if let stored {
                // Old rows are read through a second transaction: their tables' handles must be published first.
                _ = try openTables(for: stored.types, environment: environment)
            }
            // nil: another process changed the schema meanwhile; plan again.
            finalSchema = try apply(
                plan, planned: stored, schemas: schemas, requirements: requirements, environment: environment)
            if finalSchema != nil { break }
        }
        guard let finalSchema else { throw .corrupted("the file has no schema, or another process keeps changing it") }
        let tables = try openTables(
            for: schemas.compactMap { finalSchema.type(named: $0.name) }, environment: environment)
        var bindings: [TableBinding] = []
        for (ordinal, schema) in schemas.enumerated() {
            guard let storedType = finalSchema.type(named: schema.name) else {
                throw .corrupted("the file lacks the type \(schema.name) its schema was just given")
            }
            bindings.append(
                TableBinding(
                    schema: schema, stored: storedType, tables: try StoredTables(storedType, in: tables),
                    ordinal: ordinal, keysInOrder: environment.sealing == nil))
        }
        return bindings
    }

    // MARK: Reading

    /// What the meta table says: a schema of the current format (nil for a new file), or a file of an
    /// older format that `FormatUpgrade` upgrades.
    enum StoredState {
        case current(StoredSchema?)
        case upgradable(fromVersion: UInt32)
    }

    /// The file's schema.
    ///
    /// - Throws: `.corrupted` when it is unreadable, or the file is of an older format (not upgraded yet).
    static func readStoredSchema(_ environment: Environment) throws(StoreError) -> StoredSchema? {
        switch try readStoredState(environment) {
        case .current(let schema):
            return schema
        case .upgradable(let version):
            throw .corrupted(
                "the file is of format version \(version), which opening it with Store(configuration:) "
                    + "(not read-only) upgrades to version \(formatVersion); until then this Strata cannot read it")
        }
    }

    static func readStoredState(_ environment: Environment) throws(StoreError) -> StoredState {
        try environment.withTableRegistry { (registry) throws(StoreError) -> StoredState in
            let transaction = try beginRead(environment)
            let meta: Table
            if let published = registry[TableName.meta] {
                meta = published
            } else {
                let dbi: UInt32?
                dbi = try StoreError.mapping { () throws(LMDBError) in
                    try transaction.openTable(named: TableName.meta, flags: [])
                }
                guard let dbi else { return .current(nil) }  // a new, empty file
                meta = Table(dbi: dbi, flags: [])
            }
            let schema = try readSchema(meta: meta) { (key) throws(LMDBError) in try transaction.get(meta, key: key) }
            do throws(LMDBError) {
                try transaction.commit()  // keeps the meta handle; consumes the transaction, which no closure can take
            } catch {
                throw StoreError(error)
            }
            registry[TableName.meta] = meta
            return schema
        }
    }

    private static func beginRead(_ environment: Environment) throws(StoreError) -> ReadTransaction {
        return try StoreError.mapping { () throws(LMDBError) in
            try ReadTransaction(environment)
        }
    }

    /// Reads and checks the format version and the schema through `get`.
    private static func readSchema(
        meta: Table, get: (UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer?
    ) throws(StoreError) -> StoredState {
        do {
            let format = try Array(MetaKey.format.utf8).withBytes { (key) throws(LMDBError) in try get(key) }
            let schema = try Array(MetaKey.schema.utf8).withBytes { (key) throws(LMDBError) in try get(key) }
            switch (format, schema) {
            case (nil, nil):
                return .current(nil)
            case (let format?, nil):
                try checkFormat(format)
                return .current(nil)  // a new file: created with its format record, no schema yet
            case (let format?, let schema?):
                let version = try decodeFormat(format)
                if (FormatUpgrade.oldestUpgradable..<formatVersion).contains(version) {
                    return .upgradable(fromVersion: version)
                }
                try checkFormat(format)
                return .current(try StoredSchema(decoding: schema))
            default:
                throw StoreError.corrupted("the meta table has only one of its format version and schema")
            }
        } catch {
            throw StoreError(wrapping: error)
        }
    }

    private static func checkFormat(_ format: UnsafeRawBufferPointer) throws(StoreError) {
        let version = try decodeFormat(format)
        guard version == formatVersion else {
            throw .corrupted("the file's format version is \(version); this Strata reads version \(formatVersion)")
        }
    }

    private static func decodeFormat(_ format: UnsafeRawBufferPointer) throws(StoreError) -> UInt32 {
        guard format.count == 4 else { throw .corrupted("the format version has \(format.count) bytes") }
        return UInt32(littleEndian: format.loadUnaligned(as: UInt32.self))
    }

    // MARK: Creating

    /// Carries out `plan` in one write: new types' tables, converted rows, the migration block,
    /// rebuilt indexes and backlinks, the new schema. Returns nil, changing nothing, when the file's
    /// schema is no longer `planned` (another process wrote it meanwhile).
    private static func apply(
        _ plan: Plan, planned: StoredSchema?, schemas: [ObjectSchema], requirements: SchemaRequirements,
        environment: Environment
    ) throws(StoreError) -> StoredSchema? {
        // Writer lock first, then the table registry lock (see `withTableRegistry`).
        var transaction: WriteTransaction?
        transaction = try StoreError.mapping { try WriteTransaction(environment) }
        return try environment.withTableRegistry { (registry) throws(StoreError) -> StoredSchema? in
            var opened: [String: Table] = [:]
            let final = plan.finalSchema(from: planned, schemaVersion: requirements.schemaVersion)
            let context: MigrationContext
            do {
                guard let metaDBI = try transaction!.openTable(named: TableName.meta, flags: [], create: true) else {
                    throw StoreError.corrupted("cannot create the meta table")
                }
                let meta = Table(dbi: metaDBI, flags: [])
                opened[TableName.meta] = meta
                let current = try readSchema(meta: meta) { (key) throws(LMDBError) in
                    try transaction!.get(meta, key: key)
                }
                guard case .current(let schema) = current, schema == planned else { return nil }
                for type in final.types {
                    for (name, flags) in tableNames(of: type) where registry[name] == nil {
                        guard let dbi = try transaction!.openTable(named: name, flags: flags, create: true) else {
                            throw StoreError.storage(.notFound)
                        }
                        opened[name] = Table(dbi: dbi, flags: flags)
                    }
                }
                if plan.isNewFile {
                    _ = try withBytes(of: formatVersion.littleEndian) { (value) throws(LMDBError) in
                        try Array(MetaKey.format.utf8).withBytes { (key) throws(LMDBError) in
                            try transaction!.put(meta, key: key, value: value)
                        }
                    }
                }
                context = MigrationContext(
                    write: transaction.take()!, tables: registry.merging(opened) { published, _ in published },
                    old: planned, new: final, code: schemas)
            } catch {
                throw StoreError(wrapping: error)
            }
            try migrate(plan, context: context, requirements: requirements, environment: environment)
            try context.fullTextChanges.flush(to: context)
            do {
                let meta = try context.table(TableName.meta)
                _ = try final.encoded().withBytes { (value) throws(LMDBError) in
                    try Array(MetaKey.schema.utf8).withBytes { (key) throws(LMDBError) in
                        try context.write!.put(meta, key: key, value: value)
                    }
                }
                context.read = nil
                try context.write.take()!.commit()
            } catch {
                throw StoreError(wrapping: error)
            }
            registry.merge(opened) { published, _ in published }
            return final
        }
    }

    /// The row work of a plan, inside its write (`context`).
    private static func migrate(
        _ plan: Plan, context: MigrationContext, requirements: SchemaRequirements, environment: Environment
    ) throws(StoreError) {
        guard !plan.isNewFile else { return }
        let needsOldRows = !plan.convertedTypes.isEmpty || plan.runsMigration
        if needsOldRows {
            // the file as it was: this write's base
            context.read = try StoreError.mapping { try ReadTransaction(environment) }
        }
        for (code, stored) in plan.convertedTypes {
            guard let new = context.new.type(named: code.name) else { continue }
            try context.convertRows(from: stored, to: new)
        }
        context.rekeyed = plan.rekeyedTypeNames
        if plan.runsMigration, let migration = requirements.migration {
            do {
                try migration(Migration(context: context), context.old?.schemaVersion ?? 0)
            } catch {
                // A failure the block could not see (a subscript cannot throw) is the cause of what followed.
                if let failure = context.failure { throw failure }
                if let error = error as? StoreError { throw error }
                throw .migrationRequired("the migration block threw: \(error)")
            }
            try context.checkNotFailed()
        }
        for name in plan.removedTypeNames {
            guard let old = context.old?.type(named: name) else { continue }
            for (table, _) in tableNames(of: old) {
                if let handle = context.tables[table] { try context.empty(handle) }
            }
        }
        try context.rekeyRows()  // before links are repaired: they follow the rows to their new keys
        let rebuilt: [StoredSchema.StoredType] =
            plan.runsMigration
            ? context.new.types
            : (plan.convertedTypes.map(\.code.name) + plan.reindexedTypes.map(\.code.name)).compactMap(
                context.new.type(named:))
        try context.rebuildDerivedTables(of: rebuilt, previous: context.old, repairingLinks: plan.runsMigration)
    }

    /// The tables a type needs: its rows, and one table with duplicates per index.
    static func tableNames(of type: StoredSchema.StoredType) -> [(String, TableFlags)] {
        let indexes: [(String, TableFlags)] = type.properties.filter(\.isIndexed).map {
            (TableName.index(type.name, $0.name), TableFlags.duplicates)
        }
        let backlinks: [(String, TableFlags)] = type.properties.filter { $0.type.linkedTypeName != nil }.map {
            (TableName.backlinks(type.name, $0.name), TableFlags.duplicates)
        }
        var fullText: [(String, TableFlags)] = []
        let integerKeys = type.properties.first(where: \.isPrimaryKey).map { $0.type.keyKind == .integer } ?? true
        for property in type.properties where property.fullText != nil {
            fullText.append((TableName.fullTextTerms(type.name, property.name), TableFlags()))
            if !integerKeys {
                fullText.append((TableName.fullTextDocuments(type.name, property.name), TableFlags()))
                fullText.append((TableName.fullTextRows(type.name, property.name), TableFlags()))
            }
        }
        for property in type.properties where property.vector != nil {
            for name in TableName.vectorTables(type.name, property.name, integerKeys: integerKeys) {
                fullText.append((name, TableFlags()))
            }
        }
        return [(TableName.objects(type.name), TableFlags())] + indexes + backlinks + fullText
    }

    /// Handles of every table of `types`, opening the ones no committed transaction opened yet.
    ///
    /// - Throws: `.corrupted` when the stored schema names a table the file lacks.
    static func openTables(
        for types: [StoredSchema.StoredType], environment: Environment
    ) throws(StoreError) -> [String: Table] {
        let wanted = types.flatMap(tableNames(of:))
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
                } catch {
                    throw StoreError(wrapping: error)
                }
            }
            return registry
        }
    }
}

/// What opening a file requires of its schema, besides the model types: a Store's configuration, as
/// the schema layer sees it.
struct SchemaRequirements {
    /// The schema version the code is at; a file at a lower one is migrated.
    var schemaVersion: UInt64
    /// Runs inside the migration's write, with the file's old schema version.
    var migration: (@Sendable (_ migration: Migration, _ oldVersion: UInt64) throws -> Void)?
    /// Whether a file that needs a migration is refused with `.migrationRequired` (it is then deleted).
    var deletesFileNeedingMigration = false
}
