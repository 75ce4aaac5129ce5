/// The outbox's newest records, kept together in one value of the file's unnamed table (`Table.main`).
///
/// Every commit rewrites the unnamed table's root page anyway (it holds the roots of the named tables
/// the commit changed), so a record appended there costs the commit no page of its own. A record in a
/// table of its own costs two: that table's last leaf and the branch above it, a third more bytes
/// written per one-object write (W2). When the head would pass `capacity`, its records move to the
/// meta table in one put, as a block (the head's bytes, under `ChangeCapture.entryKey` of its first
/// record), and the head starts over; a commit's record too big for the head goes there on its own.
///
/// Bytes: `[version][last sequence: UInt64]`, then per record `[sequence: UInt64][length: UInt16]` and
/// the record, little-endian. The last sequence stays when the records move, so that sequences keep
/// increasing even where LMDB's transaction ids do not (a compacted copy starts them over).
///
/// Every record in the meta table is older than every record in the head: readers walk the meta
/// table's records, then the head's.
enum OutboxHead {
    static let key = Array("strata.outbox.head".utf8)
    /// Not a version `OutboxEntry` records ever had: a block in the meta table tells itself apart.
    static let version: UInt8 = 0x81
    static let headerSize = 9
    static let entryHeaderSize = 10
    /// Past this many bytes, the records move to the meta table: once per ~40 of W2's writes. Well
    /// within LMDB's largest value kept in its page (about 2,000 bytes with 4 KB pages), and leaving
    /// more than half of the page to the named tables' records.
    static let capacity = 1536

    /// An empty head whose records start after `last`.
    static func empty(last: UInt64 = 0) -> [UInt8] {
        var bytes = [version]
        withUnsafeBytes(of: last.littleEndian) { bytes += $0 }
        return bytes
    }

    /// The sequence of the newest record ever stored.
    ///
    /// - Throws: `RowDamage` when the bytes are not a head of this version.
    static func lastSequence(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> UInt64 {
        guard bytes.count >= headerSize, bytes[0] == version else {
            throw RowDamage("outbox head of \(bytes.count) bytes, version \(bytes.first ?? 0)")
        }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
    }

    /// `lastSequence`, once every record's length is checked (a hop per record; the write path's
    /// check, so no closure).
    ///
    /// - Throws: `RowDamage` when the bytes are not a head of this version.
    static func checkedLastSequence(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> UInt64 {
        let last = try lastSequence(bytes)
        var position = headerSize
        while position + entryHeaderSize <= bytes.count {
            let length = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 8, as: UInt16.self))
            position += entryHeaderSize + Int(length)
        }
        guard position == bytes.count else { throw RowDamage("outbox head ends inside a record") }
        return last
    }

    /// The sequence of the first record, if there is one (its bytes unchecked).
    static func firstSequence(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= headerSize + entryHeaderSize else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: headerSize, as: UInt64.self))
    }

    /// Whether a stored outbox value is a block of records moved from the head (the head's bytes),
    /// not one commit's record (which starts with `OutboxEntry.version`).
    static func isBlock(_ value: UnsafeRawBufferPointer) -> Bool {
        value.first == version
    }

    static func setLastSequence(_ sequence: UInt64, in bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: sequence.littleEndian, toByteOffset: 1, as: UInt64.self) }
    }

    static func append(sequence: UInt64, record: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: sequence.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt16(record.count).littleEndian) { bytes += $0 }
        bytes += record
        setLastSequence(sequence, in: &bytes)
    }

    /// Calls `body` with each record (its sequence and bytes), oldest first, until it returns false.
    ///
    /// - Throws: `RowDamage` when the bytes are not a head of this version, or what `body` throws.
    static func forEachRecord<Failure: Error>(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (UInt64, UnsafeRawBufferPointer) throws(Failure) -> Bool
    ) throws(HeadFailure<Failure>) {
        do {
            _ = try lastSequence(bytes)
        } catch {
            throw .damaged(error)
        }
        var position = headerSize
        var previous: UInt64?
        while position < bytes.count {
            guard position + entryHeaderSize <= bytes.count else {
                throw .damaged(RowDamage("outbox head ends inside a record's header"))
            }
            let sequence = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let length = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 8, as: UInt16.self)))
            let start = position + entryHeaderSize
            guard start + length <= bytes.count else {
                throw .damaged(RowDamage("outbox head ends inside record \(sequence)"))
            }
            guard previous.map({ $0 < sequence }) ?? true else {
                throw .damaged(RowDamage("outbox head's record \(sequence) follows \(previous ?? 0)"))
            }
            previous = sequence
            do {
                guard try body(sequence, UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])) else {
                    return
                }
            } catch {
                throw .body(error)
            }
            position = start + length
        }
    }

    /// Why `forEachRecord` stopped: the head's bytes, or its body.
    enum HeadFailure<Body: Error>: Error {
        case damaged(RowDamage)
        case body(Body)
    }
}

extension OutboxHead {
    /// The head (or block) without its records up to `sequence` included; its last sequence stays.
    ///
    /// - Throws: `.corrupted` when the bytes are not a head of this version.
    static func keeping(after sequence: UInt64, of bytes: UnsafeRawBufferPointer) throws(StoreError) -> [UInt8] {
        let last: UInt64
        do {
            last = try lastSequence(bytes)
        } catch {
            throw .corrupted("\(error)")
        }
        var kept = empty(last: last)
        do {
            try forEachRecord(bytes) { (recorded, record) throws(Never) in
                if recorded > sequence { append(sequence: recorded, record: record, to: &kept) }
                return true
            }
        } catch {
            if case .damaged(let damage) = error { throw .corrupted("\(damage)") }
        }
        setLastSequence(last, in: &kept)
        return kept
    }
}

extension ChangeCapture {
    /// Calls `visit` with each outbox record after `sequence` (its sequence and bytes), oldest first:
    /// the meta table's (through the cursor `withMetaCursor` opens; a commit's record, or a block of
    /// records moved from the head), then the head's (`head`, its stored bytes); stops when `visit`
    /// returns false.
    ///
    /// - Throws: `.corrupted` for a head or block that cannot be read, `.storage`, or what `visit`
    ///   throws.
    static func walkOutbox(
        after sequence: UInt64, head: UnsafeRawBufferPointer?,
        withMetaCursor: ((borrowing Cursor) throws(LMDBError) -> StoreError?) throws(LMDBError) -> StoreError?,
        visit: (UInt64, UnsafeRawBufferPointer) throws(StoreError) -> Bool
    ) throws(StoreError) {
        var going = true
        // Both closures are only called during this call; the compiler cannot tell `visit` is not
        // re-entered through `withMetaCursor`.
        try withoutActuallyEscaping(visit) { (visit) throws(StoreError) in
            /// One stored value: a commit's record, or a block's (or the head's) records after `sequence`.
            func visitValue(_ recorded: UInt64, _ value: UnsafeRawBufferPointer) throws(StoreError) {
                guard OutboxHead.isBlock(value) else {
                    if recorded > sequence { going = try visit(recorded, value) }
                    return
                }
                do {
                    try OutboxHead.forEachRecord(value) { (inner, record) throws(StoreError) in
                        if inner > sequence { going = try visit(inner, record) }
                        return going
                    }
                } catch {
                    throw error.storeError
                }
            }
            let failure = try StoreError.mapping { () throws(LMDBError) -> StoreError? in
                try withMetaCursor { (cursor) throws(LMDBError) -> StoreError? in
                    let start = entryKey(sequence &+ 1)
                    let after = try start.withBytes { (key) throws(LMDBError) in try cursor.seek(atLeast: key) }
                    // A block is keyed by its first record: the one before may hold records after `sequence`.
                    let before = after == nil ? try cursor.last() : try cursor.previous()
                    if let before, let recorded = Self.sequence(ofKey: before.key), OutboxHead.isBlock(before.value) {
                        do throws(StoreError) {
                            try visitValue(recorded, before.value)
                        } catch {
                            return error
                        }
                    }
                    guard going else { return nil }
                    let first = try start.withBytes { (key) throws(LMDBError) in try cursor.seek(atLeast: key) }
                    return try cursor.walk(from: first, while: { going && Self.sequence(ofKey: $0) != nil }) {
                        (entry) throws(StoreError) in
                        try visitValue(Self.sequence(ofKey: entry.key) ?? 0, entry.value)
                    }
                }
            }
            if let failure { throw failure }
            if going, let head { try visitValue(0, head) }
        }
    }
}

extension OutboxHead.HeadFailure where Body == StoreError {
    /// Damage as `.corrupted`; the body's error as it is.
    var storeError: StoreError {
        switch self {
        case .damaged(let damage): .corrupted("\(damage)")
        case .body(let error): error
        }
    }
}
