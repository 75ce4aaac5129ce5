import Strata
import StrataTestSupport

// The table-view pattern (Docs/Guides/TableUpdates.md): a consumer keeps its own rows and applies
// each CollectionChange batch the way a table view applies batch updates.

/// Rows of items by score, as a table view's data source would hold them.
final class ItemTable {
    struct Row: Equatable, CustomStringConvertible {
        let id: Int
        let text: String
        var description: String { "\(id):\(text)" }
    }

    private(set) var rows: [Row] = []
    private(set) var batches = 0
    private(set) var moves = 0
    private(set) var reloads = 0

    static func row(_ item: Item) -> Row {
        Row(id: item.id, text: "\(item.name) \(item.score)")
    }

    /// Applies a change as `performBatchUpdates` does: reloads (old indices, read from the new
    /// state by identity), deletions (old indices, from the end), then insertions (new indices).
    func apply(_ change: CollectionChange<Results<Item>>) {
        switch change {
        case .initial(let results):
            rows = results.map(Self.row)
        case .update(let results, let deletions, let insertions, let modifications):
            batches += 1
            let current = Dictionary(uniqueKeysWithValues: results.map { ($0.id, Self.row($0)) })
            for index in modifications {
                if let row = current[rows[index].id] { rows[index] = row }
            }
            reloads += modifications.count
            let deleted = Set(deletions.map { rows[$0].id })
            for index in deletions.reversed() { rows.remove(at: index) }
            for index in insertions {
                let row = Self.row(results[index])
                if deleted.contains(row.id) { moves += 1 }
                rows.insert(row, at: index)
            }
        case .error:
            rows = []
        }
    }
}
