
/// Finds which `@Persisted` property a key path names, the way Realm does: by reading the key path
/// on a recording instance. A recorder is an unmanaged instance whose wrappers carry their property
/// index as "column", so a read takes the managed path and lands in `_recordRead`, which notes the
/// index instead of reading a row.
enum KeyPathResolver {
    /// `_epoch` of a recorder; managed objects count epochs from 1, unmanaged ones keep 0.
    static let recorderMark = UInt64.max

    /// Key paths are immutable, though not declared Sendable.
    private struct CachedKeyPath: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    private static let cache = Locked<[CachedKeyPath: Int]>([:])

    /// The index in `schema.properties` of the property `keyPath` reads.
    ///
    /// - Warning: Traps when the key path reads no `@Persisted` property, several, or goes past one
    ///   (`\.name.count`): queries, sorts and aggregates name stored properties.
    static func propertyIndex<Root: Object, Value>(_ keyPath: KeyPath<Root, Value>, in schema: ObjectSchema) -> Int {
        propertyIndex(keyPath as PartialKeyPath<Root>, in: schema)
    }

    /// As above, for a key path whose value type is known only at run time.
    static func propertyIndex<Root: Object>(_ keyPath: PartialKeyPath<Root>, in schema: ObjectSchema) -> Int {
        if let index = cache.withLock({ $0[CachedKeyPath(keyPath: keyPath)] }) { return index }
        let valueType = type(of: keyPath).valueType
        let recorder = schema.type.init()
        recorder._epoch = recorderMark
        recorder._rowGeneration = 0
        let base = Unmanaged.passUnretained(recorder).toOpaque()
        for (index, accessor) in schema.accessors.enumerated() {
            (base + accessor.columnOffset).storeBytes(of: index, as: Int.self)
        }
        guard let typed = recorder as? Root else {
            preconditionFailure("Strata: \(keyPath) is not a key path of \(schema.name)")
        }
        _ = typed[keyPath: keyPath]
        guard recorder._rowGeneration == 1, case .integer(let recorded) = recorder._key,
            schema.accessors.indices.contains(Int(recorded)),
            ObjectIdentifier(schema.accessors[Int(recorded)].valueType) == ObjectIdentifier(valueType)
        else {
            preconditionFailure(
                "Strata: \(keyPath) does not name one @Persisted property of \(schema.name); "
                    + "queries, sorts and aggregates take key paths to stored properties")
        }
        // Unbind before the recorder goes, like any unmanaged object.
        for accessor in schema.accessors { (base + accessor.columnOffset).storeBytes(of: -1, as: Int.self) }
        let index = Int(recorded)
        cache.withLock { $0[CachedKeyPath(keyPath: keyPath)] = index }
        return index
    }
}

extension Object {
    /// A recorder's property read: notes which property was read and returns a placeholder value.
    @usableFromInline
    final func _recordRead<V: _Persistable>(_ column: Int) -> V {
        precondition(_epoch == KeyPathResolver.recorderMark, "Strata: reading a column of an unmanaged object")
        _key = .integer(UInt64(column))
        _rowGeneration &+= 1
        return V._strataZero()
    }
}
