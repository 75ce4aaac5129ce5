import Foundation

/// A Results split into sections by a key (Realm's `SectionedResults`): the objects with the same
/// key form a section, sections in the order of the Results (sorted so that each key's objects are
/// together), each with its key. Live: read again after each write or refresh.
///
/// ```swift
/// let byLetter = people.sectioned(by: \.firstLetter, sortDescriptors: [SortKey(\.name)])
/// for section in byLetter {
///     print(section.key, section.map(\.name))
/// }
/// let token = try byLetter.observe { change in
///     if case .update(_, let deletions, let insertions, let modifications, let newSections, let goneSections) = change {
///         // table.deleteSections(goneSections); table.insertSections(newSections); rows by index path…
///     }
/// }
/// ```
/// - Warning: Confined to its Store's thread, like the Results.
public struct SectionedResults<Key: Hashable, Element: Object>: RandomAccessCollection {
    /// The sorted objects the sections split.
    public let results: Results<Element>
    let sectionKey: (Element) -> Key
    /// The keys of all the objects in order, read from their column when the key is a stored
    /// property (`values(of:)`); nil: each object's `sectionKey`.
    private let keysInOrder: ((Results<Element>) -> [Key])?
    /// The layout read from the column the Results is sorted by, without sorting the objects
    /// (`ColumnSectionLayout`), when the key is that column (nil from the closure: the Results is not
    /// sorted by it alone); nil for other keys.
    private let columnLayout: ((Results<Element>) -> (sections: [(key: Key, positions: [Int])], rowKeys: [RowKey])?)?
    private let cache = LayoutCache()

    init(
        results: Results<Element>, key: @escaping (Element) -> Key,
        keysInOrder: ((Results<Element>) -> [Key])? = nil
    ) {
        self.results = results
        sectionKey = key
        self.keysInOrder = keysInOrder
        columnLayout = nil
    }

    /// These sections over `results`, the same query at another state (what an observation
    /// delivers): read as these are, from the column when they are.
    func over(_ results: Results<Element>) -> SectionedResults {
        SectionedResults(results: results, sections: self)
    }

    private init(results: Results<Element>, sections: SectionedResults) {
        self.results = results
        sectionKey = sections.sectionKey
        keysInOrder = sections.keysInOrder
        columnLayout = sections.columnLayout
    }

    /// Sections by a stored property, read from its column when `results` is sorted by it alone.
    init(results: Results<Element>, keyPath: KeyPath<Element, Key>) where Key: _Persistable {
        self.results = results
        sectionKey = { $0[keyPath: keyPath] }
        keysInOrder = { Array($0.values(of: keyPath)) }
        columnLayout = { ColumnSectionLayout(sorted: $0, by: keyPath)?.layout() }
    }

    /// The layout, worked out once per state of the Store (as `Results` keeps its keys: until any
    /// change in a write, or a new snapshot), so that sections, counts and cells cost no walk.
    /// Locked: a frozen one may be read from several threads.
    private final class LayoutCache: @unchecked Sendable {  // state under `lock`
        let lock = NSLock()
        var sections: [(key: Key, positions: [Int])]?
        /// The objects' keys in the sections' order, when the layout was read from the column.
        var rowKeys: [RowKey]?
        var epoch: UInt64 = 0
        var generation: UInt64 = 0
    }

    /// The sections now: each key once, in the order its first object has in `results`.
    func layout() -> [(key: Key, positions: [Int])] {
        currentLayout().sections
    }

    /// The layout, and the objects' keys in its order when it was read from the column (a cell is
    /// then made from its key: the sorted Results is not evaluated).
    private func currentLayout() -> (sections: [(key: Key, positions: [Int])], rowKeys: [RowKey]?) {
        let core = results.core
        core.assertConfined()
        let state = (epoch: core.epoch, generation: core.generation)
        if let cached = cache.lock.withLock({
            cache.epoch == state.epoch && cache.generation == state.generation
                ? cache.sections.map { ($0, cache.rowKeys) } : nil
        }) {
            return cached
        }
        let layout: (sections: [(key: Key, positions: [Int])], rowKeys: [RowKey]?) =
            if let fromColumn = columnLayout?(results) { fromColumn } else { (walk(), nil) }
        cache.lock.withLock {
            (cache.sections, cache.rowKeys, cache.epoch, cache.generation) =
                (layout.sections, layout.rowKeys, state.epoch, state.generation)
        }
        return layout
    }

    private func walk() -> [(key: Key, positions: [Int])] {
        var sections = SectionsBuilder<Key>()
        if let keysInOrder {
            for (position, key) in keysInOrder(results).enumerated() { sections.place(key, at: position) }
        } else {
            for (position, object) in results.enumerated() { sections.place(sectionKey(object), at: position) }
        }
        return sections.sections
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { layout().count }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Key, Element> {
        let (sections, rowKeys) = currentLayout()
        precondition(
            sections.indices.contains(position), "Strata: section \(position) out of range 0..<\(sections.count)")
        return ResultsSection(
            key: sections[position].key, results: results, positions: sections[position].positions, rowKeys: rowKeys)
    }

    /// The object at `indexPath`: `[section, item]` (Foundation on Linux has no `section`/`item`
    /// properties; `IndexPath(indexes: [section, item])` builds one).
    public subscript(indexPath: IndexPath) -> Element {
        self[indexPath[0]][indexPath[1]]
    }

    /// The sections' keys, in order.
    public var allKeys: [Key] { layout().map(\.key) }
}

/// Sections made as keys come, in order: each key once, in the order of its first object, with the
/// positions of its objects. Two arrays, not one of tuples: a generic tuple's element costs a
/// metadata lookup.
struct SectionsBuilder<Key: Hashable> {
    private var keys: [Key] = []
    private var positions: [[Int]] = []
    private var sectionOfKey: [Key: Int] = [:]
    /// The section placed last: sorted by the key, an object's key is mostly its predecessor's.
    private var current = -1

    mutating func place(_ key: Key, at position: Int) {
        positions[section(of: key)].append(position)
    }

    mutating func place(_ key: Key, at run: Range<Int>) {
        positions[section(of: key)].append(contentsOf: run)
    }

    private mutating func section(of key: Key) -> Int {
        if current >= 0, keys[current] == key { return current }  // no lookup
        if let known = sectionOfKey[key] {
            current = known
        } else {
            current = keys.count
            sectionOfKey[key] = current
            keys.append(key)
            positions.append([])
        }
        return current
    }

    var sections: [(key: Key, positions: [Int])] { zip(keys, positions).map { ($0, $1) } }
}

/// One section of a `SectionedResults`: its key and its objects, in order.
public struct ResultsSection<Key: Hashable, Element: Object>: RandomAccessCollection {
    /// The key every object of the section has.
    public let key: Key
    let results: Results<Element>
    let positions: [Int]
    /// The objects' keys in the layout's order, when it was read from the column.
    let rowKeys: [RowKey]?

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of objects in the section.
    public var endIndex: Int { positions.count }

    /// Visits the section's objects in order, as `Results.Iterator` does (one accessor re-pointed
    /// from object to object when nothing else holds it).
    public func makeIterator() -> Results<Element>.Iterator {
        Results.Iterator(results: results, walk: results.rowWalk(positions: positions, of: rowKeys))
    }

    /// The object at `position` in the section.
    public subscript(position: Int) -> Element {
        guard let rowKeys else { return results[positions[position]] }
        results.core.assertConfined()
        return results.core.materialize(Element.self, binding: results.binding, key: rowKeys[positions[position]])
    }
}

/// A change of a `SectionedResults` (Realm's `SectionedResultsChange`).
public enum SectionedResultsChange<Collection> {
    /// The sections when observation began.
    case initial(Collection)
    /// The sections now; objects deleted (old index paths), inserted and modified (new index paths)
    /// in sections that stayed, each `[section, item]`; the sections inserted (new positions) and deleted (old positions).
    case update(
        Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
    /// Observing failed; nothing more is delivered.
    case error(StoreError)
}

extension Results {
    /// The objects sorted by `keyPath` and split into sections of equal values (Realm's
    /// `sectioned(by:ascending:)`).
    ///
    /// ```swift
    /// let byAge = people.sectioned(by: \.age)
    /// ```
    public func sectioned<Key: Hashable & _QueryComparable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element>
    {
        SectionedResults(results: sorted(by: keyPath, ascending: ascending), keyPath: keyPath)
    }

    /// The objects sorted by `sortDescriptors` and split into sections by `keyPath` (which may be a
    /// computed property, such as a name's first letter: sort by the name).
    ///
    /// ```swift
    /// let byLetter = people.sectioned(by: \.firstLetter, sortDescriptors: [SortKey(\.name)])
    /// ```
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortKey<Element>])
        -> SectionedResults<Key, Element>
    {
        SectionedResults(results: sorted(by: sortDescriptors), key: { $0[keyPath: keyPath] })
    }

    /// The objects sorted by `sortDescriptors` and split into sections by `keyPath`: for a stored
    /// property, its column is read without making objects.
    ///
    /// ```swift
    /// let byCity = people.sectioned(by: \.city, sortDescriptors: [SortKey(\.city), SortKey(\.name)])
    /// ```
    public func sectioned<Key: Hashable & _Persistable>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortKey<Element>]
    ) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), keyPath: keyPath)
    }

    /// The objects sorted by `sortDescriptors` and split into sections by the key `block` gives.
    public func sectioned<Key: Hashable>(sortDescriptors: [SortKey<Element>], by block: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element>
    {
        SectionedResults(results: sorted(by: sortDescriptors), key: block)
    }
}
