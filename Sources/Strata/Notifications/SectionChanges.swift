import Foundation

/// How a change of a Results becomes a change of its sections, in Realm's terms: sections deleted (old
/// positions) and inserted (new positions); in the sections that stay, objects deleted at their old
/// index paths, inserted and modified at their new ones. Applied in that order (deletions from the
/// old sections, then the sections' deletions and insertions, then the rows' insertions), they turn
/// the old sections into the new ones, which is what a table view's batch update needs.
///
/// The Results' own change (deletions and modifications at old positions, insertions at new ones)
/// says which objects stayed: those keep their relative order, so the n-th object that stayed in the
/// old Results is the n-th in the new one. An object that stayed but changed its section is a
/// deletion from the old one and an insertion in the new one; a modification is reported at the
/// object's new index path, never at its old position read in the new layout.
struct SectionChanges<Key: Hashable> {
    typealias Layout = [(key: Key, positions: [Int])]

    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    init(from old: Layout, to new: Layout, deletions deleted: [Int], insertions inserted: [Int], modifications: [Int]) {
        // Sections: those of a key in both layouts stay when they keep their relative order (the
        // longest run of them that does); every other old section is deleted, every other new one inserted.
        var oldSection: [Key: Int] = [:]
        for (index, section) in old.enumerated() { oldSection[section.key] = index }
        let common = new.indices.compactMap { index in oldSection[new[index].key].map { (new: index, old: $0) } }
        var stayingOld = Set<Int>()
        var stayingNew = Set<Int>()
        for index in KeyDifference.longestIncreasingRun(common.map(\.old)) {
            stayingOld.insert(common[index].old)
            stayingNew.insert(common[index].new)
        }
        sectionsToDelete = IndexSet(old.indices.filter { !stayingOld.contains($0) })
        sectionsToInsert = IndexSet(new.indices.filter { !stayingNew.contains($0) })

        let oldPaths = Self.paths(old)
        let newPaths = Self.paths(new)
        // A row of a section that stays, as an index path (nil: its section is deleted or inserted whole).
        func oldPath(_ position: Int) -> IndexPath? {
            oldPaths[position].flatMap { stayingOld.contains($0[0]) ? $0 : nil }
        }
        func newPath(_ position: Int) -> IndexPath? {
            newPaths[position].flatMap { stayingNew.contains($0[0]) ? $0 : nil }
        }
        deletions = deleted.compactMap(oldPath)
        insertions = inserted.compactMap(newPath)

        let (deletedSet, insertedSet) = (Set(deleted), Set(inserted))
        let keptOld = oldPaths.indices.filter { !deletedSet.contains($0) }
        let keptNew = newPaths.indices.filter { !insertedSet.contains($0) }
        var newPosition: [Int: Int] = [:]
        for (before, after) in zip(keptOld, keptNew) {
            newPosition[before] = after
            let from = oldPath(before)
            let to = newPath(after)
            // The same section when both index paths name sections that stay and hold one key.
            if let from, let to, old[from[0]].key == new[to[0]].key { continue }
            if let from { deletions.append(from) }
            if let to { insertions.append(to) }
        }
        for position in modifications {
            guard let after = newPosition[position], let from = oldPath(position), let to = newPath(after),
                old[from[0]].key == new[to[0]].key
            else { continue }  // moved to another section (an insertion there), or its section is new
            self.modifications.append(to)
        }
        self.deletions.sort()
        self.insertions.sort()
        self.modifications.sort()
    }

    /// Each position's index path in `layout` (nil for a position no section holds).
    private static func paths(_ layout: Layout) -> [IndexPath?] {
        let count = layout.reduce(0) { Swift.max($0, ($1.positions.last ?? -1) + 1) }
        var paths = [IndexPath?](repeating: nil, count: count)
        for (section, entry) in layout.enumerated() {
            for (item, position) in entry.positions.enumerated() {
                paths[position] = IndexPath(indexes: [section, item])
            }
        }
        return paths
    }
}

extension SectionedResults {
    /// The change between two layouts, from the Results' change (positions in the old and new Results).
    static func change(
        from old: [(key: Key, positions: [Int])], to new: [(key: Key, positions: [Int])], sections: SectionedResults,
        deletions: [Int], insertions: [Int], modifications: [Int]
    ) -> SectionedResultsChange<SectionedResults> {
        let change = SectionChanges(
            from: old, to: new, deletions: deletions, insertions: insertions, modifications: modifications)
        return .update(
            sections, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications,
            sectionsToInsert: change.sectionsToInsert, sectionsToDelete: change.sectionsToDelete)
    }
}
