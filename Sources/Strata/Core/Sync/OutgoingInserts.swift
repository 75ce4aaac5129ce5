/// A value of an outgoing insert as `OutgoingInsertSink` receives it: scalars without an allocation
/// (text and bytes borrowed from the file for the call), anything else as a `SyncValue`.
@_spi(StrataSync)
public enum OutgoingScalar {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    /// A string's UTF-8, checked valid.
    case text(UnsafeRawBufferPointer)
    case bytes(UnsafeRawBufferPointer)
    case value(SyncValue)
}

/// Receives a batch of the outbox that only inserts objects of one type
/// (`Store.outgoingChanges(after:limit:insertsInto:)`): per object, in key order, its key,
/// payload and values, read from the file's bytes with no `OutgoingChange` made (a push of an import
/// spent most of its client time making them).
@_spi(StrataSync)
public protocol OutgoingInsertSink {
    /// One value of the object under way, its properties in column order.
    mutating func append(_ value: OutgoingScalar, column: Int)
    /// Ends the object under way (after its values): its outbox place, stored key and payload
    /// (`ChangePayload`; its image too).
    mutating func insert(sequence: UInt64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)
}

extension SyncExchange {
    /// Gives the inserts of `records` to the sink `makeSink` makes for their type, in key order, when
    /// they are all inserts of one type, each with every property (an insert always has), and no
    /// property holds embedded objects; nil otherwise, or when `makeSink` makes none. An object
    /// deleted since is left out: its delete follows in the outbox.
    func outgoingInserts<Sink: OutgoingInsertSink>(
        _ records: [(sequence: UInt64, entries: [OutboxEntry])], count: Int, reader: borrowing ReadTransaction,
        makeSink: (_ typeName: String, _ columnNames: [String], _ capacity: Int) -> Sink?
    ) throws(StoreError) -> Sink? {
        guard let typeName = records.first?.entries.first?.typeName,
            let binding = binding(named: typeName),
            (0..<binding.columnCount).allSatisfy({ embeddedTarget(of: binding.columnTypes[$0]) == nil }),
            records.allSatisfy({ record in
                record.entries.allSatisfy { entry in
                    entry.kind == .insert && entry.typeName == typeName && entry.mapKeys.isEmpty
                        && entry.columns.count == binding.columnCount
                        && entry.columns.enumerated().allSatisfy { $0 == $1 }
                }
            }),
            var sink = makeSink(typeName, binding.columnNames, count)
        else { return nil }
        // The objects in key order: one cursor steps along the table (LMDB looks first in the page
        // it is on) instead of a search from the root per object. Inserts of distinct objects in a
        // batch commute; an object twice (inserted, deleted, inserted) reads its one current row.
        var unordered: [(sequence: UInt64, key: [UInt8])] = []
        unordered.reserveCapacity(count)
        for (sequence, entries) in records { for entry in entries { unordered.append((sequence, entry.key)) } }
        let objects = Self.inKeyOrder(unordered)
        var payload = ChangePayload.Writer(capacity: 256)
        var failure: StoreError?
        try StoreError.mapping { () throws(LMDBError) in
            try reader.withCursor(binding.table) { (cursor) throws(LMDBError) in
                for (sequence, key) in objects where failure == nil {
                    try key.withBytes { (keyBytes) throws(LMDBError) in
                        // Not found: deleted since (its delete follows in the outbox).
                        guard let found = try cursor.seek(atLeast: keyBytes), found.key.hasSameBytes(as: keyBytes)
                        else { return }
                        do throws(StoreError) {
                            // Passed inout, not captured: a captured variable would be checked for
                            // exclusive access at run time on each of its uses.
                            try give(
                                sequence, key: keyBytes, stored: found.value, binding: binding, payload: &payload,
                                sink: &sink)
                        } catch {
                            failure = error
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
        return sink
    }

    /// Gives `sink` the object of stored key `keyBytes` and row `stored`.
    private func give<Sink: OutgoingInsertSink>(
        _ sequence: UInt64, key keyBytes: UnsafeRawBufferPointer, stored: UnsafeRawBufferPointer,
        binding: TableBinding, payload: inout ChangePayload.Writer, sink: inout Sink
    ) throws(StoreError) {
        let rowKey = try rows.decodeRowKey(keyBytes, binding: binding)
        let row = try rows.storedRow(stored, keyBytes: keyBytes, binding: binding, key: rowKey)
        payload.removeAll()
        for index in 0..<binding.columnCount {
            let bytes: UnsafeRawBufferPointer?
            do {
                bytes = try row.column(index)
            } catch {
                throw .damaged(at: binding.location(of: rowKey), error)
            }
            payload.append(name: binding.columnNames[index], value: bytes)
            sink.append(try scalar(bytes, type: binding.columnTypes[index]), column: index)
        }
        payload.withFinishedBytes { sink.insert(sequence: sequence, key: keyBytes, payload: $0) }
    }

    /// `objects` sorted by key, bytewise (LMDB's order of row keys): by their first eight bytes as
    /// one integer, whole keys compared only when those are equal.
    private static func inKeyOrder(_ objects: [(sequence: UInt64, key: [UInt8])])
        -> [(sequence: UInt64, key: [UInt8])]
    {
        func prefix(_ key: [UInt8]) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(index < key.count ? key[index] : 0) }
            return value
        }
        var order = objects.indices.map { (prefix: prefix(objects[$0].key), index: $0) }
        order.sort { first, second in
            if first.prefix != second.prefix { return first.prefix < second.prefix }
            return objects[first.index].key.lexicographicallyPrecedes(objects[second.index].key)
        }
        return order.map { objects[$0.index] }
    }

    /// A stored value as an `OutgoingScalar`: integers, floating point, Booleans, strings and data
    /// straight from their bytes, anything else through `syncValue`.
    private func scalar(_ bytes: UnsafeRawBufferPointer?, type: PropertyType) throws(StoreError) -> OutgoingScalar {
        var type = type
        if case .optional(let wrapped) = type {
            guard bytes != nil else { return .null }
            type = wrapped
        }
        guard let bytes else { return .value(try syncValue(nil, type: type)) }
        func integer<I: FixedWidthInteger>(_: I.Type) throws(StoreError) -> Int64 {
            Int64(try loadExact(bytes, as: I.self))
        }
        switch type {
        case .bool:
            switch try loadExact(bytes, as: UInt8.self) {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let other: throw .corrupted("a Bool value is \(other)")
            }
        case .int8: return .integer(try integer(Int8.self))
        case .int16: return .integer(try integer(Int16.self))
        case .int32: return .integer(try integer(Int32.self))
        case .int64: return .integer(try integer(Int64.self))
        case .uint8: return .integer(try integer(UInt8.self))
        case .uint16: return .integer(try integer(UInt16.self))
        case .uint32: return .integer(try integer(UInt32.self))
        case .float: return .double(Double(Float(bitPattern: try loadExact(bytes, as: UInt32.self))))
        case .double: return .double(Double(bitPattern: try loadExact(bytes, as: UInt64.self)))
        case .string:
            guard UTF8Text.isValid(bytes) else { throw .corrupted("a String value is not valid UTF-8") }
            return .text(bytes)
        case .data: return .bytes(bytes)
        default: return .value(try syncValue(bytes, type: type))
        }
    }
}
