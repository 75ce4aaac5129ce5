#if Encryption
    import CLMDB

    /// The `LMDB` calls of an encrypted file's environment (`FileSealing`): each seals what it stores
    /// and opens what it reads, so that the layers above see the keys and values they wrote.
    extension LMDB {
        static func setSealing(_ env: OpaquePointer, _ sealing: FileSealing) {
            // The environment keeps `sealing` alive for as long as LMDB's handle.
            mdb_env_set_userctx(env, Unmanaged.passUnretained(sealing).toOpaque())
        }

        /// The sealing of the environment of `txn`, and the policy of its table `dbi`; nil for a plain file
        /// and for the unnamed table (LMDB's own records, and Strata's counters).
        @inline(__always)
        static func sealing(_ txn: OpaquePointer, _ dbi: MDB_dbi) -> (FileSealing, FileSealing.Policy)? {
            guard let context = mdb_env_get_userctx(mdb_txn_env(txn)) else { return nil }
            let sealing = Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue()
            return sealing.policy(dbi).map { (sealing, $0) }
        }

        @inline(__always)
        static func sealing(cursor: OpaquePointer) -> (FileSealing, FileSealing.Policy)? {
            sealing(mdb_cursor_txn(cursor), mdb_cursor_dbi(cursor))
        }

        /// Ends `txn`'s copies of opened values (see `FileSealing.transactionEnded`).
        static func sealedTransactionEnded(_ txn: OpaquePointer, committed: Bool = false) {
            guard let context = mdb_env_get_userctx(mdb_txn_env(txn)) else { return }
            Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue().transactionEnded(txn, committed: committed)
        }

        static func sealedWriteBegan(_ txn: OpaquePointer) {
            guard let context = mdb_env_get_userctx(mdb_txn_env(txn)) else { return }
            let sealing = Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue()
            sealing.forgetLastChange()
            sealing.images.writeBegan(txn)
        }

        /// Seals the blocks `txn` changed (`SealedBlockTable.prepare`), before LMDB's commit.
        static func sealedBlocksWillCommit(_ txn: OpaquePointer) throws(LMDBError) {
            guard let context = mdb_env_get_userctx(mdb_txn_env(txn)) else { return }
            try Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue().blocksWillCommit(txn)
        }

        /// The images `txn`'s commit makes (`SealedImages`), made before it commits; nil for a plain file.
        static func sealedWillCommit(_ txn: OpaquePointer) -> (SealedImages, SealedImages.Prepared)? {
            guard let context = mdb_env_get_userctx(mdb_txn_env(txn)) else { return nil }
            let images = Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue().images
            return (images, images.prepare(txn))
        }

        static func sealedNestedBegan(_ child: OpaquePointer, in parent: OpaquePointer) {
            guard let context = mdb_env_get_userctx(mdb_txn_env(child)) else { return }
            Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue().nestedBegan(child, in: parent)
        }

        static func sealedTableOpened(_ txn: OpaquePointer, _ dbi: MDB_dbi, name: String, flags: UInt32) {
            guard let context = mdb_env_get_userctx(mdb_txn_env(txn)) else { return }
            var stored: UInt32 = 0
            let flags = mdb_dbi_flags(txn, dbi, &stored) == MDB_SUCCESS ? stored : flags
            Unmanaged<FileSealing>.fromOpaque(context).takeUnretainedValue().tableOpened(
                dbi, name: name, flags: flags, in: txn)
        }

        static func sealedGet(
            _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer, _ sealing: FileSealing,
            _ policy: FileSealing.Policy
        ) throws(LMDBError) -> UnsafeRawBufferPointer? {
            if policy.sealsKeys, !policy.duplicates {
                var order = sealing.currentOrder(txn, dbi)
                if order == nil, sealing.images.notePointRead(txn, dbi) {
                    order = try madeImage(txn, dbi, sealing, policy)
                }
                if let order {
                    return order.position(of: key).map { order.entries[$0].value }  // opened already
                }
            }
            if policy.inBlocks, let blocks = sealing.blockTable(dbi) {
                return try blocks.value(txn, key: key).map { sealing.values(of: txn).keep($0.withUnsafeBytes { $0 }) }
            }
            var storedKey = sealing.storedKey(key, policy)
            var v = MDB_val()
            let code = storedKey.withUnsafeMutableBytes { raw in
                var k = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                return mdb_get(txn, dbi, &k, &v)
            }
            if code == MDB_NOTFOUND { return nil }
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
            return try storedKey.withBytes { (raw) throws(LMDBError) in
                try sealing.openValue(
                    UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), key: key, storedKey: raw, policy,
                    into: sealing.values(of: txn))
            }
        }

        /// The image of `dbi` made now, by a walk of a cursor of its own (`SealedImages.notePointRead`).
        private static func madeImage(
            _ txn: OpaquePointer, _ dbi: MDB_dbi, _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> SealedOrder {
            let cursor = try openCursor(txn, dbi)
            defer { closeCursor(cursor) }
            return try sealing.order(of: cursor, policy)
        }

        static func sealedPut(
            _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
            flags: UInt32, _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> Bool {
            if policy.inBlocks, case (let log, let blocks?) = sealing.tableChanged(txn, inBlocks: dbi, policy) {
                // Counted now, logged at commit from the blocks (`FileSealing.blocksWillCommit`).
                let logged = log.map { sealing.images.countPut($0, txn, dbi, bytes: key.count + value.count) } ?? false
                return try blocks.put(
                    txn, key: key, value: value, noOverwrite: flags & UInt32(MDB_NOOVERWRITE) != 0, keepsBlocks: logged)
            }
            let log = sealing.tableChanged(txn, dbi, policy)
            let code = withSealedPair(key, value, flags: flags & ~UInt32(MDB_RESERVE), sealing, policy) { k, v, flags in
                let code = mdb_put(txn, dbi, &k, &v, flags)
                if code == MDB_SUCCESS, let log {
                    sealing.images.logPut(log, txn, dbi, key: key, value: value, storedKey: k)
                }
                return code
            }
            if code == MDB_KEYEXIST { return false }
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
            return true
        }

        static func sealedDelete(
            _ txn: OpaquePointer, _ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?,
            _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> Bool {
            let log = sealing.tableChanged(txn, dbi, policy)
            if policy.inBlocks, let blocks = sealing.blockTable(dbi) {
                let deleted = try blocks.delete(txn, key: key)
                if deleted, let log { sealing.images.logDelete(log, txn, dbi, key: key) }
                return deleted
            }
            var storedKey = sealing.storedKey(key, policy)
            // Only a table with duplicates deletes a pair, and its values are sealed alike each time.
            var storedValue = value.map { value in
                storedKey.withUnsafeBytes { sealing.storedValue(value, key: key, storedKey: $0, policy) }
            }
            let code = storedKey.withUnsafeMutableBytes { rawKey in
                var k = MDB_val(mv_size: rawKey.count, mv_data: rawKey.baseAddress)
                guard storedValue != nil else { return mdb_del(txn, dbi, &k, nil) }
                return storedValue!.withUnsafeMutableBytes { rawValue in
                    var v = MDB_val(mv_size: rawValue.count, mv_data: rawValue.baseAddress)
                    return mdb_del(txn, dbi, &k, &v)
                }
            }
            if code == MDB_NOTFOUND { return false }
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
            if let log { sealing.images.logDelete(log, txn, dbi, key: key) }  // a table with duplicates has none
            return true
        }

        /// `cursorGet` with sealed keys given (the key of `MDB_SET_RANGE` is sealed too: on sealed keys it
        /// finds an equal key, not a range) and the pair found opened.
        static func sealedCursorGet(
            _ cursor: OpaquePointer, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?, op: MDB_cursor_op,
            _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
            if policy.sealsKeys {  // walked in the order of the keys' values, as in a plain file
                return try orderedCursorGet(cursor, key: key, value: value, op: op, sealing, policy)
            }
            var storedKey = key.map { sealing.storedKey($0, policy) } ?? []
            var storedValue: [UInt8] = []
            if let value, let key {
                storedValue = storedKey.withUnsafeBytes { sealing.storedValue(value, key: key, storedKey: $0, policy) }
            }
            let (code, k, v) = storedKey.withUnsafeMutableBytes { rawKey in
                storedValue.withUnsafeMutableBytes { rawValue in
                    var k = MDB_val(
                        mv_size: key == nil ? 0 : rawKey.count, mv_data: key == nil ? nil : rawKey.baseAddress)
                    var v = MDB_val(
                        mv_size: value == nil ? 0 : rawValue.count, mv_data: value == nil ? nil : rawValue.baseAddress)
                    let code = mdb_cursor_get(cursor, &k, &v, op)
                    return (code, k, v)
                }
            }
            if code == MDB_NOTFOUND { return nil }
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
            let values = sealing.values(of: mdb_cursor_txn(cursor))
            let foundStoredKey = UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)
            let foundKey = try sealing.openKey(foundStoredKey, policy, into: values)
            let foundValue = try sealing.openValue(
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), key: foundKey, storedKey: foundStoredKey,
                policy, into: values)
            return (foundKey, foundValue)
        }

        static func sealedCursorPut(
            _ cursor: OpaquePointer, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: UInt32,
            _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) {
            if policy.sealsKeys, flags & UInt32(MDB_CURRENT) != 0 {
                return try orderedReplaceCurrent(cursor, value: value, sealing, policy)
            }
            let (txn, dbi) = (mdb_cursor_txn(cursor)!, mdb_cursor_dbi(cursor))
            if policy.inBlocks {
                _ = try sealedPut(txn, dbi, key: key, value: value, flags: flags, sealing, policy)
                return
            }
            let log = sealing.tableChanged(txn, dbi, policy)
            let code = withSealedPair(key, value, flags: flags, sealing, policy) { k, v, flags in
                let code = mdb_cursor_put(cursor, &k, &v, flags)
                if code == MDB_SUCCESS, let log {
                    sealing.images.logPut(log, txn, dbi, key: key, value: value, storedKey: k)
                }
                return code
            }
            if code != MDB_SUCCESS { throw LMDBError(code: code) }
        }

        /// `key` and `value` sealed for their table as LMDB takes them, and `flags` without what sealed
        /// keys cannot do: they are not in the order of their values, so nothing appends to their end.
        private static func withSealedPair(
            _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, flags: UInt32, _ sealing: FileSealing,
            _ policy: FileSealing.Policy, _ body: (inout MDB_val, inout MDB_val, UInt32) -> Int32
        ) -> Int32 {
            var storedKey = sealing.storedKey(key, policy)
            var storedValue = storedKey.withUnsafeBytes { sealing.storedValue(value, key: key, storedKey: $0, policy) }
            let ignored = policy.sealsKeys ? UInt32(MDB_APPEND | MDB_APPENDDUP) : 0
            return storedKey.withUnsafeMutableBytes { rawKey in
                storedValue.withUnsafeMutableBytes { rawValue in
                    var k = MDB_val(mv_size: rawKey.count, mv_data: rawKey.baseAddress)
                    var v = MDB_val(mv_size: rawValue.count, mv_data: rawValue.baseAddress)
                    return body(&k, &v, flags & ~ignored)
                }
            }
        }

        /// `cursorGetRow` on an encrypted file: the pair opened, then the checks of a sealed row.
        static func sealedCursorGetRow(
            _ cursor: OpaquePointer, op: MDB_cursor_op, columns: Int, start: UnsafeRawBufferPointer? = nil,
            _ sealing: FileSealing, _ policy: FileSealing.Policy
        ) throws(LMDBError) -> SealedEntry? {
            guard let (key, value) = try sealedCursorGet(cursor, key: start, value: nil, op: op, sealing, policy) else {
                return nil
            }
            var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
            var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
            let state: SealedEntry.State
            switch strata_row_check(&k, &v, columns) {
            case MDB_SUCCESS: state = .intact
            case STRATA_ROW_DAMAGED: state = .sealBroken
            default: state = .headerDamaged
            }
            return SealedEntry(
                key: key, value: UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), state: state)
        }
    }
#endif
