import Foundation

/// What StrataSync asks of a file beyond the outbox: the values of the changes it sends, and the
/// changes it receives applied in a write (with the pull position, in the same transaction).
enum SyncMeta {
    static let pulledKey = Array("sync.pulled".utf8)
    static let prefix = "sync."
}

/// What StrataSync asks of a Store beyond the outbox (`Outbox`): the values of the changes it sends,
/// read in one snapshot, and the changes it receives applied in a write with the pull position.
/// A part of the conductor, made for each call (`StoreCore.sync`): it holds nothing of its own.
struct SyncExchange {
    let core: StoreCore

    // MARK: Values of outgoing changes

    /// The outbox's changes after `sequence` (whole commits, until `limit` changes), each with the
    /// current bytes and values of the properties it names, read in one snapshot. An insert or update
    /// of an object that is gone is left out: the delete that removed it follows in the outbox.
    func outgoingChanges(after sequence: UInt64, limit: Int) throws(StoreError) -> OutgoingBatch {
        guard limit > 0 else { return OutgoingBatch(changes: [], through: nil, recordedCount: 0) }
        let reader = try StoreError.mapping { () throws(LMDBError) in try ReadTransaction(core.environment) }
        var records: [(sequence: UInt64, entries: [OutboxEntry])] = []
        var count = 0
        try core.outbox.walk(after: sequence, in: reader) { (recorded, entries) throws(StoreError) in
            records.append((recorded, entries))
            count += entries.count
            return count < limit
        }
        var changes: [OutgoingChange] = []
        changes.reserveCapacity(count)
        for (sequence, entries) in records {
            for entry in entries {
                guard let binding = core.tables.existingBinding(named: entry.typeName) else {
                    throw .schemaMismatch("the outbox names \(entry.typeName), a type outside this Store's schema")
                }
                if let change = try outgoingChange(entry, sequence: sequence, binding: binding, reader: reader) {
                    changes.append(change)
                }
            }
        }
        return OutgoingBatch(changes: changes, through: records.last?.sequence, recordedCount: count)
    }

    private func outgoingChange(
        _ entry: OutboxEntry, sequence: UInt64, binding: TableBinding, reader: borrowing ReadTransaction
    ) throws(StoreError) -> OutgoingChange? {
        let primaryKey = try entry.key.withBytes { (key) throws(StoreError) in try syncKeyValue(key, of: binding) }
        let kind: CapturedChange.Kind
        switch entry.kind {
        case .delete:
            return OutgoingChange(
                sequence: sequence, typeName: binding.name, kind: .delete, key: entry.key, primaryKey: primaryKey,
                properties: [])
        case .insert: kind = .insert
        case .update: kind = .update
        }
        return try entry.key.withBytes { (keyBytes) throws(StoreError) -> OutgoingChange? in
            let stored = try StoreError.mapping { () throws(LMDBError) in try reader.get(binding.table, key: keyBytes) }
            guard let stored else { return nil }
            let key = try core.rows.decodeRowKey(keyBytes, binding: binding)
            let row = try core.rows.storedRow(stored, keyBytes: keyBytes, binding: binding, key: key)
            var properties: [OutgoingChange.Property] = []
            for column in entry.columns where column >= 0 && column < binding.columnCount {
                let bytes: UnsafeRawBufferPointer?
                do {
                    bytes = try row.column(column)
                } catch {
                    throw .damaged(at: binding.location(of: key), error)
                }
                if let target = embeddedTarget(of: binding.columnTypes[column]) {
                    let image = try image(of: bytes, type: binding.columnTypes[column], target: target) {
                        (target, key) throws(StoreError) -> RowView? in
                        let stored = try StoreError.mapping { () throws(LMDBError) in
                            try reader.get(target.table, key: key)
                        }
                        guard let stored else { return nil }
                        let rowKey = try core.rows.decodeRowKey(key, binding: target)
                        return try core.rows.storedRow(stored, keyBytes: key, binding: target, key: rowKey)
                    }
                    let value = try image.withOptionalBytes { (image) throws(StoreError) in
                        try syncValue(ofImage: image, type: binding.columnTypes[column], target: target)
                    }
                    properties.append(
                        OutgoingChange.Property(name: binding.columnNames[column], bytes: image, value: value))
                    continue
                }
                properties.append(
                    OutgoingChange.Property(
                        name: binding.columnNames[column], bytes: bytes.map { Array($0) },
                        value: try syncValue(bytes, type: binding.columnTypes[column])))
            }
            return OutgoingChange(
                sequence: sequence, typeName: binding.name, kind: kind, key: entry.key, primaryKey: primaryKey,
                properties: properties)
        }
    }

    /// A column's value, links as the primary key of the object they point to. Decoded by the
    /// property's Swift type directly (no `Any`: a push reads every property of every change).
    func syncValue(_ bytes: UnsafeRawBufferPointer?, type: PropertyType) throws(StoreError) -> SyncValue {
        let value = try DynamicValue.walk(
            bytes, type: type, null: .null,
            link: { (target, key) throws(StoreError) in
                guard let binding = core.tables.existingBinding(named: target) else {
                    throw .schemaMismatch("a link to \(target), a type outside this Store's schema")
                }
                return try syncKeyValue(key, of: binding)
            }, list: { .list($0) }, map: { .map(Dictionary($0.map { ($0.key, $0.value) }) { $1 }) },
            isNull: { $0 == .null }, scalar: Self.syncScalar)
        if case .set = type, case .list(let elements) = value { return .set(elements) }
        return value
    }

    private static func syncScalar(_ bytes: UnsafeRawBufferPointer, type: PropertyType) throws(StoreError) -> SyncValue
    {
        func decoded<T: _PersistableValue>(_: T.Type) throws(StoreError) -> T {
            guard let value = try T._strataDecodeValue(bytes, in: _DecodeContext(owner: nil, column: 0)) else {
                throw .corrupted("undecodable \(type) value")
            }
            return value
        }
        switch type {
        case .bool: return .bool(try decoded(Bool.self))
        case .int8: return .integer(Int64(try decoded(Int8.self)))
        case .int16: return .integer(Int64(try decoded(Int16.self)))
        case .int32: return .integer(Int64(try decoded(Int32.self)))
        case .int64: return .integer(Int64(try decoded(Int.self)))
        case .uint8: return .integer(Int64(try decoded(UInt8.self)))
        case .uint16: return .integer(Int64(try decoded(UInt16.self)))
        case .uint32: return .integer(Int64(try decoded(UInt32.self)))
        case .uint64: return .unsigned(try decoded(UInt64.self))
        case .float: return .double(Double(try decoded(Float.self)))
        case .double: return .double(try decoded(Double.self))
        case .string: return .string(try decoded(String.self))
        case .data: return .data(try decoded(Data.self))
        case .date: return .date(try decoded(Date.self))
        case .uuid: return .uuid(try decoded(UUID.self))
        case .decimal: return .decimal(try decoded(Decimal.self))
        case .objectId: return .objectId(try decoded(ObjectId.self))
        case .decimal128: return .decimal128(try decoded(Decimal128.self))
        case .mixed: return syncValue(of: try decoded(AnyValue.self))
        case .optional, .link, .list, .map, .set: throw .corrupted("\(type) is not a scalar type")
        }
    }

    /// A mixed value as the server's jsonb holds it: the value inside (a link as nil: the link's
    /// target is named by its own type's rows).
    private static func syncValue(of mixed: AnyValue) -> SyncValue {
        switch mixed {
        case .none, .object: .null
        case .int(let value): .integer(Int64(value))
        case .bool(let value): .bool(value)
        case .float(let value): .double(Double(value))
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .data(let value): .data(value)
        case .date(let value): .date(value)
        case .objectId(let value): .objectId(value)
        case .decimal128(let value): .decimal128(value)
        case .uuid(let value): .uuid(value)
        case .list(let values): .list(values.map(syncValue(of:)))
        case .map(let entries): .map(entries.mapValues(syncValue(of:)))
        }
    }

    /// The primary key a stored key encodes.
    func syncKeyValue(_ bytes: UnsafeRawBufferPointer, of binding: TableBinding) throws(StoreError) -> SyncValue {
        switch try core.rows.decodeRowKey(bytes, binding: binding) {
        case .integer(let raw):
            if binding.hasSignedKeys { return .integer(Int64(bitPattern: raw ^ (1 << 63))) }
            return binding.primaryKeyType == .uint64 ? .unsigned(raw) : .integer(Int64(bitPattern: raw))
        case .wide(let high, let low):
            var halves = (high.bigEndian, low.bigEndian)
            return .uuid(withUnsafeBytes(of: &halves) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case .bytes(let bytes) where binding.keyKind == .objectId:
            return .objectId(bytes.withBytes { ObjectId(stored: $0) })
        case .bytes(let bytes):
            return .string(String(decoding: bytes.dropFirst(), as: UTF8.self))
        }
    }
}

extension SyncExchange {
    // MARK: Incoming changes

    /// What the outbox still holds for one object: it was inserted or deleted here (every remote
    /// change to it waits until the server has ours), or some of its properties were set.
    private enum Pending {
        case object
        case properties(Set<String>)
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
        guard core.outbox.meta != nil else { throw .corrupted("the file has no meta table") }
        core.outbox.skipThisWrite()
        let pulled = try syncMetaValue(SyncMeta.pulledKey, session: session).map(Self.decodePosition) ?? 0
        let fresh = changes.filter { $0.sequence > pulled }
        let resolved = try fresh.map { (change) throws(StoreError) in try resolveIncoming(change) }
        let pending = try pendingChanges(session: session)
        var applied = 0
        for (change, binding, columns) in resolved {
            let held = pending[PendingKey(type: binding.name, key: change.key)]
            if case .object = held { continue }
            let key = try change.key.withBytes { (bytes) throws(StoreError) in
                try core.rows.decodeRowKey(bytes, binding: binding)
            }
            switch change.kind {
            case .delete:
                if try core.deleteRow(key: key, binding: binding, session: session) { applied += 1 }
            case .insert, .update:
                let heldNames: Set<String>
                if case .properties(let names) = held { heldNames = names } else { heldNames = [] }
                let old = try core.copyOfRow(binding, key: key, session: session)
                if old == nil, change.kind == .update { continue }  // deleted here, or never seen
                if try storeIncoming(
                    columns, key: key, old: old, keeping: heldNames, binding: binding, session: session)
                {
                    applied += 1
                }
            }
        }
        try setSyncMetaValue(SyncMeta.pulledKey, Self.encodePosition(max(pulled, position)), session: session)
        return applied
    }

    /// The change's binding and its columns by number, every value checked against its column's type.
    private func resolveIncoming(_ change: IncomingChange) throws(StoreError)
        -> (IncomingChange, TableBinding, [Int: [UInt8]?])
    {
        guard let binding = core.tables.existingBinding(named: change.typeName) else {
            throw .schemaMismatch(
                "change \(change.sequence) is to \(change.typeName), a type outside this Store's schema")
        }
        _ = try change.key.withBytes { (bytes) throws(StoreError) in try core.rows.decodeRowKey(bytes, binding: binding)
        }
        var columns: [Int: [UInt8]?] = [:]
        for property in change.properties {
            guard let column = binding.columnNames.firstIndex(of: property.name) else {
                throw .schemaMismatch(
                    "change \(change.sequence) sets \(change.typeName).\(property.name), not in the schema")
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
        return (change, binding, columns)
    }

    /// Stores the row `columns` make of `old` (or of nothing), leaving the columns of `kept` as they
    /// are. Returns whether anything changed.
    private func storeIncoming(
        _ columns: [Int: [UInt8]?], key: RowKey, old: RowView?, keeping kept: Set<String>, binding: TableBinding,
        session: WriteSession
    ) throws(StoreError) -> Bool {
        var columns = columns
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
                    let rowKey = try core.rows.decodeRowKey(key, binding: target)
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
        try core.outbox.walk(after: 0, in: session) { (_, entries) throws(StoreError) in
            for change in entries {
                let key = PendingKey(type: change.typeName, key: change.key)
                guard change.kind == .update else {
                    pending[key] = .object
                    continue
                }
                if case .object = pending[key] { continue }
                let binding = core.tables.existingBinding(named: change.typeName)
                let names = change.columns.compactMap { column in
                    binding.flatMap { column < $0.columnNames.count ? $0.columnNames[column] : nil }
                }
                if case .properties(let held) = pending[key] {
                    pending[key] = .properties(held.union(names))
                } else {
                    pending[key] = .properties(Set(names))
                }
            }
            return true
        }
        return pending
    }

    // MARK: Sync's own values in the meta table

    func syncMetaValue(_ key: [UInt8], session: WriteSession? = nil) throws(StoreError) -> [UInt8]? {
        guard let meta = core.outbox.meta else { return nil }
        return try StoreError.mapping { () throws(LMDBError) -> [UInt8]? in
            try key.withBytes { (key) throws(LMDBError) -> [UInt8]? in
                if let session {
                    return try session.get(meta, key: key).map { Array($0) }
                }
                let reader = try ReadTransaction(core.environment)
                return try reader.get(meta, key: key).map { Array($0) }
            }
        }
    }

    func setSyncMetaValue(_ key: [UInt8], _ value: [UInt8], session: WriteSession) throws(StoreError) {
        guard let meta = core.outbox.meta else { throw .corrupted("the file has no meta table") }
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

extension Optional where Wrapped == [UInt8] {
    /// Runs `body` with the bytes, or with nil (a null column).
    func withOptionalBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        guard let self else { return try body(nil) }
        return try self.withBytes { (bytes) throws(E) -> R in try body(bytes) }
    }
}
