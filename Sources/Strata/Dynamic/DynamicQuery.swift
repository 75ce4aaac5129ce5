import Foundation

extension DynamicStore {
    /// The objects of the type named `typeName` that satisfy `query` (Realm Query Language's syntax,
    /// as `Results.where(_:_:)`, with `SORT`, `DISTINCT` and `LIMIT`), read in one snapshot, in
    /// primary-key order unless sorted.
    ///
    /// The query is compiled by the compiler `Results.where(_:_:)` uses, against the file's stored
    /// types, and run by the same planner and engine: an index, the split walk, a first page and
    /// every other route serve it as they serve a `Results`.
    ///
    /// ```swift
    /// let adults = try DynamicStore(path: path).objects(ofType: "Person", where: "age >= $0 SORT(name ASC)", arguments: [18])
    /// ```
    /// - Throws: `.invalidArgument` for an unknown type, a syntax error, an unknown property or a value
    ///   of the wrong type (naming the position); `.corrupted` for a damaged row; `.storage`.
    public func objects(ofType typeName: String, where query: String, arguments: [any Sendable] = [])
        throws(StoreError) -> [DynamicObject]
    {
        let index = try typeIndex(named: typeName)
        let binding = bindings[index]
        var compiler = QueryCompiler(text: query, arguments: arguments.map { $0 as Any? })
        compiler.storedSchemas = storedSchemas
        let stages: [Results<StoredRow>.Stage] = try compiler.stages(in: binding)
        var planner = QueryPlanner(binding: binding, stages: stages)
        let route = planner.plan().route
        // A core per call: the newest commit, read in one snapshot that stays while the call runs.
        let core = try StoreCore(lease, bindings, Self.queryConfiguration(path), .frozen)
        // The engine's rows stay valid while `core` (their snapshot) lives: read here, not looked up again.
        let found = try QueryEngine<StoredRow>(core: core, binding: binding).contents(route)
        let type = verifiedTypes[index]
        let storedType = stored.types[index]
        let fetch = { (table: Table, key: UnsafeRawBufferPointer) throws(StoreError) -> UnsafeRawBufferPointer? in
            try StoreError.mapping { () throws(LMDBError) in try core.get(table, key: key) }
        }
        var objects: [DynamicObject] = []
        objects.reserveCapacity(found.keys.count)
        for (key, row) in zip(found.keys, found.rows) {
            objects.append(
                try key.withBytes { (rawKey) throws(StoreError) in
                    try object(key: rawKey, row: .opened(row.bytes), type: type, stored: storedType, fetch: fetch)
                })
        }
        return objects
    }

    /// What a query's core is opened with: one-shot queries read columns where they lie (no copy of
    /// a column is worth making for one read).
    private static func queryConfiguration(_ path: String) -> Store.Configuration {
        var configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.columnCopyLimit = 0
        return configuration
    }
}
