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

    /// The keys of the rows, for one table version of the Store.
    private final class KeyCache {
        var keys: [RowKey] = []
        var epoch: UInt64 = 0
        var version: UInt64 = 0
    }

    init(core: StoreCore, binding: TableBinding) {
        self.core = core
        self.binding = binding
    }

    /// The Store these objects belong to.
    public var store: Store { Store(core: core) }

    /// The keys of the rows now, read once per table version.
    func keys() -> [RowKey] {
        core.assertConfined()
        let version = core.tableVersions[binding.ordinal]
        if cache.epoch == core.epoch, cache.version == version { return cache.keys }
        let kind = binding.keyKind
        do {
            cache.keys = try core.withCursor(binding.table) { (cursor) throws(LMDBError) -> [RowKey] in
                var keys: [RowKey] = []
                var entry = try cursor.first()
                while let current = entry {
                    guard let key = try? RowKey(stored: current.key, kind: kind) else { throw LMDBError.corrupted }
                    keys.append(key)
                    entry = try cursor.next()
                }
                return keys
            }
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): reading the keys of \(binding.name): \(error)")
        }
        cache.epoch = core.epoch
        cache.version = version
        return cache.keys
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
        let keys = keys()
        precondition(keys.indices.contains(position), "Strata: index \(position) out of range 0..<\(keys.count)")
        return core.materialize(Element.self, binding: binding, key: keys[position])
    }

    public var first: Element? { edge(last: false) }
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
        Iterator(results: self, keys: keys())
    }

    /// Visits the objects the Results held when the iteration began.
    public struct Iterator: IteratorProtocol {
        private let results: Results
        private let keys: [RowKey]
        private var position = 0

        init(results: Results, keys: [RowKey]) {
            self.results = results
            self.keys = keys
        }

        public mutating func next() -> Element? {
            guard position < keys.count else { return nil }
            defer { position += 1 }
            return results.core.materialize(Element.self, binding: results.binding, key: keys[position])
        }
    }
}

@available(*, unavailable, message: "Results are confined to their Store's thread")
extension Results: Sendable {}
