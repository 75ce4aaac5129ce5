/// `add`: encodes unmanaged objects into rows and stores them by update policy. A type without links
/// takes the direct path (encode, one put, index entries); objects with links, and batches, go
/// through an `AddOperation`, which validates the whole graph before writing and undoes its inserts
/// if a primary key turns out to exist, so a failed add leaves nothing behind.
extension StoreCore {
    /// - Throws: `.wrongThread`, `.notInWriteTransaction`, `.schemaMismatch` (type not in the schema),
    ///   `.alreadyExists` (`.error` policy), `.invalidated` / `.deletedInAnotherThread` (a linked object
    ///   was deleted by this Store / by another),
    ///   `.invalidArgument` (an object of another file, a String key over 510 bytes), `.mapFull`, `.storage`.
    func add(_ object: Object, update policy: Store.UpdatePolicy) throws(StoreError) {
        let session = try writableSession()
        if try isManagedHere(object) { return }
        let binding = try binding(for: type(of: object))
        if binding.schema.isEmbedded { throw Self.embeddedAddedAlone(object) }
        if !binding.reachesObjects {
            let key = try store(object, binding: binding, key: nil, policy: policy, session: session).key
            manage(object, binding: binding, key: key)
        } else {
            try AddOperation(core: self, session: session, policy: policy).run([object])
        }
    }

    /// Adds every object, or none of them.
    func add(contentsOf objects: some Collection<Object>, update policy: Store.UpdatePolicy) throws(StoreError) {
        let session = try writableSession()
        if let binding = try directBinding(for: objects) {
            if binding.schema.isEmbedded, let first = objects.first { throw Self.embeddedAddedAlone(first) }
            try addDirectly(objects, binding: binding, policy: policy, session: session)
        } else {
            for object in objects where object is EmbeddedObject && object._store == nil {
                throw Self.embeddedAddedAlone(object)
            }
            try AddOperation(core: self, session: session, policy: policy).run(objects)
        }
    }

    /// Stores an unmanaged object a property of a managed one now links to (an embedded one too: it
    /// is stored by that assignment).
    private func addLinked(_ target: Object) throws(StoreError) {
        let session = try writableSession()
        let binding = try binding(for: type(of: target))
        if !binding.reachesObjects {
            let key = try store(target, binding: binding, key: nil, policy: .modified, session: session).key
            manage(target, binding: binding, key: key)
        } else {
            try AddOperation(core: self, session: session, policy: .modified).run([target])
        }
    }

    /// Why an EmbeddedObject cannot be added on its own: it is stored with its owner.
    private static func embeddedAddedAlone(_ object: Object) -> StoreError {
        .invalidArgument(
            "\(type(of: object)) is an EmbeddedObject: it is stored by assigning it to its owner's property")
    }

    /// The binding of a batch that can take the direct path, as `add` in a loop does: unmanaged objects
    /// of one type that links nowhere, is linked from nowhere, and whose keys cannot be refused (no
    /// String key). Nil for any other batch (`AddOperation` checks the whole graph first).
    private func directBinding(for objects: some Collection<Object>) throws(StoreError) -> TableBinding? {
        guard let first = objects.first, first._store == nil else { return nil }
        let objectType = type(of: first)
        for object in objects where object._store != nil || type(of: object) != objectType { return nil }
        let binding = try binding(for: objectType)
        guard !binding.reachesObjects, binding.linkingAccessors.isEmpty, binding.primaryKeyType != .string else {
            return nil
        }
        return binding
    }

    /// Stores and manages each object in one pass (each object is touched once: a batch of a million
    /// stays in cache no longer than it must). On a failure the objects become unmanaged again and
    /// the rows inserted are deleted, or, when that cannot undo it, the transaction cannot commit.
    private func addDirectly(
        _ objects: some Collection<Object>, binding: TableBinding, policy: Store.UpdatePolicy, session: WriteSession
    ) throws(StoreError) {
        var added: [Object] = []
        added.reserveCapacity(objects.count)
        var inserted: [RowKey] = []
        do {
            for object in objects where object._store == nil {  // an object twice: managed the first time
                let result = try store(object, binding: binding, key: nil, policy: policy, session: session)
                manage(object, binding: binding, key: result.key)
                added.append(object)
                if result.inserted { inserted.append(result.key) }
            }
        } catch {
            for object in added { unmanage(object, binding: binding) }
            guard case .alreadyExists = error, policy == .error else {
                if !added.isEmpty { session.poison(error) }
                throw error
            }
            do {
                for key in inserted.reversed() { _ = try deleteRow(key: key, binding: binding, session: session) }
            } catch {
                session.poison(error)
            }
            throw error
        }
    }

    /// Whether this Store manages `object` already (adding it again changes nothing).
    ///
    /// - Throws: `.wrongThread` (a Store of this file on another thread manages it), `.invalidArgument`
    ///   (a Store of another file does, or it is frozen), `.invalidated` (this Store deleted it), `.deletedInAnotherThread`
    ///   (another Store or process did).
    func isManagedHere(_ object: Object) throws(StoreError) -> Bool {
        guard let owner = object._core else { return false }
        guard owner === self else {
            if owner.isFrozen {
                throw .invalidArgument(
                    "the \(type(of: object)) is frozen (a read-only snapshot): a write cannot add, delete or link it; "
                        + "use thaw() for the live object, or add a new unmanaged one")
            }
            throw owner.environment === environment
                ? .wrongThread : .invalidArgument("\(type(of: object)) is managed by a Store of another file")
        }
        _ = try currentRow(of: object)
        return true
    }

    func encodeRow(of object: Object, binding: TableBinding, into encoder: inout _RowEncoder) throws(StoreError) {
        encoder.beginRow(columns: binding.columnCount)
        for accessor in binding.columnAccessors {
            try accessor.encodeUnmanagedValue(of: object, into: &encoder)
        }
    }

    /// The key a new row of `binding` gets from its primary-key column (or the next row id).
    private func key(of row: RowView, binding: TableBinding, session: WriteSession) throws(StoreError) -> RowKey {
        guard let column = binding.primaryKeyColumn else { return try session.nextRowID(for: binding) }
        return try primaryKey(encodedColumn(column, of: row, binding: binding), binding: binding)
    }

    /// A column of a row this process encoded (its offsets are right by construction).
    private func encodedColumn(_ column: Int, of row: RowView, binding: TableBinding) throws(StoreError)
        -> UnsafeRawBufferPointer?
    {
        do {
            return try row.column(column)
        } catch {
            throw .invalidArgument("\(binding.name): encoded \(error)")
        }
    }

    /// The row key of an encoded primary-key column.
    ///
    /// - Throws: `.invalidArgument` when it cannot be a key (a String key over 510 bytes of UTF-8: LMDB
    /// keys hold 511 bytes, and one tags the string; invalid bytes).
    private func primaryKey(_ bytes: UnsafeRawBufferPointer?, binding: TableBinding) throws(StoreError) -> RowKey {
        guard let bytes, let type = binding.primaryKeyType else {
            throw .invalidArgument("\(binding.name) has a null primary key")
        }
        let key: RowKey
        do {
            key = try KeyEncoding.rowKey(column: bytes, type: type)
        } catch {
            throw .invalidArgument("\(binding.name)'s primary key: \(error)")
        }
        guard key.byteCount <= environment.maxKeySize else {
            throw .invalidArgument(
                "\(binding.name)'s String primary key is \(key.byteCount - 1) bytes of UTF-8; a String primary key holds "
                    + "at most \(environment.maxKeySize - 1) (LMDB keys hold \(environment.maxKeySize) bytes, one of which "
                    + "tags the string)")
        }
        return key
    }

    /// The key `object` (unmanaged) will be stored under.
    func newKey(for object: Object, binding: TableBinding, session: WriteSession) throws(StoreError) -> RowKey {
        guard let property = binding.schema.primaryKeyIndex else { return try session.nextRowID(for: binding) }
        let accessor = binding.schema.accessors[property]
        scratch.beginRow(columns: 1)
        try accessor.encodeUnmanagedValue(of: object, into: &scratch)
        return try scratch.withRow { bytes throws(StoreError) -> RowKey in
            try primaryKey(
                encodedColumn(0, of: RowView(encoded: bytes, columns: 1), binding: binding), binding: binding)
        }
    }

    /// Encodes `object` (unmanaged) and stores it by `policy`. Returns its key, and whether a new row
    /// was inserted (rather than an existing one updated or left unchanged).
    /// Every object it links to must be stored, or given its key by the add under way. `replacing`:
    /// `knownKey` names a stored row to update whatever the type's key (an embedded object kept in
    /// its slot by an update, `EmbeddedSlots`).
    func store(
        _ object: Object, binding: TableBinding, key knownKey: RowKey?, policy: Store.UpdatePolicy,
        session: WriteSession, replacing: Bool = false
    ) throws(StoreError) -> (key: RowKey, inserted: Bool) {
        try encodeRow(of: object, binding: binding, into: &session.rowEncoder)
        return try session.rowEncoder.withEncodedRow(columns: binding.columnCount) {
            encoded throws(StoreError) -> (key: RowKey, inserted: Bool) in
            let row = encoded.view
            let key: RowKey
            if let knownKey {
                key = knownKey
            } else {
                key = try self.key(of: row, binding: binding, session: session)
            }
            if binding.hasLinkColumns { try checkEmbeddedOwners(of: row, key: key, binding: binding) }
            if !replacing, binding.primaryKeyColumn == nil || policy == .error {
                guard try insertRow(encoded, key: key, binding: binding, session: session) else {
                    throw .alreadyExists(
                        primaryKey: StoreError.PrimaryKey(binding.describe(key), typeName: binding.name))
                }
                return (key, true)
            }
            guard let old = try copyOfRow(binding, key: key, session: session) else {
                _ = try insertRow(encoded, key: key, binding: binding, session: session)
                return (key, true)
            }
            if policy == .modified, try isUnchanged(old, row, binding: binding, key: key) {
                return (key, false)
            }
            try replaceRow(encoded, old: old, key: key, binding: binding, session: session)
            return (key, false)
        }
    }

    /// A copy of a managed object's row for its setter: from the object's cached row when it is
    /// current (the getter of `x.score += 1` just read it), else looked up.
    private func copyOfCurrentRow(of object: Object, binding: TableBinding, session: WriteSession) throws(StoreError)
        -> RowView?
    {
        if object._rowGeneration == generation, let cached = object._row {
            return try rows.validatedRow(session.rowCopy.copy(cached.bytes), binding: binding, key: object._key)
        }
        return try copyOfRow(binding, key: object._key, session: session)
    }

    private func isUnchanged(_ old: RowView, _ row: RowView, binding: TableBinding, key: RowKey) throws(StoreError)
        -> Bool
    {
        do {
            for column in 0..<binding.columnCount where try !old.columnEquals(column, row, column) { return false }
            return true
        } catch {
            throw .damaged(at: binding.location(of: key), error)
        }
    }

    /// Changes one column of a managed object's row, for property setters: traps instead of throwing.
    /// The objects a new link value points to are stored first (unmanaged ones are added, `.modified`),
    /// so that encoding the row only writes their keys.
    func changeColumn(
        of object: Object, column: Int, linkedObjects: () -> [Object],
        encode: (inout _RowEncoder) throws(StoreError) -> Void
    ) {
        assertConfined()
        if isFrozen { preconditionFailure(TrapMessage.frozen) }
        guard let session else { preconditionFailure(TrapMessage.notInWriteTransaction) }
        guard session.thread == .current else { preconditionFailure(TrapMessage.wrongThread) }
        guard let binding = object._tableBinding, object._epoch == epoch else {
            preconditionFailure(TrapMessage.invalidated)
        }
        if column == binding.primaryKeyColumn { preconditionFailure(TrapMessage.primaryKeyChange) }
        do {
            if binding.mayHoldLinks[column],
                let problem = try storeTargets(linkedObjects(), of: object, column: column, binding: binding)
            {
                preconditionFailure("Strata: cannot set \(binding.name).\(binding.columnNames[column]): \(problem)")
            }
            guard
                try rewriteColumn(
                    of: object, column: column, binding: binding, session: session, unlessUnchanged: false,
                    encode: encode)
            else { preconditionFailure(TrapMessage.invalidated) }
        } catch {
            preconditionFailure("Strata: cannot set \(binding.name).\(binding.columnNames[column]): \(error)")
        }
    }

    /// Changes one column of a managed object's row, throwing where a setter traps (what
    /// `create(_:value:update:)` updates an existing object with). With `unlessUnchanged`, a value
    /// equal to the stored one writes nothing (`.modified`).
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.invalidated`, `.invalidArgument` (an
    ///   embedded object placed twice, the primary key), `.alreadyExists` (a unique property),
    ///   `.mapFull`, `.storage`.
    func changeColumnThrowing(
        of object: Object, column: Int, linkedObjects: [Object], unlessUnchanged: Bool,
        encode: (inout _RowEncoder) throws(StoreError) -> Void
    ) throws(StoreError) {
        let session = try writableSession()
        guard let binding = object._tableBinding, object._epoch == epoch else { throw .invalidated }
        let name = "\(binding.name).\(binding.columnNames[column])"
        if column == binding.primaryKeyColumn { throw .invalidArgument("\(name) is the primary key: it cannot change") }
        if binding.mayHoldLinks[column],
            let problem = try storeTargets(linkedObjects, of: object, column: column, binding: binding)
        {
            throw .invalidArgument("cannot set \(name): \(problem)")
        }
        guard
            try rewriteColumn(
                of: object, column: column, binding: binding, session: session, unlessUnchanged: unlessUnchanged,
                encode: encode)
        else { throw .invalidated }
    }

    /// Stores the unmanaged objects a column's new value links to; returns why the value cannot be
    /// set (an embedded object placed twice, or where it cannot go), nil when it can.
    private func storeTargets(_ targets: [Object], of object: Object, column: Int, binding: TableBinding)
        throws(StoreError) -> String?
    {
        if let twice = Self.embeddedHeldTwice(targets) {
            return "cannot add an existing managed embedded object to a second place (the new value holds one "
                + "\(type(of: twice)) twice): an embedded object has one owner and one place; assign a new one"
        }
        for target in targets {
            if !binding.isLinkColumn[column], target is EmbeddedObject {
                return "\(type(of: target)) is an EmbeddedObject, which an AnyValue cannot hold"
            }
            if try !isManagedHere(target) {
                try addLinked(target)
            } else if let problem = try embeddedOwnerProblem(
                target, linkedFrom: column, of: object._key, binding: binding)
            {
                return problem
            }
        }
        return nil
    }

    /// Rewrites a managed object's row with column `column` encoded by `encode`; false when the row
    /// is gone. With `unlessUnchanged`, an equal column writes nothing.
    private func rewriteColumn(
        of object: Object, column: Int, binding: TableBinding, session: WriteSession, unlessUnchanged: Bool,
        encode: (inout _RowEncoder) throws(StoreError) -> Void
    ) throws(StoreError) -> Bool {
        guard let old = try copyOfCurrentRow(of: object, binding: binding, session: session) else { return false }
        session.rowEncoder.beginRow(columns: binding.columnCount)
        for index in 0..<binding.columnCount {
            if index == column {
                try encode(&session.rowEncoder)
            } else {
                do {
                    session.rowEncoder.appendColumn(copying: try old.column(index))
                } catch {
                    throw .damaged(at: binding.location(of: object._key, column: index), error)
                }
            }
        }
        try session.rowEncoder.withEncodedRow(columns: binding.columnCount) { encoded throws(StoreError) in
            if unlessUnchanged, try isUnchanged(old, encoded.view, binding: binding, key: object._key) { return }
            try replaceRow(encoded, old: old, key: object._key, binding: binding, session: session)
        }
        return true
    }

    /// A managed embedded object that `targets` (the new value of one property) holds more than once
    /// (`list.append(list[0])`, `map["b"] = map["a"]`); nil when none is.
    private static func embeddedHeldTwice(_ targets: [Object]) -> Object? {
        var seen = Set<ObjectIdentifier>()
        var keys: [ObjectIdentifier: Set<RowKey>] = [:]
        for target in targets where target is EmbeddedObject && target._store != nil {
            guard seen.insert(ObjectIdentifier(target)).inserted,
                keys[ObjectIdentifier(type(of: target)), default: []].insert(target._key).inserted
            else { return target }
        }
        return nil
    }

    /// The objects linked from an unmanaged object's link, collection and mixed properties.
    ///
    /// - Throws: `.invalidArgument` for an EmbeddedObject in a mixed value (it has one owner's property).
    func linkedObjects(of object: Object, binding: TableBinding) throws(StoreError) -> [Object] {
        var linked: [Object] = []
        for (index, property) in binding.schema.properties.enumerated() where property.type.mayHoldLinks {
            let targets = Object._linkedObjects(in: binding.schema.accessors[index].unmanagedValue(of: object))
            if property.type.linkedTypeName == nil, let embedded = targets.first(where: { $0 is EmbeddedObject }) {
                throw .invalidArgument(
                    "\(binding.name).\(property.name) holds an AnyValue of \(type(of: embedded)), an EmbeddedObject: "
                        + "an AnyValue cannot hold one")
            }
            linked += targets
        }
        return linked
    }
}
