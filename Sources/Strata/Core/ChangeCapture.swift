/// Change capture, the outbox of sync (StrataSync): for the types a file captures, every commit
/// records what it changed — an object inserted, properties updated, an object deleted, by primary key
/// — in the file's meta table, in the same LMDB transaction as the change. A crash cannot lose a
/// committed change from the outbox, nor leave one of a write that did not commit.
///
/// The captured types are stored in the file (meta key `capture.types`), read by a process's first
/// write and kept per process (`SharedFile`): every Store of the file in the process records them,
/// and so does every process that opens the file later. A look-up in the file per write would cost
/// 7.5% of a one-object write (W2): LMDB finds a named table's root anew in every transaction.
/// Entries are keyed `outbox/` and a big-endian sequence number; `outbox-next` holds the next one.
enum ChangeCapture {
    static let typesKey = Array("capture.types".utf8)
    static let nextKey = Array("outbox-next".utf8)
    static let entryPrefix = Array("outbox/".utf8)

    static func entryKey(_ sequence: UInt64) -> [UInt8] {
        entryPrefix + withUnsafeBytes(of: sequence.bigEndian) { Array($0) }
    }

    /// The type names stored under `capture.types` (one per line).
    static func decodeTypes(_ bytes: UnsafeRawBufferPointer) -> Set<String> {
        Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    static func encodeTypes(_ names: Set<String>) -> [UInt8] {
        Array(names.sorted().joined(separator: "\n").utf8)
    }
}

/// One recorded change, as stored in the outbox.
struct OutboxEntry: Equatable {
    enum Kind: UInt8 {
        case insert = 1
        case update = 2
        case delete = 3
    }

    var kind: Kind
    var typeName: String
    /// The row key, as stored (Strata's key encoding of the primary key).
    var key: [UInt8]
    /// The columns the change set: every column for an insert, none for a delete.
    var columns: [Int]
    /// The row after the change, without its seal; empty for a delete.
    var row: [UInt8]

    private static let version: UInt8 = 1

    /// `[version][kind][name length: UInt16][name][key length: UInt16][key][column count: UInt16]`,
    /// the columns as UInt16, then the row; integers little-endian.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.version, kind.rawValue]
        bytes.reserveCapacity(8 + typeName.utf8.count + key.count + columns.count * 2 + row.count)
        func append16(_ value: Int) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        append16(typeName.utf8.count)
        bytes += typeName.utf8
        append16(key.count)
        bytes += key
        append16(columns.count)
        for column in columns { append16(column) }
        bytes += row
        return bytes
    }

    /// - Throws: `RowDamage` when the bytes are not an entry of this version.
    init(decoding bytes: UnsafeRawBufferPointer) throws(RowDamage) {
        var position = 0
        func take(_ count: Int) throws(RowDamage) -> UnsafeRawBufferPointer {
            guard count >= 0, position + count <= bytes.count else {
                throw RowDamage("outbox entry of \(bytes.count) bytes ends early")
            }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
        }
        func take16() throws(RowDamage) -> Int {
            let two = try take(2)
            return Int(two[0]) | Int(two[1]) << 8
        }
        let head = try take(2)
        guard head[0] == Self.version, let kind = Kind(rawValue: head[1]) else {
            throw RowDamage("outbox entry of version \(head[0]), kind \(head[1])")
        }
        self.kind = kind
        typeName = String(decoding: try take(try take16()), as: UTF8.self)
        key = Array(try take(try take16()))
        let count = try take16()
        var columns: [Int] = []
        for _ in 0..<count { columns.append(try take16()) }
        self.columns = columns
        row = Array(try take(bytes.count - position))
    }

    init(kind: Kind, typeName: String, key: [UInt8], columns: [Int], row: [UInt8]) {
        self.kind = kind
        self.typeName = typeName
        self.key = key
        self.columns = columns
        self.row = row
    }
}

extension StoreCore {
    /// The meta table's handle (opened with the file; valid for the environment's life).
    var metaTable: Table? {
        environment.withTableRegistry { $0[TableName.meta] }
    }

    /// Per binding (by ordinal), whether this file captures its changes; nil when it captures none.
    /// The file's list is read once per process (by the first write), then kept with the file's shared
    /// state; `captureChanges(of:)` updates both. Each write compares a generation number.
    func capturedBindings(_ session: WriteSession) throws(StoreError) -> [Bool]? {
        let generation = shared.captureGeneration.load(ordering: .acquiring)
        if generation != 0, generation == capture.generation { return capture.bindings }
        let names: Set<String>
        if let known = shared.capturedTypes.withLock({ $0 }) {
            names = known
        } else {
            names = try readCapturedTypes(session) ?? []
            shared.capturedTypes.withLock { $0 = $0 ?? names }
            _ = shared.captureGeneration.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        }
        let captured = bindings.map { names.contains($0.name) }
        capture = (shared.captureGeneration.load(ordering: .acquiring), captured.contains(true) ? captured : nil)
        return capture.bindings
    }

    /// Records that the file now captures `names` too (after the write that stored them committed).
    func noteCapturedTypes(_ names: Set<String>) {
        shared.capturedTypes.withLock { $0 = names }
        shared.captureGeneration.add(1, ordering: .acquiringAndReleasing)
    }

    /// The file's list of captured types, read in the write's transaction.
    func readCapturedTypes(_ session: WriteSession) throws(StoreError) -> Set<String>? {
        guard let meta = session.metaTable ?? metaTable else { return nil }
        session.metaTable = meta
        return try StoreError.mapping { () throws(LMDBError) in
            try ChangeCapture.typesKey.withBytes { (key) throws(LMDBError) in
                try session.transaction!.get(meta, key: key).map(ChangeCapture.decodeTypes)
            }
        }
    }

    /// Appends the outbox entries of this write's changes to captured types, in its transaction.
    func recordCapturedChanges(_ session: WriteSession, log: [TableChanges], captured: [Bool]) throws(StoreError) {
        var entries: [OutboxEntry] = []
        for binding in bindings where captured[binding.ordinal] && !log[binding.ordinal].isEmpty {
            let changes = log[binding.ordinal]
            for key in changes.deleted.sorted(by: Self.storedOrder) {
                entries.append(
                    OutboxEntry(kind: .delete, typeName: binding.name, key: key.storedBytes, columns: [], row: []))
            }
            for key in changes.inserted.sorted(by: Self.storedOrder) {
                entries.append(
                    OutboxEntry(
                        kind: .insert, typeName: binding.name, key: key.storedBytes,
                        columns: Array(0..<binding.columnCount), row: try currentRow(session, binding, key)))
            }
            for (key, columns) in changes.modified.sorted(by: { Self.storedOrder($0.key, $1.key) }) {
                entries.append(
                    OutboxEntry(
                        kind: .update, typeName: binding.name, key: key.storedBytes, columns: columns.sorted(),
                        row: try currentRow(session, binding, key)))
            }
        }
        guard !entries.isEmpty else { return }
        guard let meta = session.metaTable ?? metaTable else { throw .corrupted("the file has no meta table") }
        session.metaTable = meta
        try StoreError.mapping { () throws(LMDBError) in
            let next = try ChangeCapture.nextKey.withBytes { (key) throws(LMDBError) -> UInt64 in
                guard let stored = try session.transaction!.get(meta, key: key), stored.count == 8 else { return 1 }
                return UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
            }
            for (offset, entry) in entries.enumerated() {
                let bytes = entry.encoded()
                try ChangeCapture.entryKey(next + UInt64(offset)).withBytes { (key) throws(LMDBError) in
                    try bytes.withBytes { (value) throws(LMDBError) in
                        _ = try session.transaction!.put(meta, key: key, value: value)
                    }
                }
            }
            try ChangeCapture.nextKey.withBytes { (key) throws(LMDBError) in
                try withBytes(of: (next + UInt64(entries.count)).bigEndian) { (value) throws(LMDBError) in
                    _ = try session.transaction!.put(meta, key: key, value: value)
                }
            }
        }
    }

    private static func storedOrder(_ left: RowKey, _ right: RowKey) -> Bool {
        left.storedBytes.lexicographicallyPrecedes(right.storedBytes)
    }

    /// The row stored under `key` in this write, without its seal.
    private func currentRow(_ session: WriteSession, _ binding: TableBinding, _ key: RowKey) throws(StoreError)
        -> [UInt8]
    {
        guard let stored = try session.get(binding.table, key: key), stored.count >= RowSeal.size else {
            throw .corrupted("\(binding.location(of: key)): changed in this write, but not stored")
        }
        return Array(stored.dropLast(RowSeal.size))
    }
}

extension RowKey {
    /// The key as stored.
    var storedBytes: [UInt8] { withBytes { Array($0) } }
}
