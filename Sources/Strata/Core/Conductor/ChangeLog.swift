/// What one write did to one table: keys inserted, deleted, and modified (with the stored columns
/// that changed). Recorded as the write goes, only while some Store of the file has observers.
struct TableChanges: Sendable {
    var inserted: Set<RowKey> = []
    var deleted: Set<RowKey> = []
    var modified: [RowKey: Set<Int>] = [:]
    /// In changes merged from several commits (`append`): rows an earlier commit inserted that a later
    /// one modified (the columns) or deleted (-1). To an observer standing before the insertion they
    /// are simply inserted (or never were); one that read such a row after its insertion (an accessor
    /// watched inside the inserting write, whose observer stands at the write's start) is told.
    var changedAfterInsertion: [RowKey: Set<Int>] = [:]

    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty && changedAfterInsertion.isEmpty }

    /// Forgets every change, keeping the storage of small sets (a session reuses its log from one
    /// write to the next: a one-object write then allocates nothing for it).
    mutating func clear() {
        if !inserted.isEmpty { inserted.removeAll(keepingCapacity: inserted.capacity <= 64) }
        if !deleted.isEmpty { deleted.removeAll(keepingCapacity: deleted.capacity <= 64) }
        if !modified.isEmpty { modified.removeAll(keepingCapacity: modified.capacity <= 64) }
        if !changedAfterInsertion.isEmpty { changedAfterInsertion.removeAll() }
    }

    mutating func noteInserted(_ key: RowKey, columns: Int) {
        if !deleted.isEmpty, deleted.remove(key) != nil {
            modified[key, default: []].formUnion(0..<columns)  // deleted, then stored again
        } else {
            inserted.insert(key)
        }
    }

    mutating func noteModified(_ key: RowKey, columns: some Sequence<Int>) {
        guard !inserted.contains(key) else { return }
        modified[key, default: []].formUnion(columns)
    }

    mutating func noteDeleted(_ key: RowKey) {
        if inserted.remove(key) != nil { return }
        modified[key] = nil
        deleted.insert(key)
    }

    /// This change followed by `later`.
    mutating func append(_ later: TableChanges) {
        for (key, columns) in later.changedAfterInsertion { changedAfterInsertion[key, default: []].formUnion(columns) }
        for key in later.deleted {
            if inserted.contains(key) || changedAfterInsertion[key] != nil { changedAfterInsertion[key] = [-1] }
            noteDeleted(key)
        }
        for key in later.inserted {
            if deleted.remove(key) != nil {
                modified[key, default: []].insert(-1)  // stored again: every column may differ
            } else {
                inserted.insert(key)
            }
        }
        for (key, columns) in later.modified {
            if inserted.contains(key) { changedAfterInsertion[key, default: []].formUnion(columns) }
            noteModified(key, columns: columns)
        }
    }
}

/// The changes of one commit, by type name (the same in every Store of the file).
struct CommitLog: Sendable {
    /// The LMDB transaction id the commit created.
    let version: Int
    let tables: [String: TableChanges]
    /// The one Store whose observers may read this log, or nil for every Store: a log begun inside
    /// the write, when that Store's first observer was registered, holds only what the write did from
    /// then on, all that its observers need and less than another's may (`StoreCore.logForNewObserver`).
    var reader: ObjectIdentifier?
    /// A frozen snapshot of exactly this version, pinned at commit for observers that want every
    /// commit on its own.
    var snapshot: PinnedSnapshot?

    var keyCount: Int {
        tables.values.reduce(0) { $0 + $1.inserted.count + $1.deleted.count + $1.modified.count }
    }
}

/// The changes a Store must tell its observers about: the commits after `from` up to `to`, and
/// whether every one of them was logged (a commit of another process, or one made while nothing was
/// observed, was not: observers then compare what they can).
struct ChangeSpan {
    let from: Int
    let to: Int
    let tables: [String: TableChanges]
    let isComplete: Bool

    /// Whether `type` may have changed.
    func touches(_ type: String) -> Bool {
        !isComplete || tables[type].map { !$0.isEmpty } == true
    }
}

/// A frozen core of one version, shared by the Stores that deliver that commit on its own.
final class PinnedSnapshot: @unchecked Sendable {  // a frozen core only reads; see `StoreCore.frozen()`
    let core: StoreCore

    init(_ core: StoreCore) {
        self.core = core
    }
}
