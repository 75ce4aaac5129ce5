import Observation

/// What Observation tracks of one `Results` whose element type conforms to `Observable`: its count,
/// which objects it holds and in what order (its elements), and what the values it aggregates read
/// (`min`, `max`, `sum`, `average`, `values(of:)`: the elements and every property of each).
///
/// It lives in the Results' shared state (copies of a Results share it) from the first read, and is
/// watched weakly by its Store (`CommitObservation`): when the Store moves to a commit that may change
/// it, each aspect read is evaluated again and told (`willSet`, then `didSet`) only when it differs from
/// what was read. An object's own properties are told by the object (its type is observable too).
/// A whole table keeps no keys: its objects, in key order, change exactly when a commit inserts or
/// deletes one of its rows (another process's commit, whose changes are not known, tells them). Its
/// observation is the Store's, shared by every whole-table Results of the table
/// (`CommitObservation.tableObservation`).
final class ResultsObservation: Observable {
    /// An aspect a read depends on.
    struct Aspects: OptionSet {
        let rawValue: UInt8
        static let count = Aspects(rawValue: 1)
        static let elements = Aspects(rawValue: 2)
        /// The elements and their values.
        static let contents = Aspects(rawValue: 4)
    }

    private let registrar = ObservationRegistrar()
    /// The table the Results holds objects of.
    let table: String
    private let countNow: () throws(StoreError) -> Int
    /// The keys now; nil for a whole table, which keeps none.
    private let keysNow: (() throws(StoreError) -> [RowKey])?
    /// The aspects read so far, and what each showed at its last read or delivery.
    private var read: Aspects = []
    private var count = 0
    private var keys: [RowKey] = []
    private var keySet: Set<RowKey>?
    /// Whether a read was made while the Store showed changes its commit observer had not delivered
    /// (inside a write, or after the Store moved to a commit): what it read is then no state a
    /// delivery can compare with, so the next delivery tells every aspect read.
    private var readAhead = false

    // The key paths Observation names the aspects by.
    private(set) var countMark = 0
    private(set) var elementsMark = 0
    private(set) var contentsMark = 0

    init(
        table: String, count: @escaping () throws(StoreError) -> Int,
        keys: (() throws(StoreError) -> [RowKey])?
    ) {
        self.table = table
        countNow = count
        keysNow = keys
    }

    /// The count was read, and showed `value`; `ahead`: see `readAhead`.
    func readCount(_ value: Int, ahead: Bool) {
        read.insert(.count)
        readAhead = readAhead || ahead
        count = value
        registrar.access(self, keyPath: \.countMark)
    }

    /// The elements (or, with `.contents`, their values too) were read; `keys` is what they were (nil
    /// for a whole table); `ahead`: see `readAhead`.
    func readElements(_ aspect: Aspects, keys: [RowKey]?, ahead: Bool) {
        read.insert(aspect)
        readAhead = readAhead || ahead
        if let keys, self.keys != keys {
            self.keys = keys
            keySet = nil
        }
        registrar.access(self, keyPath: aspect == .contents ? \.contentsMark : \.elementsMark)
    }

    /// Whether `span` may change what was read.
    func mayChange(in span: ChangeSpan) -> Bool {
        guard span.isComplete, !readAhead else { return true }
        // A query's conditions can follow links into other tables.
        return keysNow == nil ? span.touches(table) : span.tables.values.contains { !$0.isEmpty }
    }

    /// Evaluates again what was read, now that the Store shows `span`'s last commit, and returns what
    /// changed (every aspect read when the Results cannot be evaluated: the next read reports it).
    func changes(in span: ChangeSpan) -> Aspects {
        defer { readAhead = false }
        let changed = preciseChanges(in: span)
        return readAhead ? read : changed
    }

    private func preciseChanges(in span: ChangeSpan) -> Aspects {
        var changed: Aspects = []
        do throws(StoreError) {
            if read.contains(.count) {
                let now = try countNow()
                if now != count { changed.insert(.count) }
                count = now
            }
            let held = read.intersection([.elements, .contents])
            guard !held.isEmpty else { return changed }
            guard let keysNow else { return changed.union(wholeTableChanges(in: span, held: held)) }
            let now = try keysNow()
            if now != keys {
                changed.formUnion(held)
                keys = now
                keySet = nil
            } else if held.contains(.contents), modifiesHeldRows(span) {
                changed.insert(.contents)
            }
        } catch {
            return read
        }
        return changed
    }

    /// What `span` changed of a whole table's objects (`held`: the aspects read of them).
    private func wholeTableChanges(in span: ChangeSpan, held: Aspects) -> Aspects {
        guard span.isComplete else { return held }
        guard let changes = span.tables[table] else { return [] }
        // (A row inserted and deleted again within the span was read if the read came between.)
        let goneAfterInsertion = changes.changedAfterInsertion.values.contains { $0.contains(-1) }
        if !changes.inserted.isEmpty || !changes.deleted.isEmpty || goneAfterInsertion { return held }
        return changes.modified.isEmpty && changes.changedAfterInsertion.isEmpty ? [] : held.intersection(.contents)
    }

    /// Whether `span` modified a row the Results holds (every row, when its changes are not known).
    private func modifiesHeldRows(_ span: ChangeSpan) -> Bool {
        guard span.isComplete else { return true }
        guard let changes = span.tables[table], !changes.modified.isEmpty || !changes.changedAfterInsertion.isEmpty
        else { return false }
        let held = keySet ?? Set(keys)
        keySet = held
        return changes.modified.keys.contains(where: held.contains)
            || changes.changedAfterInsertion.keys.contains(where: held.contains)
    }

    /// Tells Observation that `aspects` changed.
    func tell(_ aspects: Aspects) {
        if aspects.contains(.count) { tell(\.countMark) }
        if aspects.contains(.elements) { tell(\.elementsMark) }
        if aspects.contains(.contents) { tell(\.contentsMark) }
    }

    private func tell(_ keyPath: KeyPath<ResultsObservation, Int>) {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}
