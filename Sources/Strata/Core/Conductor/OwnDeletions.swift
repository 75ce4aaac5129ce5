/// The rows this Store's own writes deleted, and when: what tells `.invalidated` (this Store deleted
/// the object) from `.deletedInAnotherThread` (another thread, queue, actor or process did) when an
/// object's row is gone. Owned by the Store's core, used on its thread.
///
/// Time is a counter (`clock`) that each deletion advances. An object is stamped with it when it
/// becomes an accessor of its row (`Object._madeAt`), so a deletion recorded at or after that stamp
/// was made by this Store after the object saw its row; an older one was undone since (the row was
/// stored again), and the deletion that took it now was another's.
struct OwnDeletions {
    private struct Row: Hashable {
        let table: Int
        let key: RowKey
    }

    /// The time an object made now is stamped with.
    private(set) var clock: UInt64 = 1
    /// The open write's deletions: forgotten if it rolls back.
    private var pending: [Row: UInt64] = [:]
    private var pendingWipes: [Int: UInt64] = [:]
    /// Committed deletions, the latest per row. Two generations of at most `remembered` rows each
    /// bound the memory of a Store that deletes for months; a row deleted longer ago than that is
    /// forgotten, and an object of it that is used again reports `.deletedInAnotherThread`.
    private var recent: [Row: UInt64] = [:]
    private var older: [Row: UInt64] = [:]
    /// Per table (binding ordinal): when this Store last deleted every row (`deleteAll`).
    private var wipes: [Int: UInt64] = [:]

    static let remembered = 1 << 16

    /// Records the deletion of a row in the open write.
    mutating func noteDeleted(_ key: RowKey, table: Int) {
        pending[Row(table: table, key: key)] = clock
        clock &+= 1
    }

    /// Records that the open write deleted every row of `table`.
    mutating func noteWiped(table: Int) {
        pendingWipes[table] = clock
        clock &+= 1
    }

    /// The open write committed: its deletions are this Store's.
    mutating func writeCommitted() {
        if !pendingWipes.isEmpty {
            wipes.merge(pendingWipes) { _, new in new }
            pendingWipes.removeAll()
        }
        guard !pending.isEmpty else { return }
        for (row, time) in pending {
            if recent.count >= Self.remembered {
                older = recent
                recent.removeAll(keepingCapacity: true)
            }
            recent[row] = time
        }
        pending.removeAll(keepingCapacity: pending.count <= 64)
    }

    /// The open write rolled back: it deleted nothing.
    mutating func writeRolledBack() {
        if !pending.isEmpty { pending.removeAll(keepingCapacity: pending.count <= 64) }
        if !pendingWipes.isEmpty { pendingWipes.removeAll() }
    }

    /// Whether this Store deleted the row under `key` of `table` at or after `stamp` (in a committed
    /// write, or in the open one).
    func deletedHere(_ key: RowKey, table: Int, since stamp: UInt64) -> Bool {
        if let wiped = pendingWipes[table] ?? wipes[table], wiped >= stamp { return true }
        if pending.isEmpty && recent.isEmpty && older.isEmpty { return false }
        let row = Row(table: table, key: key)
        for deletions in [pending, recent, older] {
            if let time = deletions[row], time >= stamp { return true }
        }
        return false
    }
}
