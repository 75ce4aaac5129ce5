/// Managed objects and their rows, and the row-level changes every write is made of (a row plus its
/// derived entries, always together).
extension StoreCore {
    // MARK: Objects

    /// The current row of a managed object, cached for the current generation.
    ///
    /// - Throws: `.invalidated` (this Store deleted it, or was invalidated), `.deletedInAnotherThread`
    ///   (another thread, queue, actor or process deleted it), `.corrupted`.
    func managedRow(of object: Object) throws(StoreError) -> RowView {
        guard object._epoch == epoch, let binding = object._tableBinding else { throw .invalidated }
        if object._rowGeneration == generation, let row = object._row { return row }
        guard let row = try self.rows.fetchRow(binding, key: object._key) else {
            let deletedHere = ownDeletions.deletedHere(object._key, table: binding.ordinal, since: object._madeAt)
            throw deletedHere ? .invalidated : .deletedInAnotherThread
        }
        object._row = row
        object._rowGeneration = generation
        return row
    }

    /// A column of a managed object's row, for property getters: traps instead of throwing.
    func managedColumnBytes(of object: Object, column: Int) -> UnsafeRawBufferPointer? {
        assertConfined()
        let row: RowView
        do {
            row = try currentRow(of: object)
        } catch .invalidated, .deletedInAnotherThread {
            preconditionFailure(TrapMessage.invalidated)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): \(error)")
        }
        do {
            return try row.column(column)
        } catch {
            object._trapCorrupted(column: column, .corrupted("\(error)"))
        }
    }

    /// Makes `object` a managed accessor of the row under `key`.
    func manage(_ object: Object, binding: TableBinding, key: RowKey, row: RowView? = nil) {
        object._store = self
        object._binding = binding
        Self.setKey(key, of: object)
        object._epoch = epoch
        object._madeAt = ownDeletions.clock
        object._row = row
        object._rowGeneration = row == nil ? 0 : generation
        object._observation = binding.observation.map(Unmanaged.passUnretained)
        // An object tracked while unmanaged (it has a registrar) goes on being observed.
        if binding.observation != nil, object.hasObservationRegistrar { object.watchForObservation() }
        let base = Unmanaged.passUnretained(object).toOpaque()
        for (offset, column) in binding.columnBindings {
            (base + offset).storeBytes(of: column, as: Int.self)
        }
        for accessor in binding.linkingAccessors {
            (accessor.unmanagedValue(of: object) as? AnyLinkingObjects)?.bind(context: self, owner: binding, key: key)
        }
        for (offset, kind) in binding.linkProperties {
            kind.releaseUnmanagedValue(at: base + offset)
        }
    }

    /// Makes `object`, managed by this Store a moment ago through `binding` (a type without links nor
    /// `LinkingObjects`), an unmanaged object again: its wrappers still hold its values.
    func unmanage(_ object: Object, binding: TableBinding) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        for (offset, _) in binding.columnBindings {
            (base + offset).storeBytes(of: -1, as: Int.self)
        }
        object._store = nil
        object._binding = nil
        object._row = nil
        object._rowGeneration = 0
        object.stopObservationWatch()
    }

    /// Stores `key` as `object`'s: an integer over an integer, or a UUID over a UUID, without the key's
    /// copy and release witnesses (an iteration re-points an accessor per row).
    @inline(__always)
    private static func setKey(_ key: RowKey, of object: Object) {
        if case .integer(let value) = key, case .integer = object._key {
            object._key = .integer(value)
        } else if case .wide(let high, let low) = key, case .wide = object._key {
            object._key = .wide(high, low)
        } else {
            object._key = key
        }
    }

    /// Re-points `object`, a managed accessor of `binding` that only the caller holds, at the row under
    /// `key`: what an iteration does instead of making a new accessor. Returns false, changing nothing,
    /// when something else holds one of its `LinkingObjects` (which must keep showing its own row).
    @inline(__always)
    func repoint(_ object: Object, binding: TableBinding, key: RowKey, row: RowView?) -> Bool {
        // Observation knows the accessor by its identity, as the object of the row it was read at.
        if object.isWatchedForObservation { return false }
        // Most types have no `LinkingObjects`: no walk of the (empty) list per row.
        let hasLinkingObjects = !binding.linkingAccessors.isEmpty
        if hasLinkingObjects {
            for accessor in binding.linkingAccessors
            where !accessor.kind.isUnmanagedValueUniquelyReferenced(at: accessor.address(in: object)) {
                return false
            }
        }
        Self.setKey(key, of: object)
        object._epoch = epoch
        object._madeAt = ownDeletions.clock
        object._row = row
        object._rowGeneration = row == nil ? 0 : generation
        if hasLinkingObjects {
            for accessor in binding.linkingAccessors {
                (accessor.unmanagedValue(of: object) as? AnyLinkingObjects)?.bind(
                    context: self, owner: binding, key: key)
            }
        }
        return true
    }

    /// A new managed accessor of type `T` for the row under `key`.
    func materialize<T: Object>(_ type: T.Type, binding: TableBinding, key: RowKey, row: RowView? = nil) -> T {
        // The binding's class, not `T`: `objects(someType)` with `someType: Object.Type` has `T == Object`.
        let object = T.self == binding.schema.type ? T() : binding.schema.type.init() as! T
        manage(object, binding: binding, key: key, row: row)
        return object
    }

    /// The object of `binding` under `key`, or nil when it no longer exists.
    func object<T: Object>(_ type: T.Type, binding: TableBinding, key: RowKey) throws(StoreError) -> T? {
        guard let row = try self.rows.fetchRow(binding, key: key) else { return nil }
        return materialize(type, binding: binding, key: key, row: row)
    }

    /// The row key for a primary-key value, or nil when the value cannot be a key of that type (an
    /// integer that does not fit, a String for an integer key, a key too long to be stored).
    @inline(__always)
    func rowKey<K: _PrimaryKeyValue>(forPrimaryKey value: K, binding: TableBinding) throws(StoreError) -> RowKey? {
        // The common case, an Int for an Int key, without the generic key's witness and range (R1).
        if K.self == Int.self, binding.hasIntPrimaryKey { return .signed(Int64(unsafeBitCast(value, to: Int.self))) }
        return try convertedRowKey(forPrimaryKey: value, binding: binding)
    }

    private func convertedRowKey<K: _PrimaryKeyValue>(forPrimaryKey value: K, binding: TableBinding)
        throws(StoreError) -> RowKey?
    {
        guard let keyType = binding.primaryKeyType else {
            throw .invalidArgument("\(binding.name) has no primary key")
        }
        switch (value._strataPrimaryKey.value, keyType) {
        case (.signed(let integer), _): return KeyEncoding.rowKey(integer: Int128(integer), keyType: keyType)
        case (.unsigned(let integer), _): return KeyEncoding.rowKey(integer: Int128(integer), keyType: keyType)
        case (.string(let string), .string):
            let key = RowKey.string(string)
            return key.byteCount <= environment.maxKeySize ? key : nil
        case (.uuid(let uuid), .uuid): return .uuid(uuid)
        case (.objectId(let id), .objectId): return .objectId(id)
        default: return nil
        }
    }

    /// Throws `.alreadyExists` naming the property and the value when a unique property of `row`
    /// (one that changed from `old`) holds a value another row of the type holds. Checked before
    /// anything of the row is written. Index keys decide, except for strings longer than an index
    /// key keeps, whose candidates are compared in full.
    func checkUnique(_ row: RowView, old: RowView?, key: RowKey, binding: TableBinding) throws(StoreError) {
        let ownKey = key.withBytes { Array($0) }
        var indexKey: [UInt8] = []
        for index in binding.derived.indexes where index.isUnique {
            let location = binding.location(of: key, column: index.column)
            if let old, try DerivedEntries.columnEquals(old, row, index.column, at: location) { continue }
            let value: UnsafeRawBufferPointer
            do {
                guard let bytes = try row.column(index.column) else { continue }  // nil is no value
                value = bytes
                try KeyEncoding.indexKey(column: bytes, type: index.type, into: &indexKey)
            } catch {
                throw .damaged(at: location, error)
            }
            let comparesInFull = index.type.unwrapped == .string && value.count >= KeyEncoding.maxIndexedValueBytes
            var holder: [UInt8]?
            try rows.scanRanges([KeyRange(lower: indexKey, upper: indexKey)], table: index.table) {
                (_, candidate) throws(StoreError) in
                guard holder == nil, !candidate.elementsEqual(ownKey) else { return }
                if comparesInFull {
                    let candidateKey = try rows.decodeRowKey(candidate, binding: binding)
                    guard let other = try rows.fetchRow(binding, key: candidateKey) else { return }
                    let same: Bool
                    do {
                        same = try other.column(index.column).map { $0.elementsEqual(value) } ?? false
                    } catch {
                        throw .damaged(at: binding.location(of: candidateKey, column: index.column), error)
                    }
                    guard same else { return }
                }
                holder = Array(candidate)
            }
            guard holder != nil else { continue }
            throw .alreadyExists(
                primaryKey: StoreError.PrimaryKey(
                    UniqueGroup.shown(value, type: index.type), typeName: binding.name, property: index.property))
        }
        for group in binding.uniqueGroups {
            try checkUnique(group, row, old: old, key: key, ownKey: ownKey, binding: binding)
        }
    }

    /// Throws `.alreadyExists` when another row holds `row`'s values of every column of `group`:
    /// the rows holding its first value (found through that column's index) are compared in full.
    private func checkUnique(
        _ group: UniqueGroup, _ row: RowView, old: RowView?, key: RowKey, ownKey: [UInt8], binding: TableBinding
    ) throws(StoreError) {
        let location = binding.location(of: key, column: group.columns[0])
        let values: [UInt8]
        var indexKey: [UInt8] = []
        do {
            guard let found = try group.fingerprint(of: row) else { return }  // a nil: no value
            if let old, try group.fingerprint(of: old) == found { return }  // its own values, unchanged
            values = found
            try KeyEncoding.indexKey(column: try row.column(group.columns[0]), type: group.index.type, into: &indexKey)
        } catch {
            throw .damaged(at: location, error)
        }
        var clashes = false
        try rows.scanRanges([KeyRange(lower: indexKey, upper: indexKey)], table: group.index.table) {
            (_, candidate) throws(StoreError) in
            guard !clashes, !candidate.elementsEqual(ownKey) else { return }
            let candidateKey = try rows.decodeRowKey(candidate, binding: binding)
            guard let other = try rows.fetchRow(binding, key: candidateKey) else { return }
            do {
                clashes = try group.fingerprint(of: other) == values
            } catch {
                throw .damaged(at: binding.location(of: candidateKey, column: group.columns[0]), error)
            }
        }
        guard clashes else { return }
        throw .alreadyExists(
            primaryKey: StoreError.PrimaryKey(
                group.shownValues(of: row), typeName: binding.name, property: group.name))
    }

    // MARK: Changing rows (inside a write): a row and its derived entries, always together

    /// Inserts a row and its index and backlink entries. Returns false, changing nothing, when the
    /// key exists.
    func insertRow(_ encoded: EncodedRow, key: RowKey, binding: TableBinding, session: WriteSession) throws(StoreError)
        -> Bool
    {
        iterations.detach(of: binding)
        if binding.hasUniqueProperties { try checkUnique(encoded.view, old: nil, key: key, binding: binding) }
        if !binding.derived.vectors.isEmpty {
            try binding.derived.checkVectors(of: encoded.view, at: binding.location(of: key))
        }
        var options: PutOptions = .noOverwrite
        if try session.isAppend(key, to: binding) { options.insert(.append) }
        guard try session.putRow(binding.table, key: key, row: encoded, options: options) else { return false }
        let row = encoded.view
        session.noteStored(key, in: binding)
        if !binding.derived.isEmpty {
            try key.withBytes { (rowKey) throws(StoreError) in
                try binding.derived.insert(
                    of: row, rowKey: rowKey, into: session, buffer: &session.indexKeys.new,
                    at: binding.location(of: key))
            }
        }
        session.changeLog?[binding.ordinal].noteInserted(key, columns: binding.columnCount)
        noteChange(structural: binding)
        return true
    }

    /// Replaces a row whose previous bytes are `old` (a copy: see `WriteSession.rowCopy`), moving the
    /// derived entries of the columns that changed. With `dropsEmbedded`, the embedded objects the
    /// row no longer holds are deleted (replaced, removed from a List or Map).
    func replaceRow(
        _ encoded: EncodedRow, old: RowView, key: RowKey, binding: TableBinding, session: WriteSession,
        dropsEmbedded: Bool = true
    ) throws(StoreError) {
        let row = encoded.view
        let dropped = dropsEmbedded ? try droppedEmbedded(from: old, to: row, key: key, binding: binding) : []
        if binding.hasUniqueProperties { try checkUnique(row, old: old, key: key, binding: binding) }
        if !binding.derived.vectors.isEmpty { try binding.derived.checkVectors(of: row, at: binding.location(of: key)) }
        if !binding.derived.isEmpty {
            try key.withBytes { (rowKey) throws(StoreError) in
                try binding.derived.move(
                    from: old, to: row, rowKey: rowKey, in: session, buffers: &session.indexKeys,
                    at: binding.location(of: key))
            }
        }
        if session.changeLog != nil {
            var changed: [Int] = []
            for column in 0..<binding.columnCount
            where try !DerivedEntries.columnEquals(old, row, column, at: binding.location(of: key)) {
                changed.append(column)
            }
            session.changeLog![binding.ordinal].noteModified(key, columns: changed)
        }
        if let cursor = iterations.cursor(of: binding, at: key) {
            try session.replaceCurrentRow(cursor, key: key, row: encoded)  // in place: no search
        } else {
            _ = try session.putRow(binding.table, key: key, row: encoded)
        }
        for (droppedKey, target) in dropped { _ = try deleteRow(key: droppedKey, binding: target, session: session) }
        noteChange()
    }

    /// A copy of the stored row under `key` in `buffer` (valid until its next copy), or nil.
    func copyOfRow(
        _ binding: TableBinding, key: RowKey, session: WriteSession, into buffer: ScratchBuffer? = nil
    ) throws(StoreError) -> RowView? {
        let row = try key.withBytes { (keyBytes) throws(StoreError) -> UnsafeRawBufferPointer? in
            guard let stored = try session.get(binding.table, key: key) else { return nil }
            return try self.rows.unsealedRow(stored, keyBytes: keyBytes, binding: binding, key: key)
        }
        guard let row else { return nil }
        return try self.rows.validatedRow((buffer ?? session.rowCopy).copy(row), binding: binding, key: key)
    }

    /// Deletes a row and its derived entries, after clearing the links to it. Returns false when it
    /// was not there.
    func deleteRow(key: RowKey, binding: TableBinding, session: WriteSession, cascading: Bool = true)
        throws(StoreError) -> Bool
    {
        iterations.detach(of: binding)
        try unlinkIncoming(to: key, binding: binding, session: session)
        guard let old = try copyOfRow(binding, key: key, session: session) else { return false }
        let owned = cascading ? try ownedTargets(of: old, key: key, binding: binding) : []
        if !binding.derived.isEmpty {
            try key.withBytes { (rowKey) throws(StoreError) in
                try binding.derived.delete(
                    of: old, rowKey: rowKey, from: session, buffer: &session.indexKeys.old,
                    at: binding.location(of: key))
            }
        }
        _ = try session.delete(binding.table, key: key)
        ownDeletions.noteDeleted(key, table: binding.ordinal)
        session.changeLog?[binding.ordinal].noteDeleted(key)
        noteChange(structural: binding)
        if !owned.isEmpty { try deleteUnowned(owned, session: session) }
        return true
    }
}
