#if Encryption
    import CLMDB
    import Foundation

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
        }

        let sealer: Sealer
        private let lock = NSLock()
        private var policies: [MDB_dbi: Policy] = [:]
        private var opened: [OpaquePointer: OpenedValues] = [:]
        /// The parents of nested write transactions: what a child opened lives on in its parent.
        private var parents: [OpaquePointer: OpaquePointer] = [:]

        init(sealer: Sealer) {
            self.sealer = sealer
        }

        /// The keys of the meta table that stay clear: what opening the file needs before any key.
        static let clearMetaKeys: Set<[UInt8]> = [Array("format".utf8), Array("encryption".utf8)]

        /// Records how `dbi`, just opened under `name`, is stored. The policy follows from the name:
        /// rows, indexes and backlinks hold the app's values in their keys.
        func tableOpened(_ dbi: MDB_dbi, name: String, flags: UInt32) {
            let sealsKeys = ["type.", "index.", "backlinks."].contains { name.hasPrefix($0) }
            let policy = Policy(
                tag: sealer.tableTag(name), sealsKeys: sealsKeys, duplicates: flags & UInt32(MDB_DUPSORT) != 0)
            lock.withLock { policies[dbi] = policy }
        }

        func policy(_ dbi: MDB_dbi) -> Policy? {
            lock.withLock { policies[dbi] }
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
            lock.withLock { parents[child] = parent }
        }

        /// Frees what `transaction` opened: it ended, or reads another commit. A nested transaction's
        /// values move to its parent when it commits (what it read may still be in use there).
        func transactionEnded(_ transaction: OpaquePointer, committed: Bool = false) {
            lock.withLock {
                let values = opened.removeValue(forKey: transaction)
                guard let parent = parents.removeValue(forKey: transaction) else { return }
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
            if !policy.sealsKeys, Self.clearMetaKeys.contains(Array(key)) { return Array(value) }
            return Array(sealer.sealValue(value, table: policy.tag, storedKey: storedKey))
        }

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
                if !policy.sealsKeys, Self.clearMetaKeys.contains(Array(key)) { return stored }
                return values.keep(try sealer.openValue(stored, table: policy.tag, storedKey: storedKey))
            } catch {
                throw LMDBError(code: MDB_CORRUPTED, detail: error.description)
            }
        }
    }

    /// The values one transaction opened, in chunks freed together when it ends.
    final class OpenedValues: @unchecked Sendable {  // a transaction is used by one thread at a time
        private var chunks: [UnsafeMutableRawBufferPointer] = []
        private var used = 0
        private let lock = NSLock()  // a split walk's helper reads through the same transaction

        func keep(_ data: Data) -> UnsafeRawBufferPointer {
            lock.withLock {
                let count = data.count
                if chunks.isEmpty || used + count > chunks[chunks.count - 1].count {
                    chunks.append(.allocate(byteCount: max(64 << 10, count), alignment: 16))
                    used = 0
                }
                let start = chunks[chunks.count - 1].baseAddress! + used
                data.copyBytes(to: start.assumingMemoryBound(to: UInt8.self), count: count)
                used += count
                return UnsafeRawBufferPointer(start: start, count: count)
            }
        }

        /// Takes `other`'s chunks, to free them with its own.
        func adopt(_ other: OpenedValues) {
            let taken = other.lock.withLock {
                defer { other.chunks = [] }
                return other.chunks
            }
            lock.withLock { chunks.insert(contentsOf: taken, at: 0) }
        }

        deinit {
            for chunk in chunks { chunk.deallocate() }
        }
    }
#else
    /// Without the Encryption trait no file is sealed, and there is nothing to seal with.
    final class FileSealing: Sendable {
        private init() {}
    }
#endif
