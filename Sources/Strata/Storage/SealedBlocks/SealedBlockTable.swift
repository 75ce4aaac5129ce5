#if Encryption
    import CLMDB
    import Foundation

    /// A table of an encrypted file whose pairs are kept in sealed blocks (Docs/Encryption.md, "The
    /// next layout"): many pairs per AEAD call, written in the order they come, so that a bulk insert
    /// appends to the file as a plain table's increasing keys do.
    ///
    /// Two LMDB tables hold it: `blocks`, block number (8 bytes, big-endian, increasing) → the block's
    /// encoding (`RowBlock`) sealed with the table's tag and the block number as associated data, then
    /// a CRC-32C of the number and sealed bytes (what the opening check reads); and `keys`, each sealed
    /// key → the number of its block and a CRC-32C of the two. A read by key finds the block and opens
    /// it; the key must be in it, so an entry moved to another block is damage.
    ///
    /// A write transaction's changes stay opened in memory (`BlockChanges`): new pairs go to an open block,
    /// sealed once it is full; changed blocks are sealed once, and the key entries put in their sorted
    /// order, by `prepare` before LMDB's commit. A nested transaction starts from a copy of its
    /// parent's changes, which it hands back when it commits (LMDB rolls back what it wrote when it
    /// aborts, and its copy goes with it).
    final class SealedBlockTable: @unchecked Sendable {  // its mutable state is under `lock`
        let blocks: MDB_dbi
        let keys: MDB_dbi
        let tag: UInt64
        let sealer: Sealer
        /// A block is sealed once its encoding passes this: four pages with the seal and LMDB's header
        /// of an overflow run.
        static let targetBytes = 4 * 4096 - 16 - Sealer.valueOverhead - FileSealing.checksumLength - 16

        private let lock = NSLock()
        private var changes: [OpaquePointer: BlockChanges.Box] = [:] {
            didSet { last = nil }  // a change of any transaction's entry: asked again
        }
        /// The last `state` answer (a bulk insert's puts ask for one transaction's, again and again).
        private var last: (txn: OpaquePointer, state: BlockChanges.Box)?

        /// `txn`'s changes, made on first use. Under `lock`.
        private func state(_ txn: OpaquePointer) -> BlockChanges.Box {
            if let last, last.txn == txn { return last.state }
            if let state = changes[txn] {
                last = (txn, state)
                return state
            }
            let state = BlockChanges.Box(
                BlockChanges(keys: PendingKeys { [sealer, tag] in sealer.sealShortKeys($0, table: tag) }))
            changes[txn] = state
            last = (txn, state)
            return state
        }
        private var parents: [OpaquePointer: OpaquePointer] = [:]

        init(blocks: MDB_dbi, keys: MDB_dbi, tag: UInt64, sealer: Sealer) {
            self.blocks = blocks
            self.keys = keys
            self.tag = tag
            self.sealer = sealer
        }

        // MARK: Reads

        /// The value of `key`, as `txn` sees it.
        ///
        /// - Throws: `MDB_CORRUPTED` when a block does not open or does not hold a key its entry names.
        func value(_ txn: OpaquePointer, key: UnsafeRawBufferPointer) throws(LMDBError) -> [UInt8]? {
            let sealedKey = sealedKey(key)
            let block: RowBlock?
            if let box = lock.withLock({ changes[txn] }) {
                block = try box.update { (state) throws(LMDBError) in
                    try blockNumber(txn, sealedKey: sealedKey, plain: key, &state).map {
                        (number) throws(LMDBError) in try self.block(txn, number, pending: state)
                    }
                }
            } else {
                block = try storedBlockNumber(txn, sealedKey).map { (number) throws(LMDBError) in
                    try self.block(txn, number, pending: nil)
                }
            }
            guard let block else { return nil }
            guard let value = block.value(of: key) else {
                throw LMDBError(code: MDB_CORRUPTED, detail: "a key entry names a block that does not hold its key")
            }
            return value
        }

        /// Every pair `txn` sees, block by block (a `SealedOrder` puts them in order).
        func pairs(_ txn: OpaquePointer) throws(LMDBError) -> [(key: [UInt8], value: [UInt8])] {
            let pending = lock.withLock { changes[txn] }?.value
            var numbers: [UInt64] = []
            var cursor: OpaquePointer?
            try check(mdb_cursor_open(txn, blocks, &cursor))
            defer { mdb_cursor_close(cursor) }
            var k = MDB_val()
            var v = MDB_val()
            var code = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while code == MDB_SUCCESS {
                numbers.append(Self.number(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)))
                code = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            guard code == MDB_NOTFOUND else { throw LMDBError(code: code) }
            let stored = Set(numbers)
            for number in pending?.allChanged.keys ?? [:].keys where !stored.contains(number) { numbers.append(number) }
            var pairs: [(key: [UInt8], value: [UInt8])] = []
            for number in numbers {
                let block = try self.block(txn, number, pending: pending)
                for index in 0..<block.count { pairs.append(block.withPair(at: index) { (Array($0), Array($1)) }) }
            }
            return pairs
        }

        /// The number of pairs `txn` sees.
        func count(_ txn: OpaquePointer) throws(LMDBError) -> Int {
            var stat = MDB_stat()
            try check(mdb_stat(txn, keys, &stat))
            return stat.ms_entries + (lock.withLock { changes[txn] }?.value.entryDelta ?? 0)
        }

        // MARK: Writes

        /// Empties the table (and deletes its LMDB tables with `delete`), forgetting `txn`'s changes.
        func drop(_ txn: OpaquePointer, delete: Bool) throws(LMDBError) {
            lock.withLock { changes[txn] = nil }
            try check(mdb_drop(txn, keys, delete ? 1 : 0))
        }

        /// Puts `value` under `key`; false (and nothing changed) when `noOverwrite` and the key is there.
        ///
        /// `keepsBlocks`: the transaction's commit makes the table's next image, from every block it
        /// changed (`prepare` returns them, the ones sealed early included); false for one put drops
        /// what was kept.
        func put(
            _ txn: OpaquePointer, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, noOverwrite: Bool,
            keepsBlocks: Bool = false
        ) throws(LMDBError) -> Bool {
            try lock.withLock { self.state(txn) }.update { (state) throws(LMDBError) in
                try put(txn, key: key, value: value, noOverwrite: noOverwrite, keepsBlocks: keepsBlocks, &state)
            }
        }

        // Not inlined: inlined into `update`'s access, each part of `state` it reaches would get a
        // checked access of its own; through `inout`, none does.
        @inline(never)
        private func put(
            _ txn: OpaquePointer, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, noOverwrite: Bool,
            keepsBlocks: Bool, _ state: inout BlockChanges
        ) throws(LMDBError) -> Bool {
            if state.keepsBlocks != keepsBlocks {
                state.keepsBlocks = keepsBlocks
                state.sealedBlocks = []
            }
            // A bulk insert into a table that was empty: new keys in increasing order are known
            // absent without a look-up, and sealed together at commit.
            if key.count <= Sealer.shortKeyLength, state.keys.isAboveGreatest(key), try keyTableWasEmpty(txn, &state) {
                let number = try roomInOpenBlock(txn, for: key.count + value.count, &state)
                state.open.put(key, value)
                state.keys.appendUnsealed(key, number: number)
                state.entryDelta += 1
                return true
            }
            let sealedKey = self.sealedKey(key)
            if let number = try blockNumber(txn, sealedKey: sealedKey, plain: key, &state) {
                if noOverwrite { return false }
                _ = try change(txn, number, &state) { $0.put(key, value) }
                return true
            }
            let number = try roomInOpenBlock(txn, for: key.count + value.count, &state)
            state.open.put(key, value)
            state.keys.set(sealedKey, plain: key, to: number)
            state.entryDelta += 1
            return true
        }

        /// Removes `key`; false when it is not there.
        func delete(_ txn: OpaquePointer, key: UnsafeRawBufferPointer) throws(LMDBError) -> Bool {
            let sealedKey = self.sealedKey(key)
            return try lock.withLock { self.state(txn) }.update { (state) throws(LMDBError) in
                guard let number = try blockNumber(txn, sealedKey: sealedKey, plain: key, &state) else { return false }
                guard try change(txn, number, &state, { $0.remove(key) }) else {
                    throw LMDBError(code: MDB_CORRUPTED, detail: "a key entry names a block that does not hold its key")
                }
                state.keys.set(sealedKey, plain: key, to: nil)
                state.entryDelta -= 1
                return true
            }
        }

        /// Seals what `txn` changed and writes its key entries in order: before LMDB's commit. Returns
        /// the blocks it changed, as they are now, when its puts asked to keep them (`keepsBlocks`).
        @discardableResult
        func prepare(_ txn: OpaquePointer) throws(LMDBError) -> [RowBlock] {
            try mergeSparseBlocks(txn)
            guard let pending = lock.withLock({ changes.removeValue(forKey: txn) })?.value else { return [] }
            // A block sealed early and changed again since is kept as it is now (the older version
            // would put back rows deleted after it was sealed).
            let changed = pending.allChanged
            var kept = pending.sealedBlocks.filter { changed[$0.number] == nil }.map(\.block)
            for (number, block) in changed.sorted(by: { $0.key < $1.key }) {
                try write(txn, number, block)
                if pending.keepsBlocks, !block.isEmpty { kept.append(block) }
            }
            try putKeyEntries(txn, pending.keys.sorted())
            return kept
        }

        /// Puts (or deletes) `entries` in the order of their stored keys, short and long merged.
        private func putKeyEntries(
            _ txn: OpaquePointer, _ entries: (short: [PendingKeys.Slot], long: [(key: [UInt8], number: UInt64?)])
        ) throws(LMDBError) {
            let (short, long) = entries
            guard !short.isEmpty || !long.isEmpty else { return }
            var cursor: OpaquePointer?
            try check(mdb_cursor_open(txn, keys, &cursor))
            defer { mdb_cursor_close(cursor) }
            func put(_ storedKey: UnsafeRawBufferPointer, _ number: UInt64?, _ flags: UInt32) throws(LMDBError) {
                var k = MDB_val(
                    mv_size: storedKey.count, mv_data: UnsafeMutableRawPointer(mutating: storedKey.baseAddress))
                let code: Int32
                if let number {
                    code = Self.withKeyEntry(number, storedKey: storedKey) { entry in
                        var v = MDB_val(
                            mv_size: entry.count, mv_data: UnsafeMutableRawPointer(mutating: entry.baseAddress))
                        return mdb_cursor_put(cursor, &k, &v, flags)
                    }
                } else {
                    code = mdb_del(txn, keys, &k, nil)
                    if code == MDB_NOTFOUND { return }  // added and removed in one transaction: never written
                }
                try check(code)
            }
            // Entries that all go after the table's last key (new rows of a bulk insert, most often)
            // are appended: LMDB then fills its pages in order without a search per entry.
            var flags: UInt32 = 0
            if !short.contains(where: { $0.state != 1 }), !long.contains(where: { $0.number == nil }) {
                var k = MDB_val()
                var v = MDB_val()
                let code = mdb_cursor_get(cursor, &k, &v, MDB_LAST)
                guard code == MDB_SUCCESS || code == MDB_NOTFOUND else { throw LMDBError(code: code) }
                let last = UnsafeRawBufferPointer(start: k.mv_data, count: code == MDB_SUCCESS ? k.mv_size : 0)
                let firstShort = short.first.map { SealedKey.block($0.high, $0.low) }
                let firstLong = long.first.map { SealedKey.long($0.key) }
                let first = [firstShort, firstLong].compactMap { $0 }.min()!
                if code == MDB_NOTFOUND || first.withBytes({ SealedOrder.compare(last, $0) < 0 }) {
                    flags = UInt32(MDB_APPEND)
                }
            }
            var next = 0  // of `long`
            for slot in short {
                let key = SealedKey.block(slot.high, slot.low)
                while next < long.count, SealedKey.long(long[next].key) < key {
                    try long[next].key.withBytes { (k) throws(LMDBError) in try put(k, long[next].number, flags) }
                    next += 1
                }
                try withUnsafeBytes(of: (slot.high.bigEndian, slot.low.bigEndian)) { (k) throws(LMDBError) in
                    try put(k, slot.state == 1 ? slot.number : nil, flags)
                }
            }
            for entry in long[next...] {
                try entry.key.withBytes { (k) throws(LMDBError) in try put(k, entry.number, flags) }
            }
        }

        /// Moves the rows of each block `txn` changed that deletes left under a quarter full into the
        /// open block (their key entries follow), so that deletes give space back; the emptied blocks
        /// are deleted when written.
        private func mergeSparseBlocks(_ txn: OpaquePointer) throws(LMDBError) {
            guard let box = lock.withLock({ changes[txn] }) else { return }
            try box.update { (state) throws(LMDBError) in
                let sparse = state.blocks.filter { number, block in
                    number != state.openBlock && !block.isEmpty && block.encodedCount < Self.targetBytes / 4
                }.keys.sorted()
                for number in sparse {
                    let block = state.blocks[number] ?? RowBlock()
                    for index in 0..<block.count {
                        try block.withPair(at: index) { (key, value) throws(LMDBError) in
                            try move(txn, key: key, value: value, from: number, &state)
                        }
                    }
                }
            }
        }

        private func move(
            _ txn: OpaquePointer, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, from: UInt64,
            _ state: inout BlockChanges
        ) throws(LMDBError) {
            if try openBlock(txn, &state) == from { return }  // it became the open block: it stays
            let number = try roomInOpenBlock(txn, for: key.count + value.count, &state)
            state.open.put(key, value)
            state.blocks[from]?.remove(key)
            state.keys.set(sealedKey(key), plain: key, to: number)
        }

        func nestedBegan(_ child: OpaquePointer, in parent: OpaquePointer) {
            lock.withLock {
                parents[child] = parent
                if let pending = changes[parent] { changes[child] = BlockChanges.Box(pending.value) }
            }
        }

        /// `txn` ended without `prepare` (an abort, or a nested transaction's commit).
        func ended(_ txn: OpaquePointer, committed: Bool) {
            lock.withLock {
                let pending = changes.removeValue(forKey: txn)
                guard let parent = parents.removeValue(forKey: txn), committed else { return }
                changes[parent] = pending
            }
        }

        // MARK: Stored bytes

        static func number(_ key: UnsafeRawBufferPointer) -> UInt64 {
            UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
        }

        /// `body` given the key entry of `storedKey`: its block's number (8 bytes, big-endian), then a
        /// CRC-32C of the stored key and number (4 bytes, little-endian).
        static func withKeyEntry<R>(
            _ number: UInt64, storedKey: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R
        ) -> R {
            var entry: (UInt64, UInt32) = (number.bigEndian, 0)
            entry.1 = withUnsafeBytes(of: entry.0) { Checksum.rowSeal(key: storedKey, row: $0) }.littleEndian
            return withUnsafeBytes(of: entry) { body(UnsafeRawBufferPointer(rebasing: $0[0..<12])) }
        }

        // MARK: Private

        private func check(_ code: Int32) throws(LMDBError) {
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
        }

        private func keyTableWasEmpty(_ txn: OpaquePointer, _ state: inout BlockChanges) throws(LMDBError) -> Bool {
            if let known = state.keyTableWasEmpty { return known }
            var stat = MDB_stat()
            try check(mdb_stat(txn, keys, &stat))
            state.keyTableWasEmpty = stat.ms_entries == 0
            return stat.ms_entries == 0
        }

        /// How a key table stores `key`.
        private func sealedKey(_ key: UnsafeRawBufferPointer) -> SealedKey {
            if let (high, low) = sealer.sealShortKey(key, table: tag) { return .block(high, low) }
            return SealedKey(sealer.sealKey(key, table: tag))
        }

        private func blockNumber(
            _ txn: OpaquePointer, sealedKey: SealedKey, plain: UnsafeRawBufferPointer, _ state: inout BlockChanges
        ) throws(LMDBError) -> UInt64? {
            if let pending = state.keys.entry(sealedKey, plain: plain) { return pending }
            return try storedBlockNumber(txn, sealedKey)
        }

        /// The block the key table names for `sealedKey`, as `txn` sees the table.
        private func storedBlockNumber(_ txn: OpaquePointer, _ sealedKey: SealedKey) throws(LMDBError) -> UInt64? {
            var v = MDB_val()
            let code = sealedKey.withBytes { raw in
                var k = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
                return mdb_get(txn, keys, &k, &v)
            }
            if code == MDB_NOTFOUND { return nil }
            try check(code)
            let entry = UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
            let intact = sealedKey.withBytes { Checksum.sealedRowLength(key: $0, stored: entry) == 8 }
            guard intact else { throw LMDBError(code: MDB_CORRUPTED, detail: "a damaged key entry") }
            return Self.number(entry)
        }

        private func block(_ txn: OpaquePointer, _ number: UInt64, pending: BlockChanges?) throws(LMDBError) -> RowBlock
        {
            if let block = pending?.changed(number) { return block }
            var key = number.bigEndian
            var v = MDB_val()
            let code = withUnsafeMutableBytes(of: &key) { raw in
                var k = MDB_val(mv_size: 8, mv_data: raw.baseAddress)
                return mdb_get(txn, blocks, &k, &v)
            }
            if code == MDB_NOTFOUND { return RowBlock() }  // a new block
            try check(code)
            let stored = UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
            let opened = withUnsafeBytes(of: number.bigEndian) { storedKey in
                (try? FileSealing.sealedPart(of: stored)).flatMap {
                    try? sealer.openValue($0, table: tag, storedKey: storedKey)
                }
            }
            guard let opened, let block = opened.withUnsafeBytes({ RowBlock(decoding: $0) }) else {
                throw LMDBError(code: MDB_CORRUPTED, detail: "block \(number) does not open")
            }
            return block
        }

        /// The number of `txn`'s open block (the last block, or a new one after it).
        private func openBlock(_ txn: OpaquePointer, _ state: inout BlockChanges) throws(LMDBError) -> UInt64 {
            if let open = state.openBlock { return open }
            var number = state.nextBlock ?? 0
            if state.nextBlock == nil {
                var cursor: OpaquePointer?
                try check(mdb_cursor_open(txn, blocks, &cursor))
                defer { mdb_cursor_close(cursor) }
                var k = MDB_val()
                var v = MDB_val()
                let code = mdb_cursor_get(cursor, &k, &v, MDB_LAST)
                guard code == MDB_SUCCESS || code == MDB_NOTFOUND else { throw LMDBError(code: code) }
                if code == MDB_SUCCESS {
                    number = Self.number(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)) + 1
                }
            }
            if let changed = state.blocks.removeValue(forKey: number) {
                state.open = changed
            } else {
                state.open = try block(txn, number, pending: nil)
                state.open.reserveCapacity(Self.targetBytes)  // filled to about this: one allocation, not a dozen
            }
            state.openBlock = number
            state.openSize = nil
            state.nextBlock = number + 1
            return number
        }

        /// The open block, made room in for a new pair of `bytes`, which the caller then puts in it: a
        /// full one is sealed now (it is only written again if a later change opens it) and the next
        /// one opened.
        private func roomInOpenBlock(
            _ txn: OpaquePointer, for bytes: Int, _ state: inout BlockChanges
        ) throws(LMDBError) -> UInt64 {
            var number = try openBlock(txn, &state)
            var size = state.openSize ?? state.open.encodedCount
            if size > RowBlock().encodedCount, size + RowBlock.pairHeader + bytes > Self.targetBytes {
                let open = state.open
                state.open = RowBlock()
                state.openBlock = nil
                try write(txn, number, open)
                if state.keepsBlocks { state.sealedBlocks.append((number, open)) }
                number = try openBlock(txn, &state)
                size = state.open.encodedCount
            }
            state.openSize = size + RowBlock.pairHeader + bytes
            return number
        }

        /// `body` run on block `number` as `txn` sees it, kept among its changes (changed in place).
        private func change<R>(
            _ txn: OpaquePointer, _ number: UInt64, _ state: inout BlockChanges, _ body: (inout RowBlock) -> R
        ) throws(LMDBError) -> R {
            if number == state.openBlock {
                state.openSize = nil  // a change of unknown size
                return body(&state.open)
            }
            if state.blocks[number] == nil { state.blocks[number] = try block(txn, number, pending: state) }
            return body(&state.blocks[number]!)
        }

        private func write(_ txn: OpaquePointer, _ number: UInt64, _ block: RowBlock) throws(LMDBError) {
            var key = number.bigEndian
            let code: Int32 = withUnsafeMutableBytes(of: &key) { rawKey in
                var k = MDB_val(mv_size: 8, mv_data: rawKey.baseAddress)
                if block.isEmpty { return mdb_del(txn, blocks, &k, nil) }
                let sealed = block.withEncoded { plain in
                    sealer.sealValue(plain, table: tag, storedKey: UnsafeRawBufferPointer(rawKey))
                }
                // Reserved in LMDB's page and written there: the sealed bytes copied once, checksummed
                // in place.
                var v = MDB_val(mv_size: sealed.count + FileSealing.checksumLength, mv_data: nil)
                let code = mdb_put(txn, blocks, &k, &v, UInt32(MDB_RESERVE))
                guard code == MDB_SUCCESS else { return code }
                let stored = UnsafeMutableRawBufferPointer(start: v.mv_data, count: v.mv_size)
                sealed.copyBytes(to: stored)
                let checksum = Checksum.rowSeal(
                    key: UnsafeRawBufferPointer(rawKey), row: UnsafeRawBufferPointer(rebasing: stored[..<sealed.count]))
                stored.storeBytes(of: checksum.littleEndian, toByteOffset: sealed.count, as: UInt32.self)
                return MDB_SUCCESS
            }
            if code == MDB_NOTFOUND, block.isEmpty { return }  // a block emptied before it was written
            try check(code)
        }
    }
#endif
