import Synchronization

/// Adopts a map another process grew: the one place Strata calls `mdb_env_set_mapsize` on an open
/// environment.
///
/// LMDB's manual (`mdb_env_set_mapsize`): "If the mapsize is increased by another process, and data
/// has grown beyond the range of the current mapsize, `mdb_txn_begin()` will return
/// `MDB_MAP_RESIZED`. This function may be called with a size of zero to adopt the new size. […] It
/// may be called at later times if no transactions are active in this process." It replaces the
/// mapping, so a transaction of another thread reading the map meanwhile would read unmapped memory.
/// Every transaction of the environment therefore begins (or renews) through `opening(_:)`, which
/// counts it until it ends, resets or commits (`ended()`), and the map is only replaced when that
/// count is zero; a transaction that begins meanwhile waits for the new map. When other transactions
/// of this process are open (another Store's snapshot), the map cannot be adopted and the begin fails
/// with `.mapResized`, which `StoreError` reports as `.mapFull` (the file outgrew this process's
/// `maximumSize`).
final class MapAdoption: Sendable {
    /// Transactions of this process on the map: begun or renewed, not yet ended or reset.
    private let open = Atomic<Int>(0)
    /// Set while the map is replaced: a transaction that sees it waits for `replacing` and tries again.
    private let isReplacing = Atomic<Bool>(false)
    private let replacing = Locked(())

    /// Begins a transaction with `begin` (an `mdb_txn_begin` or `mdb_txn_renew`), counted as open
    /// until `ended()`. On `MDB_MAP_RESIZED` it adopts the grown map, if nothing else is open, and
    /// begins once more.
    ///
    /// - Throws: what `begin` throws; `.mapResized` when the map grew and other transactions of this
    ///   process are open.
    func opening<R>(_ handle: OpaquePointer, _ begin: () throws(LMDBError) -> R) throws(LMDBError) -> R {
        var adopted = false
        while true {
            // Counted before looking at the flag, and the replacer sets the flag before counting: one
            // of the two sees the other (sequentially consistent), so no begin runs during a replace.
            open.add(1, ordering: .sequentiallyConsistent)
            if isReplacing.load(ordering: .sequentiallyConsistent) {
                ended()
                replacing.withLock { _ in }  // until the new map is in place
                continue
            }
            do {
                return try begin()
            } catch .mapResized where !adopted {
                ended()
                try adopt(handle)
                adopted = true
            } catch {
                ended()
                throw error
            }
        }
    }

    /// A transaction counted by `opening(_:_:)` ended, was reset, or committed.
    func ended() {
        open.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Whether the newest commit lies past this process's map (a transaction begun now would meet
    /// `MDB_MAP_RESIZED`) while transactions other than the caller's `own` are open, so that the map
    /// cannot be adopted: a Store that would give up its snapshot to move keeps it instead.
    func cannotAdopt(_ handle: OpaquePointer, pageSize: Int, own: Int) -> Bool {
        guard let info = try? LMDB.info(handle), (info.me_last_pgno + 1) * pageSize > info.me_mapsize else {
            return false
        }
        return open.load(ordering: .sequentiallyConsistent) > own
    }

    private func adopt(_ handle: OpaquePointer) throws(LMDBError) {
        try replacing.withLock { (_) throws(LMDBError) in
            isReplacing.store(true, ordering: .sequentiallyConsistent)
            defer { isReplacing.store(false, ordering: .sequentiallyConsistent) }
            guard open.load(ordering: .sequentiallyConsistent) == 0 else { throw .mapResized }
            try LMDB.setMapSize(handle, 0)
        }
    }
}
