import CLMDB
import Foundation

#if Encryption

    /// What an encrypted file's environment seals (Docs/Encryption.md), reached from any transaction
    /// or cursor through LMDB's user context of the environment (`mdb_env_set_userctx`), so that every
    /// `LMDB` call seals and opens without its callers passing anything.
    ///
    /// Opened values are copies: they live in the transaction's `OpenedValues` until it ends, is reset
    /// or renewed, which keeps LMDB's promise that a value read stays valid for the transaction.
    final class FileSealing: @unchecked Sendable {  // its mutable state is under `lock`
        /// How one table's entries are stored.
        struct Policy {
            let tag: UInt64
            /// Keys sealed deterministically (the app's values: primary keys, index entries, backlinks),
            /// or kept in order (Strata's own names and counters).
            let sealsKeys: Bool
            /// A table with duplicates: its values are sealed like keys (LMDB sorts and finds them).
            let duplicates: Bool
            /// A type's table: its pairs are kept in sealed blocks beside a key table (`blockTable(_:)`;
            /// not held here, so that a policy stays a plain value every LMDB call copies for free).
            var inBlocks = false
        }

        let sealer: Sealer
        /// The tables' opened images kept between transactions.
        let images = SealedImages(budget: SealedImages.defaultBudget)
        private let lock = NSLock()
        /// By table handle (small integers: an array, asked once per LMDB call).
        private var policies: [Policy?] = []
        private var blockTables: [MDB_dbi: SealedBlockTable] = [:]

        /// The blocks of `dbi`, a table whose policy is `inBlocks`.
        func blockTable(_ dbi: MDB_dbi) -> SealedBlockTable? {
            lock.withLock { blockTables[dbi] }
        }
        private var tags: [String: UInt64] = [:]
        private var opened: [OpaquePointer: OpenedValues] = [:]
        /// The parents of nested write transactions: what a child opened lives on in its parent.
        private var parents: [OpaquePointer: OpaquePointer] = [:]
        /// Per transaction, the tables with sealed keys put in order so far (`SealedOrder`).
        private var orders: [OpaquePointer: [MDB_dbi: SealedOrder]] = [:]
        /// The last `tableChanged` answer (the writes of a bulk insert go to one table, one after
        /// another): forgotten when a transaction begins or ends (LMDB reuses a write's handle).
        private var lastChange:
            (transaction: OpaquePointer, table: MDB_dbi, log: SealedImages.TableLog?, blocks: SealedBlockTable?)?

        func forgetLastChange() {
            lock.withLock { lastChange = nil }
        }

        /// Per transaction, the tables whose kept image it looked for (found or not).
        private var imagesSought: [OpaquePointer: Set<MDB_dbi>] = [:]

        init(sealer: Sealer) {
            self.sealer = sealer
        }

        /// The keys of the meta table that stay clear: what opening the file needs before any key.
        static let clearMetaKeys: [[UInt8]] = [Array("format".utf8), Array("encryption".utf8)]

        /// Whether `key` is one of `clearMetaKeys` (asked of every meta and outbox value: no copy made).
        static func isClearMetaKey(_ key: UnsafeRawBufferPointer) -> Bool {
            clearMetaKeys.contains { $0.elementsEqual(key) }
        }

        /// Records how `dbi`, just opened under `name`, is stored. The policy follows from the name:
        /// rows, indexes and backlinks hold the app's values in their keys.
        func tableOpened(_ dbi: MDB_dbi, name: String, flags: UInt32, in transaction: OpaquePointer? = nil) {
            var policy = policy(named: name, duplicates: flags & UInt32(MDB_DUPSORT) != 0)
            if let transaction, Self.keepsBlocks(name), let keys = Self.keyTable(of: name, in: transaction) {
                policy.inBlocks = true
                lock.withLock {
                    if blockTables[dbi]?.keys != keys {
                        blockTables[dbi] = SealedBlockTable(blocks: dbi, keys: keys, tag: policy.tag, sealer: sealer)
                    }
                }
            }
            lock.withLock {
                if policies.count <= Int(dbi) {
                    policies += Array(repeating: nil, count: Int(dbi) + 1 - policies.count)
                }
                policies[Int(dbi)] = policy
            }
            if policy.sealsKeys { images.tableOpened(dbi, name: name) }
        }

        /// The tables kept in blocks: a type's rows.
        static func keepsBlocks(_ name: String) -> Bool { name.hasPrefix(StrataFormat.rowTablePrefix) }

        /// The name of the key table beside the blocks of `name` (opened with raw LMDB calls only).
        static func keyTableName(of name: String) -> String { "keys." + name }  // blockKeyTablePrefix

        /// The key table of `name`, made with it in a write transaction.
        private static func keyTable(of name: String, in transaction: OpaquePointer) -> MDB_dbi? {
            var dbi: MDB_dbi = 0
            let keys = keyTableName(of: name)
            if mdb_dbi_open(transaction, keys, 0, &dbi) == MDB_SUCCESS { return dbi }
            return mdb_dbi_open(transaction, keys, UInt32(MDB_CREATE), &dbi) == MDB_SUCCESS ? dbi : nil
        }

        /// Seals what `transaction`, an outermost write, changed in tables kept in blocks: before LMDB's
        /// commit.
        func blocksWillCommit(_ transaction: OpaquePointer) throws(LMDBError) {
            let (tables, nested) = lock.withLock { (Array(blockTables.values), parents[transaction] != nil) }
            guard !nested else { return }
            for table in tables {
                let blocks = try table.prepare(transaction)
                // The puts of a table in blocks were counted, not copied: the image's log takes
                // the blocks as they are now.
                guard !blocks.isEmpty, let log = images.currentLog(transaction, table.blocks) else { continue }
                images.logBlocks(log, blocks)
            }
        }

        /// The policy of the table `name` (its tag a keyed hash, made once per name: a page walk asks
        /// for every pair).
        func policy(named name: String, duplicates: Bool) -> Policy {
            let tag =
                lock.withLock { tags[name] }
                ?? {
                    let tag = sealer.tableTag(name)
                    lock.withLock { tags[name] = tag }
                    return tag
                }()
            return Policy(tag: tag, sealsKeys: Self.sealsKeys(ofTable: name), duplicates: duplicates)
        }

        func policy(_ dbi: MDB_dbi) -> Policy? {
            lock.withLock { Int(dbi) < policies.count ? policies[Int(dbi)] : nil }
        }

        /// The copies of `transaction`'s opened values.
        func values(of transaction: OpaquePointer) -> OpenedValues {
            lock.withLock {
                if let values = opened[transaction] { return values }
                let values = OpenedValues()
                opened[transaction] = values
                return values
            }
        }

        func nestedBegan(_ child: OpaquePointer, in parent: OpaquePointer) {
            forgetLastChange()
            for table in lock.withLock({ blockTables.values }) { table.nestedBegan(child, in: parent) }
            images.nestedBegan(in: parent)
            // A write too: what it walks includes changes that may yet roll back, so it keeps no image.
            images.writeBegan(child)
            lock.withLock {
                parents[child] = parent
                Self.markStale(orders.removeValue(forKey: parent))  // what the child writes changes the parent's tables
            }
        }

        /// The order of `table` that `transaction` walks: its own, or the table's kept image when it
        /// is the version the transaction sees (looked for once per transaction).
        func currentOrder(_ transaction: OpaquePointer, _ table: MDB_dbi) -> SealedOrder? {
            let (order, sought, nested) = lock.withLock {
                (
                    orders[transaction]?[table], imagesSought[transaction]?.contains(table) ?? false,
                    parents[transaction] != nil
                )
            }
            if let order { return order }
            // A nested transaction sees what its parent and earlier siblings changed, unstamped yet.
            guard !sought, !nested else { return nil }
            lock.withLock { _ = imagesSought[transaction, default: []].insert(table) }
            guard !images.changed(transaction, table), let image = images.current(transaction, table) else {
                return nil
            }
            keep(image, transaction, table)
            return image
        }

        /// Marks the orders a transaction's walks may still stand on as stale (`SealedOrder.isStale`).
        private static func markStale(_ dropped: [MDB_dbi: SealedOrder]?) {
            guard let dropped else { return }
            for order in dropped.values { order.markStale() }
        }

        func keep(_ order: SealedOrder, _ transaction: OpaquePointer, _ table: MDB_dbi) {
            lock.withLock { orders[transaction, default: [:]][table] = order }
        }

        /// `transaction` is about to write to `table`: its order is made again on the next walk (unless
        /// `keepsOrder`: a walk replacing the value it stands on). Returns the log of the table's next
        /// image the change goes to (`SealedImages.changing`); nil when none is made.
        func tableChanged(_ transaction: OpaquePointer, _ table: MDB_dbi, _ policy: Policy, keepsOrder: Bool = false)
            -> SealedImages.TableLog?
        {
            changed(transaction, table, policy, keepsOrder: keepsOrder).log
        }

        /// `tableChanged` for a table kept in blocks, with its blocks (one look-up for both: a bulk
        /// insert asks for them at every put).
        func tableChanged(_ transaction: OpaquePointer, inBlocks table: MDB_dbi, _ policy: Policy)
            -> (log: SealedImages.TableLog?, blocks: SealedBlockTable?)
        {
            changed(transaction, table, policy, keepsOrder: false)
        }

        private func changed(_ transaction: OpaquePointer, _ table: MDB_dbi, _ policy: Policy, keepsOrder: Bool)
            -> (log: SealedImages.TableLog?, blocks: SealedBlockTable?)
        {
            let known: (log: SealedImages.TableLog?, blocks: SealedBlockTable?)? = lock.withLock {
                guard let last = lastChange, last.transaction == transaction, last.table == table else { return nil }
                if !keepsOrder, !orders.isEmpty { orders[transaction]?.removeValue(forKey: table)?.markStale() }
                return (last.log, last.blocks)
            }
            if let known { return known }
            let (outermost, blocks) = lock.withLock {
                if !keepsOrder { orders[transaction]?.removeValue(forKey: table)?.markStale() }
                var outermost = transaction
                while let parent = parents[outermost] { outermost = parent }
                return (outermost, policy.inBlocks ? blockTables[table] : nil)
            }
            // A nested transaction's change is its outermost transaction's, which then makes no image.
            let changing = images.changing(outermost, table, policy)
            let log = outermost == transaction ? changing : nil
            lock.withLock { lastChange = (transaction, table, log, blocks) }
            return (log, blocks)
        }

        /// Frees what `transaction` opened: it ended, or reads another commit. A nested transaction's
        /// values move to its parent when it commits (what it read may still be in use there).
        func transactionEnded(_ transaction: OpaquePointer, committed: Bool = false) {
            forgetLastChange()
            for table in lock.withLock({ blockTables.values }) { table.ended(transaction, committed: committed) }
            SealedCursors.transactionEnded(transaction)
            images.ended(transaction)
            lock.withLock {
                orders[transaction] = nil
                imagesSought[transaction] = nil
                let values = opened.removeValue(forKey: transaction)
                guard let parent = parents.removeValue(forKey: transaction) else { return }
                Self.markStale(orders.removeValue(forKey: parent))
                if committed, let values {
                    if let kept = opened[parent] { kept.adopt(values) } else { opened[parent] = values }
                }
            }
        }

        // MARK: Sealing

        func storedKey(_ key: UnsafeRawBufferPointer, _ policy: Policy) -> [UInt8] {
            policy.sealsKeys ? Array(sealer.sealKey(key, table: policy.tag)) : Array(key)
        }

        func storedValue(
            _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, storedKey: UnsafeRawBufferPointer,
            _ policy: Policy
        ) -> [UInt8] {
            if policy.duplicates { return Array(sealer.sealKey(value, table: policy.tag)) }
            if !policy.sealsKeys, Self.isClearMetaKey(key) { return Array(value) }
            let sealed = sealer.sealValue(value, table: policy.tag, storedKey: storedKey)
            var stored = [UInt8]()
            stored.reserveCapacity(sealed.count + Self.checksumLength)
            stored.append(contentsOf: sealed)
            let checksum = stored.withUnsafeBytes { Checksum.rowSeal(key: storedKey, row: $0) }
            withUnsafeBytes(of: checksum.littleEndian) { stored.append(contentsOf: $0) }
            return stored
        }

        /// The sealed value inside a stored one (`storedValue`): without the CRC-32C of the stored key and
        /// sealed bytes that follows it, which the opening check reads (the AEAD checks every read).
        ///
        /// - Throws: `SealFailure` when it is too short to hold one.
        static func sealedPart(of stored: UnsafeRawBufferPointer) throws(SealFailure) -> UnsafeRawBufferPointer {
            guard stored.count >= checksumLength else {
                throw SealFailure("a stored value of \(stored.count) bytes is shorter than its checksum")
            }
            return UnsafeRawBufferPointer(rebasing: stored.dropLast(checksumLength))
        }

        /// The length of the checksum after a stored sealed value.
        static let checksumLength = 4

        func openKey(_ stored: UnsafeRawBufferPointer, _ policy: Policy, into values: OpenedValues) throws(LMDBError)
            -> UnsafeRawBufferPointer
        {
            guard policy.sealsKeys else { return stored }
            do {
                return values.keep(try sealer.openKey(stored, table: policy.tag))
            } catch {
                throw LMDBError(code: MDB_CORRUPTED, detail: error.description)
            }
        }

        func openValue(
            _ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, storedKey: UnsafeRawBufferPointer,
            _ policy: Policy, into values: OpenedValues
        ) throws(LMDBError) -> UnsafeRawBufferPointer {
            do {
                if policy.duplicates { return values.keep(try sealer.openKey(stored, table: policy.tag)) }
                if !policy.sealsKeys, Self.isClearMetaKey(key) { return stored }
                return values.keep(
                    try sealer.openValue(Self.sealedPart(of: stored), table: policy.tag, storedKey: storedKey))
            } catch {
                throw LMDBError(code: MDB_CORRUPTED, detail: error.description)
            }
        }
    }

    // MARK: The key record

    extension FileSealing {
        /// 5: short keys are enciphered with AES's inverse permutation (`Sealer.sealShortKeys`, many at
        /// once); 4: a type's rows are kept in sealed blocks (`SealedBlockTable`); 3: keys of at most 8 bytes
        /// are one enciphered block (`Sealer.sealKey`); 2: a stored value ends with its checksum
        /// (`sealedPart(of:)`). A record of an earlier version (made by no release) is refused.
        private static let recordVersion: UInt8 = 5
        private static let checkText = Array("strata: the key opens this file".utf8)

        /// A new file's record: its version, its random salt, and a value only the key opens.
        static func newRecord(key: [UInt8]) throws(EncryptionFailure) -> [UInt8] {
            guard key.count == keyLength else { throw .invalidKeyLength(key.count) }
            var salt = [UInt8](repeating: 0, count: Sealer.saltLength)
            var generator = SystemRandomNumberGenerator()
            for index in salt.indices { salt[index] = generator.next() }
            let sealer = try! Sealer(key: Data(key), salt: salt)  // 64 bytes: cannot fail
            return [recordVersion] + salt + check(sealer)
        }

        private static func check(_ sealer: Sealer) -> [UInt8] {
            checkText.withUnsafeBytes { text in
                Array(StrataFormat.encryptionKey.utf8).withUnsafeBytes { key in
                    Array(sealer.sealValue(text, table: sealer.tableTag(StrataFormat.metaTable), storedKey: key))
                }
            }
        }

        /// The sealing of a file being made (a copy) with `record` (`newRecord(key:)`'s), set as the
        /// user context of `env`, which has no table open yet.
        static func sealing(ofNew env: OpaquePointer, record: [UInt8], key: [UInt8]) -> FileSealing {
            let sealer = try! Sealer(key: Data(key), salt: Array(record[1..<(1 + Sealer.saltLength)]))  // made here
            let sealing = FileSealing(sealer: sealer)
            LMDB.setSealing(env, sealing)
            return sealing
        }

        fileprivate static func open(
            _ env: OpaquePointer, record: [UInt8], meta: MDB_dbi, key: [UInt8], path: String
        ) throws(StorageError) -> FileSealing {
            let sealing = try checked(record: record, key: key, path: path)
            LMDB.setSealing(env, sealing)
            sealing.tableOpened(meta, name: StrataFormat.metaTable, flags: 0)  // opened before the sealing
            return sealing
        }

        /// The sealing of the file whose key record is `record`, when `key` opens its check value.
        ///
        /// - Throws: `.encryption(path:, .wrongKey)`.
        static func checked(record: [UInt8], key: [UInt8], path: String) throws(StorageError) -> FileSealing {
            guard key.count == keyLength else { throw .encryption(path: path, .invalidKeyLength(key.count)) }
            let saltEnd = 1 + Sealer.saltLength
            guard record.count > saltEnd, record[0] == recordVersion else {
                throw .encryption(path: path, .wrongKey)
            }
            let sealer = try! Sealer(key: Data(key), salt: Array(record[1..<saltEnd]))  // length checked
            let opened = record[saltEnd...].withUnsafeBytes { sealed in
                Array(StrataFormat.encryptionKey.utf8).withUnsafeBytes { storedKey in
                    try? sealer.openValue(sealed, table: sealer.tableTag(StrataFormat.metaTable), storedKey: storedKey)
                }
            }
            guard opened.map(Array.init) == checkText else { throw .encryption(path: path, .wrongKey) }
            return FileSealing(sealer: sealer)
        }
    }
#else
    /// Without the Encryption trait no file is sealed: an encrypted one, or a key, is refused at open.
    final class FileSealing: Sendable {
        private init() {}
    }

    extension FileSealing {
        static func newRecord(key: [UInt8]) throws(EncryptionFailure) -> [UInt8] {
            throw .notBuiltWithEncryption
        }

        static func sealing(ofNew env: OpaquePointer, record: [UInt8], key: [UInt8]) -> FileSealing {
            preconditionFailure("no record is made without the Encryption trait")
        }

        static func checked(record: [UInt8], key: [UInt8], path: String) throws(StorageError) -> FileSealing {
            throw .encryption(path: path, .notBuiltWithEncryption)
        }

        fileprivate static func open(
            _ env: OpaquePointer, record: [UInt8], meta: MDB_dbi, key: [UInt8], path: String
        ) throws(StorageError) -> FileSealing {
            throw .encryption(path: path, .notBuiltWithEncryption)
        }
    }
#endif

/// Opening a file: its encryption record against the key given.
extension FileSealing {
    /// Whether the table `name` holds the app's values in its keys (rows, indexes, backlinks): an
    /// encrypted file seals them.
    static func sealsKeys(ofTable name: String) -> Bool {
        ["type.", "index.", "backlinks."].contains { name.hasPrefix($0) }
    }

    /// The record of `StrataFormat.encryptionKey` in the meta table, read before anything is sealed
    /// (its key and value are clear); nil for a plain file.
    fileprivate static func record(_ env: OpaquePointer) throws(StorageError) -> (record: [UInt8], meta: MDB_dbi)? {
        do throws(LMDBError) {
            let txn = try LMDB.beginTransaction(env, flags: UInt32(MDB_RDONLY))
            do throws(LMDBError) {
                let meta = try LMDB.openTable(txn, name: StrataFormat.metaTable, flags: 0)
                let value = try Array(StrataFormat.encryptionKey.utf8).withBytes { (key) throws(LMDBError) in
                    try LMDB.get(txn, meta, key: key).map(Array.init)
                }
                try LMDB.commit(txn)  // keeps the meta table's handle
                return value.map { ($0, meta) }
            } catch .notFound {
                LMDB.abort(txn)
                return nil
            } catch {
                LMDB.abort(txn)
                throw error
            }
        } catch {
            throw .lmdb(error)
        }
    }

    /// The sealing of the file `env` just opened, set as its user context; nil for a plain file.
    ///
    /// - Throws: `.encryption` when the file's record and `options.encryptionKey` disagree: a key
    ///   missing, wrong, of the wrong length, given for a plain file, or a build without encryption.
    static func opening(_ env: OpaquePointer, path: String, options: EnvironmentOptions) throws(StorageError)
        -> FileSealing?
    {
        if let key = options.encryptionKey, key.count != keyLength {
            throw .encryption(path: path, .invalidKeyLength(key.count))
        }
        let found = try record(env)
        if options.readsSealedBytes { return nil }
        switch (found, options.encryptionKey) {
        case (nil, nil): return nil
        case (nil, _?): throw .encryption(path: path, .fileNotEncrypted)
        case (_?, nil): throw .encryption(path: path, .keyMissing)
        case (let (record, meta)?, let key?):
            return try open(env, record: record, meta: meta, key: key, path: path)
        }
    }

    /// The length of the app's key, as Realm's.
    static let keyLength = 64
}
