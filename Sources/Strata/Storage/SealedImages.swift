#if Encryption
    import CLMDB
    import Foundation

    /// The opened, ordered images of an encrypted file's tables of sealed keys, kept between
    /// transactions (Docs/Encryption.md, "Kept images"): what lets a walk, a count or a read by key
    /// skip opening every key and value again while the table is unchanged.
    ///
    /// An image is a `SealedOrder` made at one version of its table, named by the table's change
    /// stamp and the stamp every change to an unknown table counts (`ChangeStamps`, which an encrypted
    /// file keeps for every table of sealed keys). A transaction uses the image only when it reads the
    /// same stamps: a commit that changes the table, in any process, counts its stamp up in that same
    /// commit, so an image never stands for another version of its rows. Images never change in
    /// place; a transaction that changes a table walks its own order.
    ///
    /// A write transaction of this process logs what it changes in a table whose image is current (or
    /// that was empty), and its commit makes the table's next image from the old one and the log — a
    /// merge, no opening — unless the table is much larger than the change (then the next walk makes
    /// it). Memory is bounded by `budget`: an image that does not fit is not kept, and a write whose
    /// log of a table outgrows it stops logging (its commit makes no image of that table).
    final class SealedImages: @unchecked Sendable {  // mutable state under `lock`
        /// A table's version: its own stamp and the stamp of changes to tables not yet known.
        struct Stamp: Equatable {
            let table: UInt64
            let any: UInt64
        }

        /// A change a write made to one table, its bytes in the log's arena.
        fileprivate struct Change {
            let key: UnsafeRawBufferPointer
            /// nil: deleted.
            let value: UnsafeRawBufferPointer?
            let storedKey: UnsafeRawBufferPointer?
            let sequence: Int
        }

        /// What one write transaction changed in one table whose next image it makes. Used by the
        /// transaction's thread only.
        final class TableLog {
            /// The image the changes apply to; nil when the table was empty.
            fileprivate var base: SealedOrder?
            /// While every change logged is a put of a key above the ones before (a bulk insert's), the
            /// image entries they make, in order: no change record, sort or merge per change then.
            fileprivate var ascending: [SealedOrder.Entry] = []
            /// The changes logged once one was not such a put (`ascending` moved here first).
            private(set) fileprivate var changes: [Change] = []
            fileprivate var isAscending = true
            fileprivate let arena = OpenedValues()
            /// The bytes of the changes logged, and the most they may take (the images' budget).
            private var bytes = 0
            private let limit: Int

            fileprivate init(base: SealedOrder?, limit: Int) {
                self.base = base
                self.limit = limit
            }

            /// Whether it outgrew its limit (and its table makes no image at this commit).
            fileprivate var outgrown = false

            fileprivate var count: Int { isAscending ? ascending.count : changes.count }

            fileprivate func put(
                key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, storedKey: UnsafeRawBufferPointer
            ) {
                if isAscending, ascending.last.map({ SealedOrder.compare($0.key, key) < 0 }) ?? true {
                    ascending.append(SealedOrder.Entry(key: key, value: value, storedKey: storedKey))
                    return
                }
                keepChanges()
                changes.append(Change(key: key, value: value, storedKey: storedKey, sequence: changes.count))
            }

            fileprivate func delete(key: UnsafeRawBufferPointer) {
                keepChanges()
                changes.append(Change(key: key, value: nil, storedKey: nil, sequence: changes.count))
            }

            /// Puts the pairs of a block's buffer `pairs` at `offsets`, in that order.
            fileprivate func put(pairs: UnsafeRawBufferPointer, at offsets: [Int32]) {
                var index = 0
                if isAscending {  // appended to a local array: no exclusivity check per entry
                    var entries = ascending
                    ascending = []
                    var last = entries.last?.key
                    while index < offsets.count {
                        let (key, value) = RowBlock.pair(in: pairs, at: offsets[index])
                        if let last, SealedOrder.compare(last, key) >= 0 { break }
                        entries.append(SealedOrder.Entry(key: key, value: value, storedKey: key))
                        last = key
                        index += 1
                    }
                    ascending = entries
                }
                for offset in offsets[index...] {
                    let (key, value) = RowBlock.pair(in: pairs, at: offset)
                    put(key: key, value: value, storedKey: key)
                }
            }

            /// Logs change records from now on (the ascending puts first).
            fileprivate func keepChanges() {
                guard isAscending else { return }
                isAscending = false
                changes = ascending.enumerated().map {
                    Change(key: $1.key, value: $1.value, storedKey: $1.storedKey, sequence: $0)
                }
                ascending = []
            }

            /// The table was emptied: what was logged no longer counts.
            fileprivate func emptied() {
                base = nil
                ascending = []
                changes = []
                isAscending = true
            }

            /// Counts a change of `count` bytes; false once the log outgrew its limit.
            fileprivate func add(_ count: Int) -> Bool {
                bytes += count + MemoryLayout<Change>.stride
                if bytes > limit { outgrown = true }
                return !outgrown
            }
        }

        /// A table's next image, made before a commit and kept if it succeeds.
        struct Prepared {
            /// Per table the commit changes, its next image (none: the table's image is dropped).
            fileprivate let images: [(table: MDB_dbi, image: (stamp: Stamp, order: SealedOrder)?)]
        }

        /// The most bytes the kept images take (their entries and copies), and one write's log of a table.
        var budget: Int {
            get { lock.withLock { budgetBytes } }
            set { lock.withLock { budgetBytes = newValue } }
        }
        private var budgetBytes: Int
        private let lock = NSLock()
        private var names: [MDB_dbi: String] = [:]
        private var kept: [MDB_dbi: (stamp: Stamp, order: SealedOrder, bytes: Int)] = [:]
        private var keptBytes = 0
        /// Per write transaction (not nested), per changed table: its log, or nil when the commit
        /// makes no image of it.
        private var logs: [OpaquePointer: [MDB_dbi: TableLog?]] = [:]
        /// Write transactions with a nested one: what a child wrote may be rolled back unseen here.
        private var unlogged: Set<OpaquePointer> = []
        private var dropped = 0
        /// Per table without an image, the reads by key at one version (`notePointRead`).
        private var pointReads: [MDB_dbi: (stamp: Stamp, count: Int, entries: Int?)] = [:]

        init(budget: Int) {
            self.budgetBytes = budget
        }

        /// A quarter of the machine's memory, at most 4 GiB.
        static var defaultBudget: Int {
            Int(min(ProcessInfo.processInfo.physicalMemory / 4, 4 << 30))
        }

        func tableOpened(_ table: MDB_dbi, name: String) {
            lock.withLock { names[table] = name }
        }

        // MARK: Reading

        /// The version of `table` that `transaction` sees; nil when the table has no stamp yet (no
        /// commit changed it since the file knew it) or is not a table of sealed keys.
        func stamp(_ transaction: OpaquePointer, _ table: MDB_dbi) -> Stamp? {
            guard let name = lock.withLock({ names[table] }) else { return nil }
            guard let own = Self.storedStamp(transaction, ChangeStamps.key(ofTable: name)) else { return nil }
            return Stamp(table: own, any: Self.storedStamp(transaction, ChangeStamps.anyKey) ?? 0)
        }

        private static func storedStamp(_ transaction: OpaquePointer, _ key: [UInt8]) -> UInt64? {
            var key = key
            var value = MDB_val()
            let code = key.withUnsafeMutableBytes { raw in
                var k = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                return mdb_get(transaction, Table.main.dbi, &k, &value)  // the unnamed table: never sealed
            }
            guard code == MDB_SUCCESS, value.mv_size == 8 else { return nil }
            return UInt64(littleEndian: UnsafeRawPointer(value.mv_data).loadUnaligned(as: UInt64.self))
        }

        /// The image of `table` when it is the version `transaction` sees.
        func current(_ transaction: OpaquePointer, _ table: MDB_dbi) -> SealedOrder? {
            guard lock.withLock({ kept[table] != nil }), let stamp = stamp(transaction, table) else { return nil }
            return lock.withLock { kept[table].flatMap { $0.stamp == stamp ? $0.order : nil } }
        }

        /// Notes a read by key of `table` that found no image, in a snapshot; true once this version of
        /// the table has had reads enough that making its image (opening every entry once) costs less
        /// than they do: a quarter of its entries (each read seals a key and opens a value), and 256.
        func notePointRead(_ transaction: OpaquePointer, _ table: MDB_dbi) -> Bool {
            guard !isWriting(transaction), let stamp = stamp(transaction, table) else { return false }
            let (count, known) = lock.withLock {
                () -> (Int, Int?) in
                var reads =
                    pointReads[table].flatMap { $0.stamp == stamp ? $0 : nil } ?? (stamp: stamp, count: 0, entries: nil)
                reads.count += 1
                pointReads[table] = reads
                return (reads.count, reads.entries)
            }
            let entries = known ?? Self.entries(transaction, table)
            if known == nil { lock.withLock { pointReads[table]?.entries = entries } }
            guard count >= max(256, entries / 4) else { return false }
            lock.withLock { _ = pointReads.removeValue(forKey: table) }
            return true
        }

        /// The table's entries as its readers see them: a table kept in blocks counts its rows (its key
        /// entries), not its blocks.
        private static func entries(_ transaction: OpaquePointer, _ table: MDB_dbi) -> Int {
            (try? LMDB.stat(transaction, table))?.ms_entries ?? 0
        }

        /// Keeps `order`, made by a snapshot that read `stamp`, as the image of `table`.
        func keep(_ order: SealedOrder, _ table: MDB_dbi, at stamp: Stamp) {
            let bytes = Self.bytes(of: order)
            lock.withLock { replace(table, with: (stamp, order, bytes)) }
        }

        private static func bytes(of order: SealedOrder) -> Int {
            // An entry, and its key's prefix (a kept order's search array), per row.
            order.entries.count * (MemoryLayout<SealedOrder.Entry>.stride + MemoryLayout<UInt64>.stride)
                + order.arenaBytes
        }

        /// Under `lock`: `image` (or none) as `table`'s, within the budget (the others go first).
        private func replace(_ table: MDB_dbi, with image: (stamp: Stamp, order: SealedOrder, bytes: Int)?) {
            if let old = kept.removeValue(forKey: table) { keptBytes -= old.bytes }
            guard let image, image.bytes <= budgetBytes else { return }
            if keptBytes + image.bytes > budgetBytes {
                kept.removeAll()
                keptBytes = 0
            }
            kept[table] = image
            keptBytes += image.bytes
        }

        // MARK: Writing

        func writeBegan(_ transaction: OpaquePointer) {
            lock.withLock { logs[transaction] = [:] }
        }

        func isWriting(_ transaction: OpaquePointer) -> Bool {
            lock.withLock { logs[transaction] != nil }
        }

        /// Whether `transaction` changed `table` (a transaction that did walks its own order of it).
        func changed(_ transaction: OpaquePointer, _ table: MDB_dbi) -> Bool {
            lock.withLock { logs[transaction]?[table] != nil }
        }

        /// `parent` began a nested transaction: its commit makes no image.
        func nestedBegan(in parent: OpaquePointer) {
            lock.withLock {
                unlogged.insert(parent)
                if let tables = logs[parent] { logs[parent] = tables.mapValues { _ in nil } }
            }
        }

        /// `transaction` is about to change `table`: the log its changes go to (nil: its commit makes
        /// no image of the table). The first time, the log starts from the table's current image (or
        /// from nothing, for an empty table) if there is one.
        func changing(_ transaction: OpaquePointer, _ table: MDB_dbi, _ policy: FileSealing.Policy) -> TableLog? {
            let (known, isWrite, withoutImages): (TableLog??, Bool, Bool) = lock.withLock {
                guard let tables = logs[transaction] else { return (nil, false, false) }
                return (tables[table], true, unlogged.contains(transaction))
            }
            guard isWrite else { return nil }
            if let known { return known }
            var log: TableLog?
            if policy.sealsKeys, !policy.duplicates, !withoutImages {
                let limit = budget
                if let base = current(transaction, table) {
                    log = TableLog(base: base, limit: limit)
                } else if Self.isEmpty(transaction, table) {
                    log = TableLog(base: nil, limit: limit)
                }
            }
            lock.withLock { logs[transaction]?[table] = .some(log) }
            return log
        }

        private static func isEmpty(_ transaction: OpaquePointer, _ table: MDB_dbi) -> Bool {
            var stat = MDB_stat()
            return mdb_stat(transaction, table, &stat) == MDB_SUCCESS && stat.ms_entries == 0
        }

        /// A put of `key` and `value` (stored under `storedKey`) into `log`'s table.
        func logPut(
            _ log: TableLog, _ transaction: OpaquePointer, _ table: MDB_dbi, key: UnsafeRawBufferPointer,
            value: UnsafeRawBufferPointer, storedKey: UnsafeRawBufferPointer
        ) {
            if log.outgrown { return }  // dropped already (a caller may hold the log still)
            // A table kept in blocks stores no sealed key: its entries' stored key is the key itself.
            let aliased = storedKey.baseAddress == key.baseAddress && storedKey.count == key.count
            guard log.add(key.count + value.count + (aliased ? 0 : storedKey.count)) else {
                return drop(transaction, table)
            }
            let kept: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer)
            if aliased {
                let (keptKey, keptValue) = log.arena.keep(key, value)
                kept = (keptKey, keptValue, keptKey)
            } else {
                kept = log.arena.keep(key, value, storedKey)
            }
            log.put(key: kept.0, value: kept.1, storedKey: kept.2)
        }

        func logPut(
            _ log: TableLog, _ transaction: OpaquePointer, _ table: MDB_dbi, key: UnsafeRawBufferPointer,
            value: UnsafeRawBufferPointer, storedKey: MDB_val
        ) {
            logPut(
                log, transaction, table, key: key, value: value,
                storedKey: UnsafeRawBufferPointer(start: storedKey.mv_data, count: storedKey.mv_size))
        }

        /// Counts a put of `bytes` into `log` without copying it: a table kept in blocks logs its
        /// changed blocks at commit (`logBlock`). False once the log outgrew its limit (dropped).
        func countPut(_ log: TableLog, _ transaction: OpaquePointer, _ table: MDB_dbi, bytes: Int) -> Bool {
            if log.outgrown { return false }
            guard log.add(bytes) else {
                drop(transaction, table)
                return false
            }
            return true
        }

        /// Logs the pairs of blocks of `log`'s table as they are at commit, as puts after every
        /// change logged so far: the log keeps each block's buffer and points into it (no copy).
        func logBlocks(_ log: TableLog, _ blocks: [RowBlock]) {
            if log.outgrown { return }
            if log.isAscending {
                log.ascending.reserveCapacity(log.ascending.count + blocks.reduce(0) { $0 + $1.count })
            }
            for block in blocks {
                block.withPairs { buffer, pairs, offsets in
                    guard let buffer else { return }
                    log.arena.hold(buffer, bytes: buffer.capacity)
                    log.put(pairs: pairs, at: offsets)
                }
            }
        }

        /// The log `transaction`'s commit makes `table`'s next image from; nil when it makes none.
        func currentLog(_ transaction: OpaquePointer, _ table: MDB_dbi) -> TableLog? {
            guard let log = lock.withLock({ logs[transaction]?[table] ?? nil }), !log.outgrown else { return nil }
            return log
        }

        func logDelete(_ log: TableLog, _ transaction: OpaquePointer, _ table: MDB_dbi, key: UnsafeRawBufferPointer) {
            if log.outgrown { return }
            guard log.add(key.count) else { return drop(transaction, table) }
            log.delete(key: log.arena.keep(key))
        }

        /// `log`'s table was emptied (`delete` false) or deleted from the file.
        func logDrop(_ log: TableLog, _ transaction: OpaquePointer, _ table: MDB_dbi, delete: Bool) {
            if delete {
                log.outgrown = true
                drop(transaction, table)
            } else {
                log.emptied()
            }
        }

        /// `transaction`'s commit makes no image of `table` (what was logged is freed).
        private func drop(_ transaction: OpaquePointer, _ table: MDB_dbi) {
            lock.withLock {
                logs[transaction]?[table] = .some(nil)
                dropped += 1
            }
        }

        /// How many tables have a kept image, and how many logs writes dropped (tests).
        var counts: (kept: Int, dropped: Int) { lock.withLock { (kept.count, dropped) } }

        /// The images `transaction`'s commit makes, read before it commits (the stamps it wrote).
        func prepare(_ transaction: OpaquePointer) -> Prepared {
            let tables = lock.withLock { logs[transaction] } ?? [:]
            return Prepared(
                images: tables.map { table, log in
                    guard let log, let stamp = stamp(transaction, table), Self.worthMerging(log) else {
                        return (table, nil)
                    }
                    return (table, (stamp, Self.merged(log)))
                })
        }

        /// Whether merging costs little beside the change: a merge copies every entry of the image.
        private static func worthMerging(_ log: TableLog) -> Bool {
            (log.base?.entries.count ?? 0) <= 64 * log.count + 16_384
        }

        /// The commit of `prepared`'s transaction succeeded: its images are kept, and the other
        /// tables it changed lose theirs.
        func committed(_ prepared: Prepared) {
            let sized = prepared.images.map { table, image in
                (table, image.map { ($0.stamp, $0.order, Self.bytes(of: $0.order)) })
            }
            lock.withLock {
                for (table, image) in sized { replace(table, with: image) }
            }
        }

        func ended(_ transaction: OpaquePointer) {
            lock.withLock {
                logs[transaction] = nil
                unlogged.remove(transaction)
            }
        }

        /// The image of the log's table after its changes: the base's entries and the changes merged
        /// in order, the last change of a key winning. The image shares the base's copies; when they
        /// hold mostly replaced bytes, the live ones are copied out instead.
        private static func merged(_ log: TableLog) -> SealedOrder {
            var entries: [SealedOrder.Entry]
            if log.isAscending, log.base?.entries.isEmpty ?? true {  // a bulk insert into an empty table
                entries = log.ascending
            } else {
                log.keepChanges()
                entries = mergedEntries(log)
            }
            var arenas = (log.base?.arenas ?? []) + [log.arena]
            let live = entries.reduce(0) { $0 + $1.key.count + $1.value.count + $1.storedKey.count }
            if arenas.reduce(0, { $0 + $1.bytes }) > 2 * live + (1 << 20) {
                let arena = OpenedValues()
                entries = entries.map {
                    .init(key: arena.keep($0.key), value: arena.keep($0.value), storedKey: arena.keep($0.storedKey))
                }
                arenas = [arena]
            }
            return SealedOrder(sorted: entries, arenas: arenas, isShared: true)
        }

        /// The base's entries and the log's change records merged in order, the last change of a key
        /// winning.
        private static func mergedEntries(_ log: TableLog) -> [SealedOrder.Entry] {
            // A bulk insert logs its keys in order (a table in blocks, block by block): no sort then.
            let inOrder = log.changes.indices.dropFirst().allSatisfy {
                SealedOrder.compare(log.changes[$0 - 1].key, log.changes[$0].key) < 0
            }
            let changes =
                inOrder
                ? log.changes
                : log.changes.sorted {
                    let order = SealedOrder.compare($0.key, $1.key)
                    return order != 0 ? order < 0 : $0.sequence < $1.sequence
                }
            let base = log.base?.entries ?? []
            var entries: [SealedOrder.Entry] = []
            entries.reserveCapacity(base.count + changes.count)
            var b = 0
            var c = 0
            while c < changes.count {
                var last = c  // the last change of this key
                while last + 1 < changes.count, SealedOrder.compare(changes[last + 1].key, changes[c].key) == 0 {
                    last += 1
                }
                while b < base.count, SealedOrder.compare(base[b].key, changes[c].key) < 0 {
                    entries.append(base[b])
                    b += 1
                }
                if b < base.count, SealedOrder.compare(base[b].key, changes[c].key) == 0 { b += 1 }
                let change = changes[last]
                if let value = change.value, let storedKey = change.storedKey {
                    entries.append(.init(key: change.key, value: value, storedKey: storedKey))
                }
                c = last + 1
            }
            entries.append(contentsOf: base[b...])
            return entries
        }
    }
#endif
