import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store file opened read-only from the schema stored in it, without the app's model classes
/// (Realm's dynamic Realm). What tools such as the `strata` command use to inspect, verify, dump and
/// compact a file another process may be using.
///
/// ```swift
/// let file = try DynamicStore(path: "/var/lib/app/app.strata")
/// for type in file.types { print(type.name, try file.count(ofType: type.name)) }
/// try file.verify()
/// ```
/// Every call reads the newest commit in a snapshot of its own.
///
/// - Warning: Use an instance from one thread at a time (it is not `Sendable`).
public final class DynamicStore {
    /// The file's path.
    public let path: String
    /// The schema version the file was last opened with.
    public let schemaVersion: UInt64
    /// The stored types, by name.
    public let types: [DynamicObjectType]

    let lease: EnvironmentLease
    private var environment: Environment { lease.environment }
    let stored: StoredSchema
    /// Per stored type, in `stored.types` order.
    let verifiedTypes: [VerifiedType]
    let typeIndexByName: [String: Int]
    /// Per stored type, in `stored.types` order: its schema bound to its tables, as queries read it.
    let bindings: [TableBinding]
    /// The stored types' schemas by name: where a query's links lead.
    let storedSchemas: [String: ObjectSchema]

    /// Opens the file at `path` read-only and reads its schema. Nothing is written, and the file may
    /// be open in other processes (or as a `Store` of this one) meanwhile.
    ///
    /// `encryptionKey`: the key of an encrypted file (`Store.Configuration.encryptionKey`).
    ///
    /// - Throws: `.fileAccess` when the file is missing or unreadable, `.corrupted` when it is not a
    ///   Strata file, is damaged, or holds no schema, `.encryption` when the key is missing or wrong,
    ///   `.storage`.
    public init(path: String, encryptionKey: Data? = nil) throws(StoreError) {
        let path = try StoreError.mapping { try EnvironmentRegistry.canonicalPath(path) }
        guard let size = fileSize(atPath: path) else { throw .fileAccess(path: path, code: errno) }
        let options = EnvironmentOptions(
            mapSize: max(Store.Configuration.defaultMaximumSize, (size + 4095) / 4096 * 4096), readOnly: true,
            maxTables: 4096, encryptionKey: encryptionKey.map(Array.init))
        let lease = try StoreError.mapping {
            try EnvironmentRegistry.shared.lease(path: path, options: options, joiningAnyOptions: true)
        }
        guard let stored = try SchemaBinder.readStoredSchema(lease.environment) else {
            throw .corrupted(
                "\(path) holds no Strata schema (an LMDB file of another program, or never opened as a store)")
        }
        let tables = try SchemaBinder.openTables(for: stored.types, environment: lease.environment)
        self.path = path
        self.lease = lease
        self.stored = stored
        schemaVersion = stored.schemaVersion
        types = stored.types.sorted { $0.name < $1.name }.map {
            DynamicObjectType(
                name: $0.name, properties: $0.properties.map(DynamicProperty.init), uniqueKeys: $0.uniqueKeys,
                isEmbedded: $0.isEmbedded)
        }
        typeIndexByName = Dictionary(uniqueKeysWithValues: stored.types.enumerated().map { ($1.name, $0) })
        let storedTables = try stored.types.map { (type) throws(StoreError) in try StoredTables(type, in: tables) }
        verifiedTypes = zip(stored.types, storedTables).map { VerifiedType($0, tables: $1) }
        bindings = stored.types.indices.map { index in
            TableBinding(
                schema: ObjectSchema(stored: stored.types[index]), stored: stored.types[index],
                tables: storedTables[index], ordinal: index, keysInOrder: lease.environment.sealing == nil)
        }
        storedSchemas = Dictionary(uniqueKeysWithValues: bindings.map { ($0.name, $0.schema) })
    }

    // MARK: Reading

    /// The number of objects of the type named `typeName`.
    ///
    /// - Throws: `.invalidArgument` for a type the file does not have, `.storage`.
    public func count(ofType typeName: String) throws(StoreError) -> Int {
        let type = verifiedTypes[try typeIndex(named: typeName)]
        return try read { (transaction) throws(LMDBError) in try transaction.count(type.table) }
    }

    /// Visits the objects of the type named `typeName` (the first `limit` of them), in primary key
    /// order, in one snapshot.
    ///
    /// - Throws: `.invalidArgument` for a type the file does not have, `.corrupted` for a row that
    ///   does not decode (objects before it were visited), `.storage`.
    public func forEachObject(ofType typeName: String, limit: Int = .max, _ body: (DynamicObject) -> Void)
        throws(StoreError)
    {
        let index = try typeIndex(named: typeName)
        let type = verifiedTypes[index]
        let storedType = stored.types[index]
        var visited = 0
        let failure: StoreError? = try read { (transaction) throws(LMDBError) -> StoreError? in
            try transaction.withCursor(type.table) { (cursor) throws(LMDBError) -> StoreError? in
                try cursor.walk(from: cursor.first(), while: { _ in visited < limit }) { (entry) throws(StoreError) in
                    visited += 1
                    body(
                        try self.object(key: entry.key, row: .sealed(entry.value), type: type, stored: storedType) {
                            (table, key) throws(StoreError) in
                            try StoreError.mapping { () throws(LMDBError) in try transaction.get(table, key: key) }
                        })
                }
            }
        }
        if let failure { throw failure }
    }

    /// Every object of the type named `typeName`, in primary key order.
    ///
    /// - Throws: as `forEachObject(ofType:_:)`.
    public func objects(ofType typeName: String) throws(StoreError) -> [DynamicObject] {
        var objects: [DynamicObject] = []
        try forEachObject(ofType: typeName) { objects.append($0) }
        return objects
    }

    /// Looks up a key's stored row in a table, in one snapshot (nil: none).
    typealias RowFetch = (Table, UnsafeRawBufferPointer) throws(StoreError) -> UnsafeRawBufferPointer?

    /// A row's bytes as a read found them.
    enum RowBytes {
        /// As stored: sealed (`RowSeal`).
        case sealed(UnsafeRawBufferPointer)
        /// A row the query engine read, its seal already checked.
        case opened(UnsafeRawBufferPointer)
    }

    /// The object stored under `rawKey`, every column of its row checked, links looked up with
    /// `fetch`. A link is a `DynamicLink`, or, to an `EmbeddedObject`, the embedded object itself (it
    /// has no identity of its own); a link inside a mixed value whose target is gone is nil.
    func object(
        key rawKey: UnsafeRawBufferPointer, row bytes: RowBytes, type: VerifiedType,
        stored: StoredSchema.StoredType, depth: Int = 0, fetch: RowFetch
    ) throws(StoreError) -> DynamicObject {
        let primaryKey = try describeKey(rawKey, of: type)
        let row: RowView
        do {
            switch bytes {
            case .sealed(let bytes):
                row = try RowView(validatingStored: bytes, key: rawKey, expectedColumns: stored.properties.count)
            case .opened(let bytes):
                row = try RowView(validating: bytes, expectedColumns: stored.properties.count)
            }
        } catch {
            throw .corrupted("\(type.name)[\(primaryKey)]: \(error)")
        }
        var values: [(name: String, value: Any?)] = []
        for (index, property) in stored.properties.enumerated() {
            do {
                let value = try DynamicValue.decode(
                    try column(row, index, of: stored), type: property.type, resolvingMixedLinks: true
                ) { (target, key) throws(StoreError) -> Any? in
                    try linked(target, key: key, depth: depth, fetch: fetch)
                }
                values.append((property.name, value))
            } catch {
                throw .corrupted("\(type.name)[\(primaryKey)].\(property.name): \(error)")
            }
        }
        return DynamicObject(typeName: type.name, primaryKey: primaryKey, values: values)
    }

    /// What a link to `key` of `target` reads as: the embedded object, a `DynamicLink`, or nil when
    /// the target is gone (a mixed value's link is left in place when its target is deleted).
    private func linked(
        _ target: String, key: [UInt8], depth: Int, fetch: RowFetch
    ) throws(StoreError) -> Any? {
        guard let targetIndex = typeIndexByName[target] else {
            throw .corrupted("a link to \(target), a type the file lacks")
        }
        let targetType = verifiedTypes[targetIndex]
        let stored = try key.withBytes { (key) throws(StoreError) in try fetch(targetType.table, key) }
        guard let stored else { return nil }
        guard self.stored.types[targetIndex].isEmbedded else {
            return DynamicLink(
                typeName: target,
                primaryKey: try key.withBytes { (key) throws(StoreError) in try describeKey(key, of: targetType) })
        }
        // One owner per embedded object, so no cycle in a sound file; a damaged one could hold one.
        guard depth < Self.maximumEmbeddingDepth else {
            throw .corrupted("embedded objects nest more than \(Self.maximumEmbeddingDepth) deep (a cycle?)")
        }
        return try key.withBytes { (rawKey) throws(StoreError) in
            try object(
                key: rawKey, row: .sealed(stored), type: targetType, stored: self.stored.types[targetIndex],
                depth: depth + 1,
                fetch: fetch)
        }
    }

    private static let maximumEmbeddingDepth = 64

    private func describeKey(_ key: UnsafeRawBufferPointer, of type: VerifiedType) throws(StoreError) -> String {
        do {
            return type.describe(try RowKey(stored: key, kind: type.keyKind))
        } catch {
            throw .corrupted("\(type.name): a key is damaged: \(error)")
        }
    }

    func typeIndex(named name: String) throws(StoreError) -> Int {
        guard let index = typeIndexByName[name] else {
            throw .invalidArgument(
                "the file has no type \(name); it has \(types.map(\.name).joined(separator: ", "))")
        }
        return index
    }

    func read<R>(_ body: (borrowing ReadTransaction) throws(LMDBError) -> R) throws(StoreError) -> R {
        do {
            let transaction = try ReadTransaction(environment)
            return try body(transaction)
        } catch {
            throw StoreError(error)
        }
    }

    // MARK: Checking and copying

    /// Walks every page of the file, then every table, row, index and link of the stored schema,
    /// as `Store.verify()` does, reporting progress about every thousand rows; then lists the orphans
    /// of owning links, as `Store.verify()` does.
    ///
    /// ```swift
    /// let report = try DynamicStore(path: path).verify { print("\($0.checkedRows)/\($0.totalRows)") }
    /// for orphan in report.orphans { print("no owner:", orphan) }
    /// ```
    /// - Throws: `.corrupted` naming the type, key and damage of the first problem found, `.storage`.
    @discardableResult
    public func verify(progress: ((VerificationProgress) -> Void)? = nil) throws(StoreError) -> VerificationReport {
        _ = try StoreError.mapping { try environment.checkPages() }
        let verifier = Verifier(types: verifiedTypes, progress: progress)
        let transaction: ReadTransaction
        transaction = try StoreError.mapping { try ReadTransaction(environment) }
        try verifier.run(on: transaction)
        return VerificationReport(orphans: try orphans(in: transaction))
    }

    /// Objects of a type an owning link points to that no owning link holds (its backlink tables
    /// have no entry for them), as `Type[key]`.
    private func orphans(in transaction: borrowing ReadTransaction) throws(StoreError) -> [String] {
        let links = verifiedTypes.flatMap(\.links)
        var orphans: [String] = []
        for type in verifiedTypes {
            let owning = links.filter { $0.isOwning && $0.target == type.name }
            guard !owning.isEmpty else { continue }
            let failure: StoreError? = try StoreError.mapping { () throws(LMDBError) -> StoreError? in
                try transaction.withCursor(type.table) { (cursor) throws(LMDBError) -> StoreError? in
                    try cursor.walk(from: cursor.first()) { (entry) throws(StoreError) in
                        for link in owning {
                            let held = try StoreError.mapping { () throws(LMDBError) in
                                try transaction.get(link.table, key: entry.key)
                            }
                            if held != nil { return }
                        }
                        orphans.append("\(type.name)[\(try describeKey(entry.key, of: type))]")
                    }
                }
            }
            if let failure { throw failure }
        }
        return orphans
    }

    /// The file's size and use, and the reader slots of every process that pin old versions.
    ///
    /// - Throws: `.fileAccess`, `.storage`.
    public func diagnostics() throws(StoreError) -> Store.Diagnostics {
        try Store.Diagnostics(environment)
    }

    /// Writes a consistent copy of the newest commit to a new file (`compact`: without free pages).
    ///
    /// - Throws: `.fileAccess` when `url` exists or cannot be written, `.invalidArgument` for a
    ///   non-file URL, `.storage`.
    public func writeCopy(to url: URL, compact: Bool = false) throws(StoreError) {
        guard url.isFileURL else { throw .invalidArgument("\(url) is not a file URL") }
        try StoreError.mapping { try environment.copy(to: url.path, compact: compact) }
    }

    /// Replaces the file at `path` with a compacted copy of itself (no free pages), when no process
    /// has it open. Returns the file's size before and after. A process that opens the file while it
    /// is compacted waits until the copy has replaced it. `encryptionKey`: an encrypted file's key.
    ///
    /// ```swift
    /// let (before, after) = try DynamicStore.compactFile(atPath: path)
    /// ```
    /// - Throws: `.fileAccess` with `EBUSY` when this or another process has the file open (copy it
    ///   with `writeCopy(to:compact:)` instead), `.fileAccess` when the copy cannot be written or
    ///   renamed, what `init(path:)` throws. The original file is left as it was on any failure.
    public static func compactFile(atPath path: String, encryptionKey: Data? = nil) throws(StoreError) -> (
        bytesBefore: Int, bytesAfter: Int
    ) {
        let canonical = try StoreError.mapping { try EnvironmentRegistry.canonicalPath(path) }
        guard !EnvironmentRegistry.shared.isOpen(canonical) else { throw .fileAccess(path: path, code: EBUSY) }
        // A Strata file, its key if it is encrypted, and how to open it.
        let options = try DynamicStore(path: canonical, encryptionKey: encryptionKey).environment.options
        do {
            return try EnvironmentRegistry.shared.compactInPlace(path: canonical, options: options)
        } catch {
            // Named as the caller named it.
            if case .fileAccess(_, EBUSY) = error { throw .fileAccess(path: path, code: EBUSY) }
            throw StoreError(error)
        }
    }
}
