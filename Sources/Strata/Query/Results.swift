/// The objects of one type in a Store: a lazy, live, typed collection.
///
/// ```swift
/// let people = store.objects(Person.self)
/// print(people.count)                    // reads the table's count, no object is created
/// for person in people { print(person.name) }
/// let first = people.first
/// ```
/// Nothing is read until you ask. After a write on the same thread, or a `refresh()`, a Results you
/// hold shows the new state. Unsorted Results are in primary-key order, or insertion order for types
/// without primary key. Iterating visits the objects the Results held when the iteration began, even
/// if the loop writes.
///
/// - Warning: Confined to its Store's thread; reading it elsewhere traps.
public struct Results<Element: Object>: RandomAccessCollection {
    let core: StoreCore
    let binding: TableBinding
    private let cache = KeyCache()

    /// The keys of the rows, for one table version of the Store, and (read outside a write) the rows
    /// themselves, for one generation: an object made from them needs no lookup.
    private final class KeyCache {
        var keys: [RowKey] = []
        var rows: [RowView] = []
        var epoch: UInt64 = 0
        var version: UInt64 = 0
        var rowsGeneration: UInt64 = 0
    }

    init(core: StoreCore, binding: TableBinding) {
        self.core = core
        self.binding = binding
    }

    /// The Store these objects belong to.
    public var store: Store { Store(core: core) }

    /// The keys of the rows now, read once per table version.
    func keys() -> [RowKey] {
        contents().keys
    }

    /// The keys, and the rows when they stay valid (a read snapshot, this generation).
    private func contents() -> (keys: [RowKey], rows: [RowView]) {
        core.assertConfined()
        let version = core.tableVersions[binding.ordinal]
        let withRows = core.session == nil
        if cache.epoch == core.epoch, cache.version == version,
            !withRows || cache.rowsGeneration == core.generation
        {
            return (cache.keys, withRows ? cache.rows : [])
        }
        let kind = binding.keyKind
        let columns = binding.columnCount
        var rows: [RowView] = []
        var damage: String?
        do {
            cache.keys = try core.withCursor(binding.table) { (cursor) throws(LMDBError) -> [RowKey] in
                var keys: [RowKey] = []
                var entry = try cursor.first()
                while let current = entry {
                    do throws(RowDamage) {
                        let key = try RowKey(stored: current.key, kind: kind)
                        keys.append(key)
                        do throws(RowDamage) {
                            if withRows { rows.append(try RowView(checkingHeader: current.value, expectedColumns: columns)) }
                        } catch {
                            damage = "\(binding.name)[\(binding.describe(key))]: \(error)"
                            throw error
                        }
                    } catch {
                        damage = damage ?? "\(binding.name): a key is damaged: \(error)"
                        throw LMDBError.corrupted
                    }
                    entry = try cursor.next()
                }
                return keys
            }
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): \(damage ?? "reading the rows of \(binding.name): \(error)")")
        }
        cache.rows = rows
        cache.epoch = core.epoch
        cache.version = version
        cache.rowsGeneration = core.generation
        return (cache.keys, rows)
    }

    /// A managed object for the row at `position` of `contents`.
    private func object(at position: Int, _ contents: (keys: [RowKey], rows: [RowView]), generation: UInt64) -> Element {
        let row = position < contents.rows.count && generation == core.generation ? contents.rows[position] : nil
        return core.materialize(Element.self, binding: binding, key: contents.keys[position], row: row)
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of objects (the table's count: no row is read).
    public var count: Int {
        core.assertConfined()
        do {
            return try core.count(binding.table)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): counting \(binding.name): \(error)")
        }
    }

    public subscript(position: Int) -> Element {
        let contents = contents()
        precondition(
            contents.keys.indices.contains(position), "Strata: index \(position) out of range 0..<\(contents.keys.count)")
        return object(at: position, contents, generation: core.generation)
    }

    /// The object with the smallest primary key (the first inserted, without one), read with a cursor.
    public var first: Element? { edge(last: false) }
    /// The object with the greatest primary key (the last inserted, without one), read with a cursor.
    public var last: Element? { edge(last: true) }

    private func edge(last: Bool) -> Element? {
        core.assertConfined()
        let kind = binding.keyKind
        do {
            let key = try core.withCursor(binding.table) { (cursor) throws(LMDBError) -> RowKey? in
                guard let entry = try last ? cursor.last() : cursor.first() else { return nil }
                guard let key = try? RowKey(stored: entry.key, kind: kind) else { throw LMDBError.corrupted }
                return key
            }
            return key.map { core.materialize(Element.self, binding: binding, key: $0) }
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): reading \(binding.name): \(error)")
        }
    }

    public func makeIterator() -> Iterator {
        core.assertConfined()
        return Iterator(results: self, iteration: TableIteration(core: core, binding: binding))
    }

    /// Visits the objects the Results held when the iteration began, each with the row the walk
    /// stands on (see `TableIteration`).
    public struct Iterator: IteratorProtocol {
        private let results: Results
        private let iteration: TableIteration

        init(results: Results, iteration: TableIteration) {
            self.results = results
            self.iteration = iteration
        }

        public mutating func next() -> Element? {
            results.core.assertConfined()
            guard let (key, row) = iteration.next() else { return nil }
            return results.core.materialize(Element.self, binding: results.binding, key: key, row: row)
        }
    }
}

@available(*, unavailable, message: "Results are confined to their Store's thread")
extension Results: Sendable {}
