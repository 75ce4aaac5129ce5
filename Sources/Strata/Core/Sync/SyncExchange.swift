import Foundation

/// What StrataSync asks of a file beyond the outbox: the values of the changes it sends, and the
/// changes it receives applied in a write (with the pull position, in the same transaction).
enum SyncMeta {
    static let pulledKey = Array("sync.pulled".utf8)
    static let prefix = "sync."
}

/// What StrataSync asks of a Store beyond the outbox (`Outbox`): the values of the changes it sends,
/// read in one snapshot, and the changes it receives applied in a write with the pull position.
///
/// A part of the conductor, made once per Store (`StoreCore.sync`), with its state here: the file,
/// its bindings and outbox, and the binding it looked up last. It asks the conductor for the open
/// write and to write rows (insert, replace, delete: the conductor keeps indexes, links and change
/// logs), and reads rows through the Store's reader (its snapshot, or its open write).
final class SyncExchange {
    /// Writes rows and holds the open write (`insertRow`, `replaceRow`, `deleteRow`, `copyOfRow`,
    /// `writableSession`: 7 calls in all); the conductor owns this part.
    unowned let core: StoreCore
    let environment: Environment
    let tables: TableBindings
    let outbox: Outbox
    let rows: RowReader
    /// The binding looked up by name last: a batch's changes are mostly of one type.
    private var lastBinding: TableBinding?

    init(core: StoreCore) {
        self.core = core
        environment = core.environment
        tables = core.tables
        outbox = core.outbox
        rows = core.rows
    }

    /// The binding of the type named `name`, nil when it is outside the Store's schema.
    func binding(named name: String) -> TableBinding? {
        if let lastBinding, lastBinding.name == name { return lastBinding }
        lastBinding = tables.existingBinding(named: name)
        return lastBinding
    }

    // MARK: Values of outgoing changes

    /// The outbox's changes after `sequence` (whole commits, until `limit` changes), each with the
    /// current bytes and values of the properties it names, read in one snapshot. An insert or update
    /// of an object that is gone is left out: the delete that removed it follows in the outbox.
    func outgoingChanges(after sequence: UInt64, limit: Int) throws(StoreError) -> OutgoingBatch {
        try outgoingChanges(after: sequence, limit: limit) { (_, _, _) -> NoInserts? in nil }.batch
    }

    /// `outgoingChanges(after:limit:)`, but a batch that only inserts objects of one type goes
    /// to the sink `makeSink` makes for it (`outgoingInserts`), the batch's `changes` then empty.
    func outgoingChanges<Sink: OutgoingInsertSink>(
        after sequence: UInt64, limit: Int,
        insertsInto makeSink: (_ typeName: String, _ columnNames: [String], _ capacity: Int) -> Sink?
    ) throws(StoreError) -> (batch: OutgoingBatch, inserts: Sink?) {
        guard limit > 0 else { return (OutgoingBatch(changes: [], through: nil, recordedCount: 0), nil) }
        let reader = try StoreError.mapping { () throws(LMDBError) in try ReadTransaction(environment) }
        var records: [(sequence: UInt64, entries: [OutboxEntry])] = []
        var count = 0
        try outbox.walk(after: sequence, in: reader) { (recorded, entries) throws(StoreError) in
            records.append((recorded, entries))
            count += entries.count
            return count < limit
        }
        if let inserts = try outgoingInserts(records, count: count, reader: reader, makeSink: makeSink) {
            return (OutgoingBatch(changes: [], through: records.last?.sequence, recordedCount: count), inserts)
        }
        var changes: [OutgoingChange] = []
        changes.reserveCapacity(count)
        for (sequence, entries) in records {
            for entry in entries {
                guard let binding = binding(named: entry.typeName) else {
                    throw .schemaMismatch("the outbox names \(entry.typeName), a type outside this Store's schema")
                }
                if let change = try outgoingChange(
                    entry, sequence: sequence, binding: binding, reader: reader)
                {
                    changes.append(change)
                }
            }
        }
        return (OutgoingBatch(changes: changes, through: records.last?.sequence, recordedCount: count), nil)
    }

    /// The sink of a read that takes no inserts apart.
    private struct NoInserts: OutgoingInsertSink {
        func append(_ value: OutgoingScalar, column: Int) {}
        func insert(sequence: UInt64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {}
    }

    /// The stored keys of a type's objects, in one snapshot.
    func storedKeys(ofType typeName: String) throws(StoreError) -> [[UInt8]] {
        guard let binding = binding(named: typeName) else {
            throw .schemaMismatch("\(typeName) is not in this Store's schema")
        }
        let reader = try StoreError.mapping { () throws(LMDBError) in try ReadTransaction(environment) }
        var keys: [[UInt8]] = []
        try StoreError.mapping { () throws(LMDBError) in
            try reader.withCursor(binding.table) { (cursor) throws(LMDBError) in
                _ = try cursor.walk(from: cursor.first()) { (entry) throws(Never) in keys.append(Array(entry.key)) }
            }
        }
        return keys
    }

    private func outgoingChange(
        _ entry: OutboxEntry, sequence: UInt64, binding: TableBinding, reader: borrowing ReadTransaction
    ) throws(StoreError) -> OutgoingChange? {
        let rowKey = try entry.key.withBytes { (key) throws(StoreError) in
            try rows.decodeRowKey(key, binding: binding)
        }
        let primaryKey = syncKeyValue(rowKey, of: binding)
        let kind: CapturedChange.Kind
        switch entry.kind {
        case .delete:
            return OutgoingChange(
                sequence: sequence, typeName: binding.name, kind: .delete, key: entry.key, primaryKey: primaryKey,
                properties: [], payload: ChangePayload.Writer(capacity: 2).finish())
        case .insert: kind = .insert
        case .update: kind = .update
        }
        return try entry.key.withBytes { (keyBytes) throws(StoreError) -> OutgoingChange? in
            let stored = try StoreError.mapping { () throws(LMDBError) in try reader.get(binding.table, key: keyBytes) }
            guard let stored else { return nil }
            let row = try rows.storedRow(stored, keyBytes: keyBytes, binding: binding, key: rowKey)
            func column(_ column: Int) throws(StoreError) -> UnsafeRawBufferPointer? {
                do {
                    return try row.column(column)
                } catch {
                    throw .damaged(at: binding.location(of: rowKey), error)
                }
            }
            var properties: [OutgoingChange.Property] = []
            properties.reserveCapacity(entry.columns.count)
            var payload = ChangePayload.Writer(capacity: stored.count + 16 * entry.columns.count + 2)
            for index in entry.columns where index >= 0 && index < binding.columnCount {
                let bytes = try column(index)
                let name = binding.columnNames[index]
                let type = binding.columnTypes[index]
                if kind == .update, let keys = entry.mapKeys[index], embeddedTarget(of: type) == nil {
                    guard !keys.isEmpty else { continue }  // the Map was set to what it held
                    let (patch, value) = try mapPatch(keys, of: bytes, type: type, name: name)
                    payload.append(name: name, value: patch, isMapPatch: true)
                    properties.append(OutgoingChange.Property(name: name, value: value, isMapPatch: true))
                    continue
                }
                if let target = embeddedTarget(of: type) {
                    let image = try embeddedImage(of: bytes, type: type, target: target, reader: reader)
                    let value = try image.withOptionalBytes { (image) throws(StoreError) in
                        try syncValue(ofImage: image, type: type, target: target)
                    }
                    payload.append(name: name, value: image)
                    properties.append(OutgoingChange.Property(name: name, value: value))
                    continue
                }
                payload.append(name: name, value: bytes)
                properties.append(OutgoingChange.Property(name: name, value: try syncValue(bytes, type: type)))
            }
            return OutgoingChange(
                sequence: sequence, typeName: binding.name, kind: kind, key: entry.key, primaryKey: primaryKey,
                properties: properties, payload: payload.finish())
        }
    }

    /// The image of an embedded-object column: the embedded objects' values, read in `reader`.
    private func embeddedImage(
        of bytes: UnsafeRawBufferPointer?, type: PropertyType, target: TableBinding, reader: borrowing ReadTransaction
    ) throws(StoreError) -> [UInt8]? {
        try image(of: bytes, type: type, target: target) { (target, key) throws(StoreError) -> RowView? in
            let stored = try StoreError.mapping { () throws(LMDBError) in try reader.get(target.table, key: key) }
            guard let stored else { return nil }
            let rowKey = try rows.decodeRowKey(key, binding: target)
            return try rows.storedRow(stored, keyBytes: key, binding: target, key: rowKey)
        }
    }

    /// The keys of a Map an update set or removed, as their current values: the patch's bytes
    /// (`MapPatch`) and its value.
    private func mapPatch(_ keys: [String], of map: UnsafeRawBufferPointer?, type: PropertyType, name: String)
        throws(StoreError) -> (bytes: [UInt8], value: SyncValue)
    {
        let bytes: [UInt8]
        do {
            bytes = try MapPatch.encode(keys: keys, from: map)
        } catch {
            throw .corrupted("\(name): \(error)")
        }
        guard case .map(let current) = try syncValue(map, type: type) else {
            throw .corrupted("\(name) is not a Map")
        }
        var set: [String: SyncValue] = [:]
        var removed: [String] = []
        for key in keys {
            if let value = current[key] { set[key] = value } else { removed.append(key) }
        }
        return (bytes, .mapPatch(set: set, removed: removed))
    }

    /// A column's value, links as the primary key of the object they point to. Decoded by the
    /// property's Swift type directly (no `Any`: a push reads every property of every change).
    func syncValue(_ bytes: UnsafeRawBufferPointer?, type: PropertyType) throws(StoreError) -> SyncValue {
        let value = try DynamicValue.walk(
            bytes, type: type, null: .null,
            link: { (target, key) throws(StoreError) in
                guard let binding = binding(named: target) else {
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
        syncKeyValue(try rows.decodeRowKey(bytes, binding: binding), of: binding)
    }

    /// The primary key a decoded stored key holds.
    func syncKeyValue(_ key: RowKey, of binding: TableBinding) -> SyncValue {
        switch key {
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

extension Optional where Wrapped == [UInt8] {
    /// Runs `body` with the bytes, or with nil (a null column).
    func withOptionalBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        guard let self else { return try body(nil) }
        return try self.withBytes { (bytes) throws(E) -> R in try body(bytes) }
    }
}
