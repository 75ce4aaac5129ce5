import Strata

// The table-view pattern (Docs/Guides/TableUpdates.md): a consumer keeps its own rows and applies
// each CollectionChange batch the way a table view applies batch updates.

/// Rows of objects, as a table view's data source would hold them, kept up to date by applying each
/// change batch of a `Results`.
public final class ChangeTable<Element: Object, ID: Hashable> {
    /// One row: the object's identity and the text a cell would show.
    public struct Row: Equatable, CustomStringConvertible {
        public let id: ID
        public let text: String
        public var description: String { text }
    }

    public private(set) var rows: [Row] = []
    /// Update batches applied (the initial state is not one).
    public private(set) var batches = 0
    /// Rows deleted and inserted again in one batch (a moved row).
    public private(set) var moves = 0
    public private(set) var reloads = 0
    private let identify: (Element) -> ID
    private let describe: (Element) -> String

    /// - Parameters:
    ///   - id: the identity of an element (its primary key), to read reloaded rows by.
    ///   - text: what a cell shows for an element.
    public init(id: @escaping (Element) -> ID, text: @escaping (Element) -> String) {
        identify = id
        describe = text
    }

    public func row(_ element: Element) -> Row {
        Row(id: identify(element), text: describe(element))
    }

    /// Applies a change as `performBatchUpdates` does: reloads (old indices, read from the new
    /// state by identity), deletions (old indices, from the end), then insertions (new indices).
    public func apply(_ change: CollectionChange<Results<Element>>) {
        switch change {
        case .initial(let results):
            rows = results.map(row)
        case .update(let results, let deletions, let insertions, let modifications):
            batches += 1
            let current = Dictionary(uniqueKeysWithValues: results.map { (identify($0), row($0)) })
            for index in modifications {
                if let row = current[rows[index].id] { rows[index] = row }
            }
            reloads += modifications.count
            let deleted = Set(deletions.map { rows[$0].id })
            for index in deletions.reversed() { rows.remove(at: index) }
            for index in insertions {
                let row = row(results[index])
                if deleted.contains(row.id) { moves += 1 }
                rows.insert(row, at: index)
            }
        case .error:
            rows = []
        }
    }
}
