#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening a Store's file: discovers the model types' schemas, leases the file's environment (with
/// compaction on launch), and binds the schemas to its tables, migrating when needed.
enum StoreOpening {
    /// The environment of `configuration`'s file and the model types bound to its tables.
    ///
    /// - Throws: what `Store.init(configuration:)` documents.
    static func open(_ configuration: Store.Configuration) throws(StoreError) -> (EnvironmentLease, [TableBinding]) {
        guard !configuration.objectTypes.isEmpty else {
            throw .invalidArgument("Configuration.objectTypes is empty: list the model types")
        }
        let schemas = try ObjectSchema.closure(of: configuration.objectTypes)
        let location = try configuration.resolvedLocation()
        var options = try configuration.environmentOptions
        let tableCount =
            1
            + schemas.reduce(0) {
                $0 + 1 + $1.properties.filter { $0.isIndexed || $0.type.linkedTypeName != nil }.count
            }
        options.maxTables = UInt32(max(256, 2 * tableCount))
        return try lease(schemas, configuration: configuration, location: location, options: options)
    }

    /// Leases the file's environment and binds the schema to it; with `deleteStoreIfMigrationNeeded`,
    /// deletes a file that needs a migration (when nothing of this process or another has it open)
    /// and starts afresh.
    private static func lease(
        _ schemas: [ObjectSchema], configuration: Store.Configuration, location: (path: String, isInMemory: Bool),
        options: EnvironmentOptions
    ) throws(StoreError) -> (EnvironmentLease, [TableBinding]) {
        let registry = EnvironmentRegistry.shared
        do {
            let lease = try StoreError.mapping { () throws(StorageError) -> EnvironmentLease in
                if let shouldCompact = configuration.shouldCompactOnLaunch, !location.isInMemory {
                    return try registry.lease(path: location.path, options: options, compactingIf: shouldCompact)
                }
                return try registry.lease(path: location.path, options: options, temporary: location.isInMemory)
            }
            return (
                lease,
                try SchemaBinder.bind(
                    schemas, requirements: configuration.schemaRequirements, environment: lease.environment)
            )
        } catch .migrationRequired(let reason) {
            guard configuration.deleteStoreIfMigrationNeeded, !location.isInMemory,
                try deleteUnlessOpen(location.path, options: options)
            else { throw .migrationRequired(reason) }
            let lease = try StoreError.mapping { try registry.lease(path: location.path, options: options) }
            return (
                lease,
                try SchemaBinder.bind(
                    schemas, requirements: configuration.schemaRequirements, environment: lease.environment)
            )
        }
    }

    /// Deletes the file as `Store.deleteFiles(for:)` does; false when it is open in this process or
    /// another (`EBUSY`), so the caller keeps it.
    private static func deleteUnlessOpen(_ path: String, options: EnvironmentOptions) throws(StoreError) -> Bool {
        do {
            return try EnvironmentRegistry.shared.deleteFiles(at: path, options: options)
        } catch .fileAccess(_, let code) where code == EBUSY {
            return false
        } catch {
            throw StoreError(error)
        }
    }
}
