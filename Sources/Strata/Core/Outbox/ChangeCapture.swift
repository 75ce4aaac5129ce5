/// Change capture, the outbox of sync (StrataSync): for the types a file captures, every commit
/// records what it changed — an object inserted, properties updated, an object deleted, by key — in
/// the file's outbox, in the same LMDB transaction as the change. A crash cannot lose a committed
/// change from the outbox, nor leave one of a write that did not commit.
///
/// One record per commit, under a sequence: the transaction id, shifted 16 bits, and a number within
/// the transaction (the writes of a commit group share one), always above the last one stored. The
/// newest records are kept together in the outbox's head (`OutboxHead`), in the page every commit
/// writes anyway; older ones in the meta table, keyed `outbox/` and the sequence, big-endian: blocks
/// of records moved from the head (keyed by their first), or one big commit's record. A
/// record names the changed objects and properties, not their
/// values: whoever sends them reads the objects as they are then (a later value of a property only
/// overtakes an earlier one, which is what last-writer-wins keeps anyway).
///
/// The captured types are stored in the file (meta key `capture.types`), read by a process's first
/// write and kept per process (`SharedFile`): every Store of the file in the process records them,
/// and so does every process that opens the file later. A look-up in the file per write would cost
/// 7.5% of a one-object write (W2): LMDB finds a named table's root anew in every transaction.
enum ChangeCapture {
    static let typesKey = Array("capture.types".utf8)
    static let entryPrefix = Array("outbox/".utf8)
    static let keyLength = entryPrefix.count + 10

    /// A record's place in the outbox: its transaction id, then its number within the transaction.
    static func sequence(transaction: Int, index: Int) -> UInt64 {
        UInt64(transaction) << 16 | UInt64(index)
    }

    static func entryKey(_ sequence: UInt64) -> [UInt8] {
        entryPrefix + withUnsafeBytes(of: (sequence >> 16).bigEndian) { Array($0) }
            + withUnsafeBytes(of: UInt16(truncatingIfNeeded: sequence).bigEndian) { Array($0) }
    }

    /// `entryKey(sequence)` written into `key` (`keyLength` bytes), without allocating.
    static func writeEntryKey(_ sequence: UInt64, into key: UnsafeMutableRawBufferPointer) {
        key.copyBytes(from: entryPrefix)
        key.storeBytes(of: (sequence >> 16).bigEndian, toByteOffset: entryPrefix.count, as: UInt64.self)
        key.storeBytes(
            of: UInt16(truncatingIfNeeded: sequence).bigEndian, toByteOffset: entryPrefix.count + 8, as: UInt16.self)
    }

    static func sequence(ofKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == keyLength, key.starts(with: entryPrefix) else { return nil }
        let transaction = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: entryPrefix.count, as: UInt64.self))
        let index = UInt16(bigEndian: key.loadUnaligned(fromByteOffset: entryPrefix.count + 8, as: UInt16.self))
        return transaction << 16 | UInt64(index)
    }

    /// The type names stored under `capture.types` (one per line).
    static func decodeTypes(_ bytes: UnsafeRawBufferPointer) -> Set<String> {
        Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    static func encodeTypes(_ names: Set<String>) -> [UInt8] {
        Array(names.sorted().joined(separator: "\n").utf8)
    }
}

/// One change of an outbox record.
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
    /// For an update, per Map column among `columns`, the keys whose value the change set or removed
    /// (sync sends those keys only: last-writer-wins per key). A Map column absent here changed
    /// whole (an insert, or a record written before keys were recorded).
    var mapKeys: [Int: [String]] = [:]

    /// Version 3 added `mapKeys`; version 2 records (without them) are still read.
    static let version: UInt8 = 3

    /// Appends `[kind][name length: UInt16][name][key length: UInt16][key][column count: UInt16]`,
    /// the columns as UInt16, then `[map column count: UInt16]` and per Map column `[column: UInt16]
    /// [key count: UInt16]` and its keys (`[length: UInt16][UTF-8]`), little-endian; a record is
    /// `[version]` and its entries.
    static func append(
        kind: Kind, typeName: String, key: RowKey, columns: some Collection<Int>, mapKeys: [Int: [String]] = [:],
        to bytes: inout [UInt8]
    ) {
        func append16(_ value: Int) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        bytes.append(kind.rawValue)
        append16(typeName.utf8.count)
        bytes += typeName.utf8
        key.withBytes { key in
            append16(key.count)
            bytes += key
        }
        append16(columns.count)
        for column in columns { append16(column) }
        append16(mapKeys.count)
        for (column, keys) in mapKeys.sorted(by: { $0.key < $1.key }) {
            append16(column)
            append16(keys.count)
            for key in keys {
                append16(key.utf8.count)
                bytes += key.utf8
            }
        }
    }

    /// The `index`th column number of an entry's list (two bytes each, little-endian).
    private static func column(_ index: Int, of listed: UnsafeRawBufferPointer) -> Int {
        Int(listed[2 * index]) | Int(listed[2 * index + 1]) << 8
    }

    /// The entries of a record.
    ///
    /// - Throws: `RowDamage` when the bytes are not a record of this version.
    static func decodeRecord(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> [OutboxEntry] {
        var reader = RecordReader(bytes: bytes)
        let recordVersion = try reader.take(1)[0]
        guard recordVersion == version || recordVersion == 2 else {
            throw RowDamage("outbox record of version \(recordVersion)")
        }
        var entries: [OutboxEntry] = []
        // A commit's entries mostly share a type and (inserts) their columns: made once, then shared.
        var typeName = ""
        var columns: [Int] = []
        while !reader.isAtEnd {
            let code = try reader.take(1)[0]
            guard let kind = Kind(rawValue: code) else { throw RowDamage("outbox entry of kind \(code)") }
            let name = try reader.take(try reader.take16())
            if !typeName.utf8.elementsEqual(name) { typeName = String(decoding: name, as: UTF8.self) }
            let key = Array(try reader.take(try reader.take16()))
            let count = try reader.take16()
            let listed = try reader.take(2 * count)
            if columns.count != count || !columns.indices.allSatisfy({ columns[$0] == Self.column($0, of: listed) }) {
                columns = (0..<count).map { Self.column($0, of: listed) }
            }
            var mapKeys: [Int: [String]] = [:]
            if recordVersion >= 3 {
                for _ in 0..<(try reader.take16()) {
                    let column = try reader.take16()
                    var keys: [String] = []
                    for _ in 0..<(try reader.take16()) {
                        keys.append(String(decoding: try reader.take(try reader.take16()), as: UTF8.self))
                    }
                    mapKeys[column] = keys
                }
            }
            entries.append(OutboxEntry(kind: kind, typeName: typeName, key: key, columns: columns, mapKeys: mapKeys))
        }
        return entries
    }

    /// Reads a record's bytes in order (a value type: no captured position to check at run time).
    private struct RecordReader {
        let bytes: UnsafeRawBufferPointer
        private var position = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var isAtEnd: Bool { position >= bytes.count }

        mutating func take(_ count: Int) throws(RowDamage) -> UnsafeRawBufferPointer {
            guard count >= 0, position + count <= bytes.count else {
                throw RowDamage("outbox record of \(bytes.count) bytes ends early")
            }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
        }

        mutating func take16() throws(RowDamage) -> Int {
            let two = try take(2)
            return Int(two[0]) | Int(two[1]) << 8
        }
    }
}

extension RowKey {
    /// The key as stored.
    var storedBytes: [UInt8] { withBytes { Array($0) } }
}
