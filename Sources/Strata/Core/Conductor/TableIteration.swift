/// A walk over one table's rows for a `Results` iterator. While nothing changes the table's set of
/// keys or the Store's snapshot, it walks a live LMDB cursor and hands out each row it stands on (no
/// lookup per object, and a setter can replace that row in place). Before anything would change that
/// set or snapshot, the Store detaches it: it reads the keys it has yet to visit and closes the
/// cursor, so iterating still visits exactly the objects the Results held when it began, and no
/// cursor outlives its transaction.
///
/// In a read snapshot of a file that is not encrypted it reads the rows ahead a `RowBatch` at a time
/// (one C call checks 64 seals and headers; a call per row cost more than LMDB's step). In a write
/// transaction it steps a row at a time: the cursor then stands on the row handed out, which a setter
/// replaces in place. An encrypted file's walk also steps a row at a time (`TableCursor.readsAhead`).
final class TableIteration {
    // Held, not borrowed: `deinit` unregisters from the core, and the iterator that owns this may be
    // the last holder of the Store (its stored properties go in an order nothing promises).
    private let core: StoreCore
    let binding: TableBinding
    // Used by one thread (the Store's): no dynamic exclusivity checks (a thread-local lookup each).
    @exclusivity(unchecked) private var cursor: TableCursor?
    @exclusivity(unchecked) private var started = false
    @exclusivity(unchecked) private var finished = false
    /// After detaching: the keys left to visit.
    @exclusivity(unchecked) private var remaining: [RowKey]?
    @exclusivity(unchecked) private var remainingIndex = 0
    /// The key of the row the live cursor stands on (the object handed out last), when it steps a
    /// row at a time.
    @exclusivity(unchecked) private(set) var cursorKey: RowKey?
    /// The rows read ahead in a read snapshot (nil in a write transaction).
    @exclusivity(unchecked) private var readAhead: ReadAhead? {
        didSet { readAheadInPlace = readAhead.map(Unmanaged.passUnretained) }
    }
    /// `readAhead`, read without a retain on every row (`readAhead` keeps it).
    @exclusivity(unchecked) private var readAheadInPlace: Unmanaged<ReadAhead>?
    /// Whether the table's keys are integers (8 bytes each) or UUIDs (16): decoded in line.
    private let integerKeys: Bool
    private let uuidKeys: Bool

    /// A batch of rows read ahead, and the next to hand out.
    private final class ReadAhead {
        @exclusivity(unchecked) var batch = RowBatch()
        @exclusivity(unchecked) var index = 0
    }

    init(core: StoreCore, binding: TableBinding) {
        self.core = core
        self.binding = binding
        integerKeys = binding.keyKind == .integer
        uuidKeys = binding.keyKind == .uuid
        core.iterations.register(self)
    }

    deinit {
        cursor?.transactionEnds()
        core.iterations.unregister(self)
    }

    /// The key of the row `next` handed out last (to name it in a trap), if any.
    var lastKey: RowKey? {
        if let remaining { return remainingIndex > 0 ? remaining[remainingIndex - 1] : nil }
        if let readAhead, readAhead.index > 0, !finished {
            return try? decodeKey(readAhead.batch.key(readAhead.index - 1))
        }
        return cursorKey
    }

    /// The live cursor, if the iteration still walks one.
    var liveCursor: TableCursor? { cursor }

    /// Moves to the next row: sets `key`, and `row` while the walk is live (else nil). False at the end.
    @inline(__always)
    func next(key: inout RowKey, row: inout RowView?) -> Bool {
        if let readAheadInPlace,
            readAheadInPlace._withUnsafeGuaranteedRef({ handOutReadAhead($0, key: &key, row: &row) })
        {
            return true
        }
        return nextAfterReadAhead(key: &key, row: &row)
    }

    /// Hands out the next row read ahead, if any is left: its seal and header were checked when the
    /// batch was filled.
    @inline(__always)
    private func handOutReadAhead(_ readAhead: ReadAhead, key: inout RowKey, row: inout RowView?) -> Bool {
        let index = readAhead.index
        guard index < readAhead.batch.count else { return false }
        let stored = readAhead.batch.key(index)
        if integerKeys, stored.count == 8 {
            key = .integer(UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self)))
        } else if uuidKeys, stored.count == 16 {
            key = .wide(stored)
        } else {
            do throws(StoreError) { key = try decodeKey(stored) } catch { trap(error) }
        }
        row = RowView(encoded: readAhead.batch.row(index), columns: binding.columnCount)
        readAhead.index = index &+ 1
        return true
    }

    /// `next` when no row read ahead is left: the rows a detached walk kept, the next batch, or the
    /// next row of a write transaction's cursor.
    private func nextAfterReadAhead(key: inout RowKey, row: inout RowView?) -> Bool {
        if let remaining {
            guard remainingIndex < remaining.count else { return false }
            key = remaining[remainingIndex]
            row = nil
            remainingIndex += 1
            return true
        }
        guard !finished else { return false }
        do throws(StoreError) {
            let entry: SealedEntry?
            let columns = binding.columnCount
            if !started {
                started = true
                let opened = try core.openCursor(on: binding.table)
                cursor = opened
                if opened.readsAhead {
                    let readAhead = ReadAhead()
                    self.readAhead = readAhead
                    return try fill(readAhead, first: true, key: &key, row: &row)
                }
                entry = try stepRow { (cursor) throws(LMDBError) in try cursor.firstRow(columns: columns) }
            } else if let readAhead {
                return try fill(readAhead, first: false, key: &key, row: &row)
            } else {
                entry = try stepRow { (cursor) throws(LMDBError) in try cursor.nextRow(columns: columns) }
            }
            guard let entry else {
                finish()
                return false
            }
            key = try decodeKey(entry.key)
            cursorKey = key
            row = try core.rows.checkedRow(entry, binding: binding, key: key)
            return true
        } catch {
            trap(error)
        }
    }

    /// Fills the batch with the rows after the last one (from the first with `first`) and hands out
    /// the first of them. A damaged row that stopped the last fill traps here, when the walk reaches
    /// it, as a walk a row at a time would.
    private func fill(_ readAhead: ReadAhead, first: Bool, key: inout RowKey, row: inout RowView?)
        throws(StoreError) -> Bool
    {
        if !first {
            switch readAhead.batch.stop {
            case .full: break
            case .end:
                finish()
                return false
            case .damaged(let entry):
                key = try decodeKey(entry.key)
                _ = try core.rows.checkedRow(entry, binding: binding, key: key)  // throws: it is damaged
            }
        }
        guard let cursor else { return false }
        let columns = binding.columnCount
        try StoreError.mapping { () throws(LMDBError) in
            try cursor.fillRows(&readAhead.batch, first: first, columns: columns)
        }
        readAhead.index = 0
        guard handOutReadAhead(readAhead, key: &key, row: &row) else {
            return try fill(readAhead, first: false, key: &key, row: &row)  // an empty fill: the end, or damage
        }
        return true
    }

    private func step(_ move: (TableCursor) throws(LMDBError) -> TableCursor.Entry?) throws(StoreError) -> TableCursor
        .Entry?
    {
        guard let cursor else { return nil }
        return try StoreError.mapping { try move(cursor) }
    }

    private func stepRow(_ move: (TableCursor) throws(LMDBError) -> SealedEntry?) throws(StoreError) -> SealedEntry? {
        guard let cursor else { return nil }
        return try StoreError.mapping { try move(cursor) }
    }

    private func decodeKey(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> RowKey {
        try core.rows.decodeRowKey(bytes, binding: binding)
    }

    private func trap(_ error: StoreError) -> Never {
        if case .corrupted(let damage) = error { preconditionFailure("\(TrapMessage.corrupted): \(damage)") }
        preconditionFailure("Strata: iterating \(binding.name): \(error)")
    }

    private func finish() {
        finished = true
        cursorKey = nil
        readAhead = nil
        cursor?.transactionEnds()
        cursor = nil
    }

    /// Reads the keys left to visit and closes the cursor: the table's keys or the snapshot are about
    /// to change.
    func detach() {
        guard remaining == nil else { return }
        var keys: [RowKey] = []
        if !finished {
            do throws(StoreError) {
                if !started { cursor = try core.openCursor(on: binding.table) }
                var reachedEnd = false
                if let readAhead {
                    // The cursor stands on the batch's last row, or on the damaged pair that stopped it.
                    for index in readAhead.index..<readAhead.batch.count {
                        keys.append(try decodeKey(readAhead.batch.key(index)))
                    }
                    switch readAhead.batch.stop {
                    case .full: break
                    case .end: reachedEnd = true
                    case .damaged(let entry): keys.append(try decodeKey(entry.key))
                    }
                }
                var entry =
                    reachedEnd
                    ? nil : try step { (cursor) throws(LMDBError) in try started ? cursor.next() : cursor.first() }
                while let current = entry {
                    keys.append(try decodeKey(current.key))
                    entry = try step { (cursor) throws(LMDBError) in try cursor.next() }
                }
            } catch {
                trap(error)
            }
        }
        started = true
        finish()
        remaining = keys
    }
}

/// The Results iterations under way on one Store: each registers while it walks a live cursor, so
/// that a change to its table's keys, or to the snapshot, detaches it first, and a setter can
/// replace the row it stands on in place.
struct IterationRegistry {
    private var walks: [Unmanaged<TableIteration>] = []

    mutating func register(_ iteration: TableIteration) {
        walks.append(Unmanaged.passUnretained(iteration))
    }

    mutating func unregister(_ iteration: TableIteration) {
        let target = Unmanaged.passUnretained(iteration).toOpaque()
        walks.removeAll { $0.toOpaque() == target }
    }

    /// Detaches the iterations over `binding`'s table (every iteration when nil) before a change to
    /// their set of keys or to the snapshot.
    @inline(__always)
    func detach(of binding: TableBinding? = nil) {
        guard !walks.isEmpty else { return }
        for iteration in walks {
            let iteration = iteration.takeUnretainedValue()
            if binding == nil || iteration.binding === binding { iteration.detach() }
        }
    }

    /// The live cursor of an iteration over `binding` standing on `key`, if any.
    func cursor(of binding: TableBinding, at key: RowKey) -> TableCursor? {
        guard !walks.isEmpty else { return nil }
        for iteration in walks {
            let iteration = iteration.takeUnretainedValue()
            if iteration.binding === binding, iteration.cursorKey == key, let cursor = iteration.liveCursor {
                return cursor
            }
        }
        return nil
    }
}
