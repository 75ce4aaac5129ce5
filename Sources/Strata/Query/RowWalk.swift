/// The rows of a `Results` in order, as its iterators visit them: those it held when the walk began.
///
/// A whole table is walked with a live cursor (`TableIteration`): each row comes as the cursor stands
/// on it, and after something changed the table's keys, as a key alone (nil row) of the keys it had
/// left. A query hands out the rows it evaluated while they stay valid (this generation), then looks
/// each key up, skipping the objects deleted meanwhile.
@usableFromInline
struct RowWalk {
    enum Source {
        case table(TableIteration)
        case keys([RowKey], rows: [RowView], generation: UInt64)
    }

    // A walk is held by an iterator, which holds its Results, which holds the Store and its tables.
    unowned(unsafe) let core: StoreCore
    unowned(unsafe) let binding: TableBinding
    /// The table's walk, or nil for a query's keys (fields, not an enum: no payload to copy per row).
    private let iteration: TableIteration?
    /// `iteration`, called without a retain per row (`iteration` keeps it).
    private let iterationInPlace: Unmanaged<TableIteration>?
    private let keys: [RowKey]
    private let rows: [RowView]
    private let generation: UInt64
    private var position = 0
    /// How many rows ahead a walk asks for a row's memory: a sorted order reads rows far apart.
    private static let prefetchDistance = 8

    init(core: StoreCore, binding: TableBinding, source: Source) {
        self.core = core
        self.binding = binding
        switch source {
        case .table(let iteration):
            self.iteration = iteration
            iterationInPlace = Unmanaged.passUnretained(iteration)
            (keys, rows, generation) = ([], [], 0)
        case .keys(let keys, let rows, let generation):
            iteration = nil
            iterationInPlace = nil
            (self.keys, self.rows, self.generation) = (keys, rows, generation)
        }
    }

    /// Moves to the next object: sets `key`, and `row` when the walk has it at hand (else nil). False
    /// at the end.
    @inline(__always)
    mutating func next(key: inout RowKey, row: inout RowView?) -> Bool {
        if let iterationInPlace {
            return iterationInPlace._withUnsafeGuaranteedRef { $0.next(key: &key, row: &row) }
        }
        if position < rows.count, generation == core.generation {
            key = keys[position]
            row = rows[position]  // no lookup: the query read it
            if position + Self.prefetchDistance < rows.count {
                MemoryHint.prefetch(rows[position + Self.prefetchDistance].bytes.baseAddress)
            }
            position += 1
            return true
        }
        while position < keys.count {
            key = keys[position]
            position += 1
            if let found = fetchRow(key) {
                row = found
                return true
            }
        }
        return false
    }

    /// Moves to the next object, looking its row up when the walk did not have it: sets `key`, returns
    /// the row; nil at the end. Objects deleted since the walk began are skipped.
    mutating func nextRow(key: inout RowKey) -> RowView? {
        var found: RowView?
        while next(key: &key, row: &found) {
            if let existing = found ?? fetchRow(key) { return existing }
        }
        return nil
    }

    /// One column of a row: its bytes, nil for a null column.
    @usableFromInline
    struct ColumnBytes {
        @usableFromInline let value: UnsafeRawBufferPointer?
    }

    /// The bytes of `column` of the next object's row; nil at the end. Traps off the Store's thread,
    /// and on a damaged row.
    @usableFromInline
    mutating func nextColumn(_ column: Int) -> ColumnBytes? {
        core.assertConfined()
        var key = RowKey.integer(0)
        guard let row = nextRow(key: &key) else { return nil }
        do {
            return ColumnBytes(value: try row.column(column))
        } catch {
            trapDamagedColumn(column, error)
        }
    }

    /// Traps for `column` of the row handed out last, damaged or undecodable, naming its place as
    /// property reads do (`Person[1].name`).
    @usableFromInline
    func trapDamagedColumn(_ column: Int, _ error: any Error) -> Never {
        let lastKey = iteration?.lastKey ?? (position > 0 && position <= keys.count ? keys[position - 1] : nil)
        let place = lastKey.map { binding.location(of: $0, column: column) } ?? "\(binding.name)"
        preconditionFailure("\(TrapMessage.corrupted): \(place): \(error)")
    }

    private func fetchRow(_ key: RowKey) -> RowView? {
        do {
            return try core.rows.fetchRow(binding, key: key)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): \(error)")
        }
    }
}
