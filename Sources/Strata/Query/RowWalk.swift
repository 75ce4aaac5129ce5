/// The rows of a `Results` in order, as its iterators visit them: those it held when the walk began.
///
/// A whole table is walked with a live cursor (`TableIteration`): each row comes as the cursor stands
/// on it, and after something changed the table's keys, as a key alone (nil row) of the keys it had
/// left. A query hands out the rows it evaluated while they stay valid (this generation), then looks
/// each key up, skipping the objects deleted meanwhile.
struct RowWalk {
    enum Source {
        case table(TableIteration)
        case keys([RowKey], rows: [RowView], generation: UInt64)
    }

    // A walk is held by an iterator, which holds its Results, which holds the Store.
    unowned(unsafe) let core: StoreCore
    let binding: TableBinding
    let source: Source
    private var position = 0

    init(core: StoreCore, binding: TableBinding, source: Source) {
        self.core = core
        self.binding = binding
        self.source = source
    }

    /// The next key, with its row when the walk has it at hand; nil at the end.
    mutating func next() -> (key: RowKey, row: RowView?)? {
        switch source {
        case .table(let iteration):
            return iteration.next()
        case .keys(let keys, let rows, let generation):
            if position < rows.count, generation == core.generation {
                defer { position += 1 }
                return (keys[position], rows[position])  // no lookup: the query read it
            }
            while position < keys.count {
                let key = keys[position]
                position += 1
                if let row = fetchRow(key) { return (key, row) }
            }
            return nil
        }
    }

    /// The next key with its row, looked up when the walk did not have it; nil at the end. Objects
    /// deleted since the walk began are skipped.
    mutating func nextRow() -> (key: RowKey, row: RowView)? {
        while let (key, row) = next() {
            if let row = row ?? fetchRow(key) { return (key, row) }
        }
        return nil
    }

    private func fetchRow(_ key: RowKey) -> RowView? {
        do {
            return try core.rows.fetchRow(binding, key: key)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): \(error)")
        }
    }
}
