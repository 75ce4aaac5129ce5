import Foundation

extension SyncExchange {
    // MARK: Incoming changes

    /// What the outbox still holds for one object: it was inserted or deleted here (every remote
    /// change to it waits until the server has ours), or some of its properties were set.
    private enum Pending {
        case object
        /// Properties the outbox holds; for a Map held only at some keys (updates that recorded
        /// them), those keys by property name.
        case properties(Set<String>, mapKeys: [String: Set<String>])
    }

    /// Applies `changes` (from the server, in its order) in the open write, as the rules of sync say:
    /// a change to what the outbox still holds is left out (ours is newer: the server will order it
    /// later), an update of a missing object does nothing, and values equal to the stored ones change
    /// nothing. Changes at or before the stored pull position were applied already and are skipped.
    /// Stores `position` as the new pull position; the write records nothing in the outbox. Returns
    /// how many changes changed an object.
    ///
    /// - Throws: `.notInWriteTransaction`, `.schemaMismatch` (a type or property outside the schema),
    ///   `.corrupted` (bytes that are not a value of the property: nothing of the batch is applied),
    ///   `.mapFull`, `.storage`.
    func applyIncomingChanges(_ changes: [IncomingChange], through position: Int64) throws(StoreError) -> Int {
        let session = try core.writableSession()
        guard outbox.meta != nil else { throw .corrupted("the file has no meta table") }
        outbox.skipThisWrite()
        let pulled = try syncMetaValue(SyncMeta.pulledKey, session: session).map(Self.decodePosition) ?? 0
        let fresh = try changes.filter { $0.sequence > pulled }.map { (change) throws(StoreError) in
            try keyedByPrimaryKey(change)
        }
        let resolved = try fresh.map { (change) throws(StoreError) in try resolveIncoming(change) }
        let pending = try pendingChanges(session: session)
        var applied = 0
        for (change, binding, columns, patches) in resolved {
            let held = pending[PendingKey(type: binding.name, key: change.key)]
            if case .object = held { continue }
            let key = try change.key.withBytes { (bytes) throws(StoreError) in
                try rows.decodeRowKey(bytes, binding: binding)
            }
            switch change.kind {
            case .delete:
                if try core.deleteRow(key: key, binding: binding, session: session) { applied += 1 }
            case .insert, .update:
                var heldNames: Set<String> = []
                var heldKeys: [String: Set<String>] = [:]
                if case .properties(let names, let keys) = held {
                    heldNames = names
                    heldKeys = keys
                }
                let old = try core.copyOfRow(binding, key: key, session: session)
                if old == nil, change.kind == .update { continue }  // deleted here, or never seen
                if try storeIncoming(
                    columns, patches: patches, key: key, old: old, keeping: heldNames, keepingKeys: heldKeys,
                    binding: binding, session: session)
                {
                    applied += 1
                }
            }
        }
        try setSyncMetaValue(SyncMeta.pulledKey, Self.encodePosition(max(pulled, position)), session: session)
        return applied
    }

    /// An insert without its stored key, with it (made from its primary key property).
    func keyedByPrimaryKey(_ change: IncomingChange) throws(StoreError) -> IncomingChange {
        guard change.key.isEmpty else { return change }
        guard change.kind == .insert, let binding = binding(named: change.typeName),
            let keyColumn = binding.primaryKeyColumn,
            let keyBytes = change.properties.first(where: { $0.name == binding.columnNames[keyColumn] })?.bytes
        else {
            throw .corrupted("change \(change.sequence) names no object")
        }
        let key = try keyBytes.withBytes { (bytes) throws(StoreError) in
            try syncKeyBytes(ofColumn: bytes, binding: binding)
        }
        return IncomingChange(
            sequence: change.sequence, typeName: change.typeName, kind: .insert, key: key, properties: change.properties
        )
    }

    /// The change's binding and its columns by number, every value checked against its column's type.
    private func resolveIncoming(_ change: IncomingChange) throws(StoreError)
        -> (IncomingChange, TableBinding, [Int: [UInt8]?], patches: Set<Int>)
    {
        guard let binding = binding(named: change.typeName) else {
            throw .schemaMismatch(
                "change \(change.sequence) is to \(change.typeName), a type outside this Store's schema")
        }
        _ = try change.key.withBytes { (bytes) throws(StoreError) in try rows.decodeRowKey(bytes, binding: binding)
        }
        var columns: [Int: [UInt8]?] = [:]
        var patches = Set<Int>()
        for property in change.properties {
            guard let column = binding.columnNames.firstIndex(of: property.name) else {
                throw .schemaMismatch(
                    "change \(change.sequence) sets \(change.typeName).\(property.name), not in the schema")
            }
            if property.isMapPatch {
                guard change.kind == .update, binding.columnTypes[column].isMap, let bytes = property.bytes else {
                    throw .corrupted(
                        "change \(change.sequence): a Map patch of \(change.typeName).\(property.name) in a \(change.kind)"
                    )
                }
                do {
                    // Applied to an empty Map, the patch must give a Map of the property's type.
                    let applied = try bytes.withBytes { (raw) throws(RowDamage) in
                        try MapPatch.apply(try MapPatch.decode(raw), to: nil)
                    }
                    try applied.withBytes { (raw) throws(StoreError) in
                        _ = try DynamicValue.decode(raw, type: binding.columnTypes[column]) { _, _ in nil }
                    }
                } catch {
                    throw .corrupted("change \(change.sequence): \(change.typeName).\(property.name): \(error)")
                }
                columns[column] = bytes
                patches.insert(column)
                continue
            }
            do {
                try property.bytes.withOptionalBytes { (bytes) throws(StoreError) in
                    if let target = embeddedTarget(of: binding.columnTypes[column]) {
                        try validateImage(bytes, type: binding.columnTypes[column], target: target)
                    } else {
                        _ = try DynamicValue.decode(bytes, type: binding.columnTypes[column]) { _, _ in nil }
                    }
                }
            } catch {
                throw .corrupted("change \(change.sequence): \(change.typeName).\(property.name): \(error)")
            }
            columns[column] = property.bytes
        }
        if change.kind == .insert, columns.count != binding.columnCount {
            throw .corrupted("change \(change.sequence) inserts a \(change.typeName) without all its properties")
        }
        if let keyColumn = binding.primaryKeyColumn, let keyBytes = columns[keyColumn] {
            guard let keyBytes else { throw .corrupted("change \(change.sequence) has a null primary key") }
            let encoded = try keyBytes.withBytes { (bytes) throws(StoreError) in
                try syncKeyBytes(ofColumn: bytes, binding: binding)
            }
            guard encoded == change.key else {
                throw .corrupted("change \(change.sequence): its primary key is not its object's key")
            }
        }
        return (change, binding, columns, patches)
    }

    /// Stores the row `columns` make of `old` (or of nothing), leaving the columns of `kept` as they
    /// are. Returns whether anything changed.
    private func storeIncoming(
        _ columns: [Int: [UInt8]?], patches: Set<Int>, key: RowKey, old: RowView?, keeping kept: Set<String>,
        keepingKeys keptKeys: [String: Set<String>], binding: TableBinding, session: WriteSession
    ) throws(StoreError) -> Bool {
        var columns = columns
        var kept = kept
        for column in patches {
            // A patch: its keys on top of the stored Map, except the keys the outbox holds here.
            let name = binding.columnNames[column]
            if kept.contains(name), keptKeys[name] == nil { continue }  // held whole: stays as it is
            kept.remove(name)
            let stored: UnsafeRawBufferPointer?
            do {
                stored = try old?.column(column)
            } catch {
                throw .damaged(at: binding.location(of: key), error)
            }
            let merged: [UInt8]
            do {
                merged = try (columns[column] ?? nil).withOptionalBytes { (patch) throws(RowDamage) in
                    try MapPatch.apply(
                        try MapPatch.decode(patch ?? UnsafeRawBufferPointer(start: nil, count: 0)), to: stored,
                        keeping: keptKeys[name] ?? [])
                }
            } catch {
                throw .damaged(at: binding.location(of: key, column: column), error)
            }
            columns[column] = merged
        }
        var keptColumns: Set<Int> = []
        for (column, incoming) in columns where !kept.contains(binding.columnNames[column]) {
            guard let target = embeddedTarget(of: binding.columnTypes[column]) else { continue }
            // An image: stored as new embedded rows unless it is the image of what is stored.
            let type = binding.columnTypes[column]
            if let old {
                let stored: UnsafeRawBufferPointer?
                do {
                    stored = try old.column(column)
                } catch {
                    throw .damaged(at: binding.location(of: key), error)
                }
                var copies: [ScratchBuffer] = []  // each row read stays valid until the image is made
                let current = try image(of: stored, type: type, target: target) {
                    (target, key) throws(StoreError) -> RowView? in
                    let rowKey = try rows.decodeRowKey(key, binding: target)
                    copies.append(ScratchBuffer())
                    return try core.copyOfRow(target, key: rowKey, session: session, into: copies[copies.count - 1])
                }
                withExtendedLifetime(copies) {}
                if current == incoming {
                    keptColumns.insert(column)
                    continue
                }
            }
            columns[column] = try incoming.withOptionalBytes { (image) throws(StoreError) in
                try materialize(image, type: type, target: target, session: session)
            }
        }
        var changed = old == nil
        session.rowEncoder.beginRow(columns: binding.columnCount)
        for column in 0..<binding.columnCount {
            let stored: UnsafeRawBufferPointer?
            do {
                stored = try old?.column(column)
            } catch {
                throw .damaged(at: binding.location(of: key), error)
            }
            if old != nil,
                kept.contains(binding.columnNames[column]) || columns[column] == nil || keptColumns.contains(column)
            {
                session.rowEncoder.appendColumn(copying: stored)
                continue
            }
            let incoming = columns[column] ?? nil
            incoming.withOptionalBytes { session.rowEncoder.appendColumn(copying: $0) }
            if !changed, !Self.sameBytes(stored, incoming) { changed = true }
        }
        guard changed else {
            session.rowEncoder.beginRow(columns: binding.columnCount)  // the row is dropped
            return false
        }
        return try session.rowEncoder.withEncodedRow(columns: binding.columnCount) {
            (encoded) throws(StoreError) -> Bool in
            if let old {
                try core.replaceRow(encoded, old: old, key: key, binding: binding, session: session)
                return true
            }
            return try core.insertRow(encoded, key: key, binding: binding, session: session)
        }
    }

    private static func sameBytes(_ stored: UnsafeRawBufferPointer?, _ incoming: [UInt8]?) -> Bool {
        switch (stored, incoming) {
        case (nil, nil): true
        case (let stored?, let incoming?): stored.elementsEqual(incoming)
        default: false
        }
    }

    /// The stored key of the object whose primary key column holds `bytes`.
    private func syncKeyBytes(ofColumn bytes: UnsafeRawBufferPointer, binding: TableBinding) throws(StoreError)
        -> [UInt8]
    {
        let value = try syncValue(bytes, type: binding.columnTypes[binding.primaryKeyColumn!])
        let key: RowKey
        switch value {
        case .integer(let integer):
            key = binding.hasSignedKeys ? .signed(integer) : .integer(UInt64(bitPattern: integer))
        case .unsigned(let integer): key = .integer(integer)
        case .string(let string): key = .string(string)
        case .uuid(let uuid): key = .uuid(uuid)
        case .objectId(let id): key = .objectId(id)
        default: throw .corrupted("a primary key of \(binding.name) is \(value)")
        }
        return key.storedBytes
    }

    private struct PendingKey: Hashable {
        var type: String
        var key: [UInt8]
    }

    /// What the outbox holds, by object, read in the write's transaction.
    private func pendingChanges(session: WriteSession) throws(StoreError) -> [PendingKey: Pending] {
        var pending: [PendingKey: Pending] = [:]
        try outbox.walk(after: 0, in: session) { (_, entries) throws(StoreError) in
            for change in entries {
                let key = PendingKey(type: change.typeName, key: change.key)
                guard change.kind == .update else {
                    pending[key] = .object
                    continue
                }
                if case .object = pending[key] { continue }
                let binding = binding(named: change.typeName)
                var names = Set<String>()
                var keysByName: [String: Set<String>] = [:]
                for column in change.columns {
                    guard let binding, column < binding.columnNames.count else { continue }
                    let name = binding.columnNames[column]
                    names.insert(name)
                    if let keys = change.mapKeys[column] { keysByName[name] = Set(keys) }
                }
                guard case .properties(let heldNames, var heldKeys) = pending[key] else {
                    pending[key] = .properties(names, mapKeys: keysByName)
                    continue
                }
                for name in names {
                    // A Map is held at some keys only while every change to it named its keys.
                    let heldWhole = heldNames.contains(name) && heldKeys[name] == nil
                    if heldWhole { continue }
                    if let keys = keysByName[name] {
                        heldKeys[name, default: []].formUnion(keys)
                    } else {
                        heldKeys.removeValue(forKey: name)
                    }
                }
                pending[key] = .properties(heldNames.union(names), mapKeys: heldKeys)
            }
            return true
        }
        return pending
    }

    // MARK: Sync's own values in the meta table

    func syncMetaValue(_ key: [UInt8], session: WriteSession? = nil) throws(StoreError) -> [UInt8]? {
        guard let meta = outbox.meta else { return nil }
        return try StoreError.mapping { () throws(LMDBError) -> [UInt8]? in
            try key.withBytes { (key) throws(LMDBError) -> [UInt8]? in
                if let session {
                    return try session.get(meta, key: key).map { Array($0) }
                }
                let reader = try ReadTransaction(environment)
                return try reader.get(meta, key: key).map { Array($0) }
            }
        }
    }

    func setSyncMetaValue(_ key: [UInt8], _ value: [UInt8], session: WriteSession) throws(StoreError) {
        guard let meta = outbox.meta else { throw .corrupted("the file has no meta table") }
        try StoreError.mapping { () throws(LMDBError) in
            try key.withBytes { (key) throws(LMDBError) in
                try value.withBytes { (value) throws(LMDBError) in
                    _ = try session.put(meta, key: key, value: value)
                }
            }
        }
    }

    static func encodePosition(_ position: Int64) -> [UInt8] {
        withUnsafeBytes(of: position.bigEndian) { Array($0) }
    }

    static func decodePosition(_ bytes: [UInt8]) -> Int64 {
        guard bytes.count == 8 else { return 0 }
        return bytes.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
    }
}
