/// The path of a managed property read or write, called from the inlined `@Persisted` accessor.
extension Object {
    @inlinable
    final func _read<V: _Persistable>(_ column: Int, as type: V.Type) -> V {
        let bytes: UnsafeRawBufferPointer?
        if let row = _currentCachedRow {
            do {
                bytes = try row.column(column)
            } catch {
                _trapCorrupted(column: column, .corrupted("\(error)"))
            }
        } else {
            if _store == nil { return _recordRead(column) }  // a query's key-path recorder
            bytes = _columnBytes(column)  // looks the row up, checking thread and deletion
        }
        if let observation = _observation { _observed(column, observation) }  // after the thread check
        do {
            return try V._strataDecodeColumn(bytes, in: _DecodeContext(owner: self, column: column))
        } catch {
            _trapCorrupted(column: column, error)
        }
    }

    @inlinable
    final func _write<V: _Persistable>(_ value: V, column: Int) {
        _writeColumn(
            column, linkedObjects: { Object._linkedObjects(in: value) },
            encode: { (row: inout _RowEncoder) throws(StoreError) in try value._strataEncodeColumn(into: &row) })
    }

    /// The objects a value of a link, collection or mixed property points to (asked for those only):
    /// a mixed value's `.object`, in nested lists and maps too.
    @usableFromInline
    static func _linkedObjects(in value: Any) -> [Object] {
        switch value {
        case let object as Object: [object]
        case let list as AnyList: list.linkedObjects
        case let mixed as AnyValue: mixed.linkedObjects
        default: []
        }
    }

    /// The row cached for the Store's current generation, read on the Store's thread: the fast path
    /// of a property read (no call into the Store).
    @inlinable
    final var _currentCachedRow: RowView? {
        guard let store = _store, _rowGeneration == store.generation, let row = _row, store.confinement.isCurrent
        else { return nil }
        return row
    }

    /// The bytes of a column of this managed object's row (nil: null). Traps on the wrong thread, a
    /// deleted object, or a damaged row.
    @usableFromInline
    final func _columnBytes(_ column: Int) -> UnsafeRawBufferPointer? {
        guard let store = _store else { preconditionFailure("Strata: reading a column of an unmanaged object") }
        return store.columnBytes(of: self, column: column)
    }

    /// The bytes of a column, from the row cached for the Store's current generation when there is
    /// one (the read fast path of collections: a Map's key, a List's elements), else as `_columnBytes`.
    final func _collectionColumnBytes(_ column: Int) -> UnsafeRawBufferPointer? {
        if let row = _currentCachedRow {
            do {
                return try row.column(column)
            } catch {
                _trapCorrupted(column: column, .corrupted("\(error)"))
            }
        }
        return _columnBytes(column)
    }

    /// Changes a column of this managed object's row. `linkedObjects` gives the objects the new value
    /// links to (asked for link columns only): they are stored before the row is encoded.
    @usableFromInline
    final func _writeColumn(
        _ column: Int, linkedObjects: () -> [Object], encode: (inout _RowEncoder) throws(StoreError) -> Void
    ) {
        guard let store = _store else { preconditionFailure("Strata: writing a column of an unmanaged object") }
        store.setColumn(of: self, column: column, linkedObjects: linkedObjects, encode: encode)
    }

    @usableFromInline
    final func _trapCorrupted(column: Int, _ error: StoreError) -> Never {
        let name = _binding.map { $0.location(of: _key, column: column) } ?? "\(type(of: self))"
        preconditionFailure("\(TrapMessage.corrupted): \(name): \(error)")
    }
}

/// A to-one link: `@Persisted var owner: Person?` stores the target's key.
extension Object: _OptionalPersistable {
    public static var _strataValueType: _SchemaType {
        _SchemaType(.link(storedTypeName), linkedType: self)
    }

    /// The key of the linked row. Writes resolve links before they encode a row (an unmanaged target
    /// is added first, or given its key by the add under way), so a target without a key was linked
    /// where nothing stores it.
    public func _strataEncodeValue(into row: inout _RowEncoder) throws(StoreError) {
        guard _binding != nil else {
            throw .invalidArgument("\(type(of: self)) is linked but not stored: link objects that are added or managed")
        }
        row.writeLink(key: _key)
    }

    /// A link's probe: a recorder of the linked type, so that a key path can go on through the link
    /// (nil in the round that checks what the key path does with a nil link).
    public static func _strataOptionalProbe(_ round: Int) -> Self? {
        guard let recording = KeyPathRecordings.current, !recording.nilLinks else { return nil }
        return recording.linkRecorder(self) as? Self
    }

    public static func _strataIsOptionalProbe(_ value: Any?, _ round: Int) -> Bool {
        guard let recording = KeyPathRecordings.current else { return false }
        guard let object = value as? Object else { return value == nil && recording.nilLinks }
        return recording.issuedObjects.contains(ObjectIdentifier(object))
    }

    /// The linked object, or nil when it was deleted. Without an owner (validating bytes alone) it
    /// is nil: whether the bytes name a row of the target type is the Store's to check (`verify()`
    /// looks every link up).
    public static func _strataDecodeValue(
        _ bytes: UnsafeRawBufferPointer, in context: _DecodeContext
    ) throws(StoreError) -> Self? {
        guard let store = context.owner?._store else { return nil }
        return try store.linkedObject(self, keyBytes: bytes)
    }
}
