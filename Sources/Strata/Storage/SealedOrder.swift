#if Encryption
    import CLMDB
    import Foundation

    /// The entries of a table with sealed keys in the order of their values, for one transaction: what
    /// a cursor walks on an encrypted file, so that every walk (a Results' rows, a range, the first or
    /// last key, an index's entries) sees the order a plain file has. Made on the first walk of the
    /// table in the transaction by reading and opening all of it, then kept until the transaction ends
    /// or writes to the table (Docs/Encryption.md says what that costs).
    final class SealedOrder: @unchecked Sendable {  // read-only once made
        struct Entry {
            let key: UnsafeRawBufferPointer
            var value: UnsafeRawBufferPointer
            /// The key as stored (sealed), to put the real cursor on the entry (`MDB_CURRENT` writes).
            let storedKey: UnsafeRawBufferPointer
        }

        private(set) var entries: [Entry]
        /// The copies the entries point into, when the order outlives one transaction (a kept image,
        /// `SealedImages`); empty for an order of one transaction (its `OpenedValues` hold them).
        let arenas: [OpenedValues]
        /// Kept for later transactions too: never changed in place (`privateCopy` first).
        let isShared: Bool
        /// Set when its transaction wrote to the table through another path than a walk's in-place
        /// replace (`FileSealing.tableChanged`): the keys still show where a walk stands, but values
        /// may be old, so a walk reads each value again (`orderedCursorGet`). Set and read on the
        /// writing transaction's thread, under `FileSealing`'s lock when set.
        var isStale = false
        /// For an order kept for later transactions (many searches), each entry's key's first 8 bytes
        /// (`prefix`), in one compact array that a search compares first: a search of an image of a
        /// million rows followed every step's key into its arena (two cache misses a step, half the
        /// time of a read by key). Empty for an order of one transaction.
        private let prefixes: [UInt64]

        convenience init(entries: [Entry], arenas: [OpenedValues] = [], isShared: Bool = false) {
            self.init(sorted: entries.sorted { Self.precedes($0, $1) }, arenas: arenas, isShared: isShared)
        }

        /// An order of entries already in order.
        init(sorted entries: [Entry], arenas: [OpenedValues], isShared: Bool, prefixes: [UInt64]? = nil) {
            self.entries = entries
            self.arenas = arenas
            self.isShared = isShared
            self.prefixes = prefixes ?? (isShared ? entries.map { Self.prefix($0.key) } : [])
        }

        /// Marks a transaction's own order stale; a kept image is never changed (other readers share it).
        func markStale() {
            if !isShared { isStale = true }
        }

        /// A copy one transaction may change (`replaceValue`, which keeps keys), sharing the bytes.
        func privateCopy() -> SealedOrder {
            SealedOrder(sorted: entries, arenas: arenas, isShared: false, prefixes: prefixes)
        }

        /// A key's first 8 bytes, zero-padded, as a big-endian integer: two keys whose prefixes differ
        /// are in the order of their prefixes (memcmp's order; a shorter key pads with zeros, which no
        /// byte is below). Equal prefixes leave the order to the whole keys.
        static func prefix(_ key: UnsafeRawBufferPointer) -> UInt64 {
            if key.count >= 8 { return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) }
            var bytes: UInt64 = 0
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: key) }
            return UInt64(bigEndian: bytes)
        }

        /// The bytes of the copies the entries point into.
        var arenaBytes: Int { arenas.reduce(0) { $0 + $1.bytes } }

        /// The position of the entry whose key is `key`, in a table without duplicates.
        func position(of key: UnsafeRawBufferPointer) -> Int? {
            let index = lowerBound(key)
            return index < entries.count && Self.compare(entries[index].key, key) == 0 ? index : nil
        }

        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            let order = compare(a.key, b.key)
            return order != 0 ? order < 0 : compare(a.value, b.value) < 0
        }

        /// memcmp's order, LMDB's default: a prefix first.
        static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
            let common = min(a.count, b.count)
            if common > 0 {
                let order = memcmp(a.baseAddress!, b.baseAddress!, common)
                if order != 0 { return Int(order) }
            }
            return a.count - b.count
        }

        /// The first position whose key is `key` or after it (and, given `value`, whose pair is).
        func lowerBound(_ key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer? = nil) -> Int {
            var low = 0
            var high = entries.count
            let prefix = prefixes.isEmpty ? 0 : Self.prefix(key)
            while low < high {
                let middle = (low + high) / 2
                if !prefixes.isEmpty, prefixes[middle] != prefix {
                    if prefixes[middle] < prefix { low = middle + 1 } else { high = middle }
                    continue
                }
                var order = Self.compare(entries[middle].key, key)
                if order == 0, let value { order = Self.compare(entries[middle].value, value) }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return low
        }

        func replaceValue(at position: Int, with value: UnsafeRawBufferPointer) {
            entries[position].value = value
        }
    }

    /// Where each cursor of a table with sealed keys stands in its `SealedOrder`. Process-wide and
    /// keyed by the cursor, so that closing a cursor forgets it without reaching its transaction
    /// (which may have ended first).
    enum SealedCursors {
        struct Position {
            let order: SealedOrder
            var index: Int
            let transaction: OpaquePointer
        }

        private static let lock = NSLock()
        /// The positioned cursors, newest last: a handful at a time (a walk's, a query's), so a scan
        /// finds one faster than hashing it would. Under `lock`.
        nonisolated(unsafe) private static var positions: [(cursor: OpaquePointer, position: Position)] = []
        nonisolated(unsafe) private static var count = 0  // under lock; read unlocked as a hint

        /// Under `lock`: where `cursor` is in `positions`.
        private static func slot(_ cursor: OpaquePointer) -> Int? {
            positions.lastIndex { $0.cursor == cursor }
        }

        static func position(_ cursor: OpaquePointer) -> Position? {
            lock.withLock { slot(cursor).map { positions[$0].position } }
        }

        static func set(_ cursor: OpaquePointer, _ position: Position) {
            lock.withLock {
                if let slot = slot(cursor) {
                    positions[slot].position = position
                } else {
                    positions.append((cursor, position))
                    count = positions.count
                }
            }
        }

        /// Forgets the cursors of `transaction`, which ended (LMDB frees a write transaction's cursors).
        static func transactionEnded(_ transaction: OpaquePointer) {
            guard count > 0 else { return }
            lock.withLock {
                positions.removeAll { $0.position.transaction == transaction }
                count = positions.count
            }
        }

        /// Moves a positioned `cursor` one entry forward or back under one lock (a walk's step): the
        /// entry it then stands on (nil past an end, where LMDB leaves the cursor) and whether its order
        /// is stale, or nil when the cursor stands nowhere yet.
        static func step(_ cursor: OpaquePointer, forward: Bool) -> (entry: SealedOrder.Entry?, isStale: Bool)? {
            lock.lock()
            defer { lock.unlock() }
            guard let slot = slot(cursor) else { return nil }
            let index = positions[slot].position.index + (forward ? 1 : -1)
            let order = positions[slot].position.order
            guard index >= 0, index < order.entries.count else { return (nil, false) }
            positions[slot].position.index = index
            return (order.entries[index], order.isStale)
        }

        static func closed(_ cursor: OpaquePointer) {
            guard count > 0 else { return }  // a plain file's cursors: no lock taken
            lock.withLock {
                if let slot = slot(cursor) {
                    positions.remove(at: slot)
                    count = positions.count
                }
            }
        }
    }

    extension LMDB {
        /// `mdb_cursor_get` on a table with sealed keys, walking its `SealedOrder`: the pair at the new
        /// position, opened, or nil (`MDB_NOTFOUND`). `key` and `value` are the app's (not sealed).
        static func orderedCursorGet(
            _ cursor: OpaquePointer, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?,
            op: MDB_cursor_op, _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
            if op == MDB_NEXT || op == MDB_PREV, let stepped = SealedCursors.step(cursor, forward: op == MDB_NEXT) {
                guard let entry = stepped.entry else { return nil }
                if stepped.isStale { return try withCurrentValue(entry, cursor, op: op, sealing, policy) }
                return (entry.key, entry.value)
            }
            let order: SealedOrder
            var index: Int
            let current = SealedCursors.position(cursor)
            switch op {
            case MDB_NEXT, MDB_PREV, MDB_GET_CURRENT, MDB_NEXT_DUP, MDB_NEXT_NODUP, MDB_PREV_NODUP:
                guard let current else {  // not positioned: LMDB starts at an end
                    return try orderedCursorGet(
                        cursor, key: nil, value: nil, op: op == MDB_PREV || op == MDB_PREV_NODUP ? MDB_LAST : MDB_FIRST,
                        sealing, policy)
                }
                order = current.order
                index = current.index
                let entries = order.entries
                switch op {
                case MDB_NEXT: index += 1
                case MDB_PREV: index -= 1
                case MDB_NEXT_DUP:
                    index += 1
                    if index < entries.count, index > 0,
                        SealedOrder.compare(entries[index].key, entries[index - 1].key) != 0
                    {
                        return nil  // LMDB leaves the cursor where it was
                    }
                case MDB_NEXT_NODUP:
                    let start = index
                    while index < entries.count, SealedOrder.compare(entries[index].key, entries[start].key) == 0 {
                        index += 1
                    }
                case MDB_PREV_NODUP:
                    let start = index
                    while index >= 0, SealedOrder.compare(entries[index].key, entries[start].key) == 0 { index -= 1 }
                default: break
                }
            default:
                order = try sealing.order(of: cursor, policy)
                let entries = order.entries
                switch op {
                case MDB_FIRST: index = 0
                case MDB_LAST: index = entries.count - 1
                case MDB_SET_RANGE:
                    guard let key else { throw LMDBError(code: EINVAL) }
                    index = order.lowerBound(key)
                case MDB_SET, MDB_SET_KEY:
                    guard let key else { throw LMDBError(code: EINVAL) }
                    index = order.lowerBound(key)
                    guard index < entries.count, SealedOrder.compare(entries[index].key, key) == 0 else { return nil }
                case MDB_GET_BOTH, MDB_GET_BOTH_RANGE:
                    guard let key, let value else { throw LMDBError(code: EINVAL) }
                    index = order.lowerBound(key, value: value)
                    guard index < entries.count, SealedOrder.compare(entries[index].key, key) == 0 else { return nil }
                    if op == MDB_GET_BOTH, SealedOrder.compare(entries[index].value, value) != 0 { return nil }
                default:
                    throw LMDBError(code: EINVAL, detail: "cursor operation \(op.rawValue) on sealed keys")
                }
            }
            guard index >= 0, index < order.entries.count else {
                // Past an end: LMDB keeps the cursor on the last entry it stood on.
                if current == nil || op == MDB_FIRST || op == MDB_LAST || op == MDB_SET_RANGE {
                    SealedCursors.set(
                        cursor,
                        .init(
                            order: order, index: max(-1, min(index, order.entries.count)),
                            transaction: mdb_cursor_txn(cursor)))
                }
                return nil
            }
            SealedCursors.set(cursor, .init(order: order, index: index, transaction: mdb_cursor_txn(cursor)))
            let entry = order.entries[index]
            if order.isStale { return try withCurrentValue(entry, cursor, op: op, sealing, policy) }
            return (entry.key, entry.value)
        }

        /// The entry a walk of a stale order (`SealedOrder.isStale`) stands on, with the value its
        /// transaction holds now: written through another path since the order was made, it may differ.
        /// An entry deleted that way is stepped over when the walk steps. (Entries added that way are
        /// not in the order; Strata detaches its walks before any insert, `TableIteration`.)
        private static func withCurrentValue(
            _ entry: SealedOrder.Entry, _ cursor: OpaquePointer, op: MDB_cursor_op, _ sealing: FileSealing,
            _ policy: FileSealing.Policy
        ) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
            guard !policy.duplicates, let transaction = mdb_cursor_txn(cursor) else { return (entry.key, entry.value) }
            if let value = try sealedGet(transaction, mdb_cursor_dbi(cursor), key: entry.key, sealing, policy) {
                return (entry.key, value)
            }
            switch op {
            case MDB_NEXT, MDB_PREV, MDB_NEXT_NODUP, MDB_PREV_NODUP:
                return try orderedCursorGet(cursor, key: nil, value: nil, op: op, sealing, policy)
            default:
                return nil
            }
        }

        /// `orderedCursorGet` of `op` (with `start` for `MDB_SET_RANGE`), then up to `limit - 1` entries
        /// after it, without moving the cursor past the first (`orderedCursorStand`): a batch of a walk,
        /// with the cursor's position looked up once, not per row. The slice keeps the order's indices.
        static func orderedCursorRun(
            _ cursor: OpaquePointer, op: MDB_cursor_op, start: UnsafeRawBufferPointer?, limit: Int,
            _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> ArraySlice<SealedOrder.Entry> {
            guard try orderedCursorGet(cursor, key: start, value: nil, op: op, sealing, policy) != nil,
                let position = SealedCursors.position(cursor)
            else { return [] }
            return position.order.entries[position.index..<min(position.order.entries.count, position.index + limit)]
        }

        /// Puts `cursor`, which an `orderedCursorRun` moved, on the entry at `index` of its order.
        static func orderedCursorStand(_ cursor: OpaquePointer, at index: Int) {
            guard let position = SealedCursors.position(cursor), position.index != index else { return }
            SealedCursors.set(cursor, .init(order: position.order, index: index, transaction: position.transaction))
        }

        /// `MDB_CURRENT` on a table with sealed keys: the real cursor is put on the entry the walk
        /// stands on, then its value replaced (and the walk's copy with it).
        static func orderedReplaceCurrent(
            _ cursor: OpaquePointer, value: UnsafeRawBufferPointer, _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) {
            guard let position = SealedCursors.position(cursor), position.index >= 0,
                position.index < position.order.entries.count
            else { throw LMDBError(code: EINVAL, detail: "MDB_CURRENT on a cursor that stands on no entry") }
            let entry = position.order.entries[position.index]
            let transaction = mdb_cursor_txn(cursor)!
            let table = mdb_cursor_dbi(cursor)
            let log = sealing.tableChanged(transaction, table, policy, keepsOrder: true)
            if policy.inBlocks, let blocks = sealing.blockTable(table) {
                _ = try blocks.put(
                    transaction, key: entry.key, value: value, noOverwrite: false, keepsBlocks: log != nil)
            } else {
                try replaceStored(cursor, entry, value, sealing, policy)
            }
            let values = sealing.values(of: transaction)
            let kept = values.keep(value)
            if let log {
                sealing.images.logPut(log, transaction, table, key: entry.key, value: kept, storedKey: entry.storedKey)
            }
            var order = position.order
            if order.isShared {  // a kept image: this transaction's walk goes on in a copy
                order = order.privateCopy()
                sealing.keep(order, transaction, table)
                SealedCursors.set(cursor, .init(order: order, index: position.index, transaction: transaction))
            }
            order.replaceValue(at: position.index, with: kept)
        }

        private static func replaceStored(
            _ cursor: OpaquePointer, _ entry: SealedOrder.Entry, _ value: UnsafeRawBufferPointer,
            _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) {
            var k = MDB_val(
                mv_size: entry.storedKey.count, mv_data: UnsafeMutableRawPointer(mutating: entry.storedKey.baseAddress))
            var found = MDB_val()
            let code = mdb_cursor_get(cursor, &k, &found, MDB_SET)
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
            var storedValue = sealing.storedValue(value, key: entry.key, storedKey: entry.storedKey, policy)
            let put = storedValue.withUnsafeMutableBytes { raw in
                var v = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                return mdb_cursor_put(cursor, &k, &v, UInt32(MDB_CURRENT))
            }
            if put != MDB_SUCCESS { throw LMDBError(code: put) }
        }
    }

    extension FileSealing {
        /// The `SealedOrder` of the table of `cursor` in its transaction: kept in the transaction, the
        /// table's kept image when it is current (`SealedImages`), or made by walking the table with the
        /// cursor itself (and kept as the image when a snapshot made it).
        func order(of cursor: OpaquePointer, _ policy: Policy) throws(LMDBError) -> SealedOrder {
            let transaction = mdb_cursor_txn(cursor)!
            let table = mdb_cursor_dbi(cursor)
            if let kept = currentOrder(transaction, table) { return kept }
            let stamp = images.isWriting(transaction) ? nil : images.stamp(transaction, table)
            // A snapshot's order outlives it as the image; a write's is its own (it changes it).
            let values = stamp == nil ? values(of: transaction) : OpenedValues()
            var entries: [SealedOrder.Entry] = []
            if policy.inBlocks, let blocks = blockTable(table) {
                for (key, value) in try blocks.pairs(transaction) {
                    let (keptKey, keptValue) = key.withUnsafeBytes { k in
                        value.withUnsafeBytes { v in (values.keep(k), values.keep(v)) }
                    }
                    entries.append(.init(key: keptKey, value: keptValue, storedKey: keptKey))
                }
            }
            var k = MDB_val()
            var v = MDB_val()
            var code = !policy.inBlocks ? mdb_cursor_get(cursor, &k, &v, MDB_FIRST) : MDB_NOTFOUND
            while code == MDB_SUCCESS {
                let storedKey = UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)
                let key = try openKey(storedKey, policy, into: values)
                let value = try openValue(
                    UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), key: key, storedKey: storedKey, policy,
                    into: values)
                entries.append(.init(key: key, value: value, storedKey: values.keep(storedKey)))
                code = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            if code != MDB_NOTFOUND { throw LMDBError(code: code) }
            let order: SealedOrder
            if let stamp {
                order = SealedOrder(entries: entries, arenas: [values], isShared: true)
                images.keep(order, table, at: stamp)
            } else {
                order = SealedOrder(entries: entries)
            }
            keep(order, transaction, table)
            return order
        }
    }
#endif
