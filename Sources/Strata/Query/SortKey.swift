import Foundation

/// A sort order for `Results.sorted(by:)`: a stored property (or a key path through a link) and a
/// direction. nil sorts first in ascending order, Strings by their UTF-8 bytes.
///
/// ```swift
/// people.sorted(by: [SortKey(\.age, ascending: false), SortKey(\.name)])
/// ```
/// A property of the sorted type itself is read from the rows into a compact array and sorted there
/// (no object is made); a key path through a link is read through the objects.
public struct SortKey<Root: Object> {
    /// The key path sorted by (nil for a key of the string language, which names `property`).
    let keyPath: PartialKeyPath<Root>?
    /// The property of `Root` a key of the string language names (always column-sortable).
    let property: Int?
    /// Whether smaller values come first.
    let ascending: Bool
    /// For the objects being sorted, a comparison of two of them by position (-1, 0, 1).
    let comparator: ([Root]) -> (Int, Int) -> Int

    /// The stored property of `Root` itself this key sorts by; nil for a key path through a link or a
    /// computed property (sorted through the objects).
    func directProperty(in schema: ObjectSchema) -> Int? {
        property ?? keyPath.flatMap { KeyPathResolver.path($0, in: schema)?.directProperty }
    }

    /// Sorts by the value at `keyPath` (a stored property, maybe through a link: `\.owner?.name`).
    public init<V: _QueryComparable>(_ keyPath: KeyPath<Root, V>, ascending: Bool = true) {
        self.keyPath = keyPath
        property = nil
        self.ascending = ascending
        comparator = { objects in
            let values = objects.map { $0[keyPath: keyPath] }
            return { a, b in
                let result = V._queryCompare(values[a], values[b])
                return ascending ? result : -result
            }
        }
    }

    init(
        keyPath: PartialKeyPath<Root>?, property: Int?, ascending: Bool,
        comparator: @escaping ([Root]) -> (Int, Int) -> Int
    ) {
        self.keyPath = keyPath
        self.property = property
        self.ascending = ascending
        self.comparator = comparator
    }

    /// A key of the string language: a property of `Root` whose column `ColumnSorter` sorts (the
    /// compiler refuses others), so no object comparison is ever needed.
    init(property: Int, ascending: Bool) {
        keyPath = nil
        self.property = property
        self.ascending = ascending
        comparator = { _ in
            preconditionFailure("Strata: a SORT key of the string language is sorted from its column (ColumnSorter)")
        }
    }
}
