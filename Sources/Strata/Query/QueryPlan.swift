import Foundation

/// How a `Results` finds its objects: the route its plan takes (the one that runs, decided once
/// from its stages), and whether it reads the primary key or a secondary index.
///
/// ```swift
/// let plan = store.objects(Person.self).where { $0.name == "Ann" && $0.age > 3 }.queryPlan
/// print(plan)              // "index Person.name: 1 range, then test (name == Ann && age > 3)"
/// plan.index               // "name"
/// plan.route               // .collected
/// ```
public struct QueryPlan: CustomStringConvertible, Sendable, Equatable {
    /// How the rows are found.
    public enum Access: Sendable, Equatable {
        /// Every row of the table is read.
        case scan
        /// Ranges of the primary key are read.
        case primaryKey(ranges: Int)
        /// Ranges of a secondary index are read, then the rows they name.
        case index(property: String, ranges: Int)
        /// A full-text index finds the objects whose text matches (`TEXT`, `matches(_:)`,
        /// `search(_:_:)`), then the rows it names are read.
        case fullTextIndex(property: String)
        /// A vector index finds the nearest objects (`nearest(to:k:by:)`), then the rows it names are
        /// read.
        case vectorIndex(property: String)
    }

    /// The route the engine takes.
    public enum Route: String, Sendable, Equatable, CaseIterable {
        /// The whole table, walked with a cursor.
        case table
        /// A first page whose first sort key has an index: the index read in order, stopping after
        /// the page.
        case indexOrderedPage
        /// A first page by one numeric property: each match offered to a heap of the page's size
        /// (over a copy of the column kept in memory, when one is kept at this version).
        case heapPage
        /// `distinct` on one numeric property: the first row of each value kept as the walk goes.
        case firstOfEachValue
        /// Conditions, then at most a sort by one numeric property: the matches collected as the
        /// walk goes, then radix-sorted.
        case collected
        /// Anything else: the rows found, then each stage in turn.
        case staged
    }

    /// How the rows are found.
    public let access: Access
    /// The route the engine takes.
    public let route: Route
    /// The access and every step after it, in words (see the example).
    public let description: String

    /// The property whose index (or primary key) the query uses, if any.
    public var index: String? {
        switch access {
        case .scan: nil
        case .primaryKey: "primary key"
        case .index(let property, _), .fullTextIndex(let property), .vectorIndex(let property): property
        }
    }
}

extension QueryPlan {
    /// The words and names of `plan`.
    init<Element: Object>(_ plan: ExecutionPlan<Element>, binding: TableBinding, stages: [Results<Element>.Stage]) {
        let table = binding.name
        /// The first step: how `access` reads the rows.
        func reading(_ access: RowAccess) -> (Access, String) {
            switch access {
            case .batch: return (.scan, "scan \(table) in batch loops")
            case .rowByRow: return (.scan, "scan \(table) row by row")
            case .candidates(let candidates, _):
                let ranges = "\(candidates.ranges.count) range\(candidates.ranges.count == 1 ? "" : "s")"
                switch candidates.source {
                case .primaryKey:
                    let key = binding.primaryKeyColumn.map { binding.columnNames[$0] } ?? "?"
                    return (.primaryKey(ranges: candidates.ranges.count), "primary key \(table).\(key): \(ranges)")
                case .index(let index):
                    return (
                        .index(property: index.property, ranges: candidates.ranges.count),
                        "index \(table).\(index.property): \(ranges)"
                    )
                case .fullText(let index, let query):
                    return (.fullTextIndex(property: index.property), "full-text index \(index.name): \(query.text)")
                }
            }
        }
        var steps: [String] = []
        var access = Access.scan
        var later = stages[...]
        var radixSort: String?
        route = plan.route.name
        switch plan.route {
        case .table:
            steps.append("scan \(table)")
        case .indexOrderedPage(_, _, let limit, let index):
            access = .index(property: index.property, ranges: 1)
            steps.append("index \(table).\(index.property) in order, stopping after \(limit)")
        case .heapPage(_, let column, _, _, let limit, let readsCopy):
            steps.append(
                "scan \(table), the first \(limit) by \(binding.columnNames[column]) kept in a heap"
                    + (readsCopy ? " (from the column's copy in memory when one is kept)" : ""))
        case .firstOfEachValue(let rows, let column, _):
            let (found, words) = reading(rows)
            access = found
            steps.append(words + ", the first row of each \(binding.columnNames[column]) kept")
        case .collected(let rows, let sort):
            let (found, words) = reading(rows)
            access = found
            steps.append(words)
            later = stages.filter { if case .predicate = $0 { true } else { false } }[...]
            if let sort { radixSort = "radix sort by \(binding.columnNames[sort.column])" }
        case .staged(let source, _):
            switch source {
            case .list(let owner, let column):
                steps.append("the list \(owner._tableBinding?.columnNames[column] ?? "?") of \(type(of: owner))")
            case .rows(let rows):
                let (found, words) = reading(rows)
                access = found
                steps.append(words)
            case .ranked(let ranking, let filter, let limit):
                access = .fullTextIndex(property: binding.schema.properties[ranking.property].name)
                steps.append(
                    "full-text index \(table).\(binding.schema.properties[ranking.property].name) ranked by BM25: "
                        + ranking.query.text + (limit.map { ", the best \($0) kept" } ?? ""))
                if filter != nil { steps.append("each tested") }
                later = []
            case .nearest(let ranking, let matching):
                let name = binding.schema.properties[ranking.property].name
                if let matching {
                    let (_, words) = reading(matching)
                    steps.append(words)
                }
                access = .vectorIndex(property: name)
                steps.append(
                    "vector index \(table).\(name): the \(ranking.k) nearest"
                        + (matching == nil ? "" : " of those (compared one by one when few)"))
                later = []
            }
        }
        for stage in later {
            switch stage {
            case .predicate(let predicate): steps.append("test \(predicate)")
            case .filter: steps.append("filter (closure)")
            case .sort(let keys): steps.append("sort (\(keys.count) key\(keys.count == 1 ? "" : "s"))")
            case .distinct(let keyPaths):
                steps.append("distinct (\(keyPaths.count) key\(keyPaths.count == 1 ? "" : "s"))")
            case .limit(let count): steps.append("first \(count)")
            case .members: continue
            case .ranked(let ranking): steps.append("rank by BM25 (\(ranking.query.text))")
            case .nearest(let ranking): steps.append("the \(ranking.k) nearest, compared one by one")
            case .distinctPaths(let paths):
                steps.append("distinct (\(paths.count) key\(paths.count == 1 ? "" : "s"))")
            }
        }
        if let radixSort { steps.append(radixSort) }
        self.access = access
        description = steps.joined(separator: ", then ")
    }
}
