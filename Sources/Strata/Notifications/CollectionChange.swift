/// A change of a `Results` (or any collection), as Realm reports it.
///
/// ```swift
/// let token = try adults.observe { change in
///     switch change {
///     case .initial(let results): tableView.reload(results)
///     case .update(let results, let deletions, let insertions, let modifications):
///         tableView.apply(deletions: deletions, insertions: insertions, modifications: modifications)
///     case .error(let error): print(error)
///     }
/// }
/// ```
/// Deletions and modifications are indices in the collection as it was before, insertions in the
/// collection now, each ascending: removing the deletions from the old collection, then inserting the
/// insertions, gives the new one (an object that moved is a deletion and an insertion).
public enum CollectionChange<Collection> {
    /// The collection when observation began: always delivered first, on its own.
    case initial(Collection)
    /// The collection now, and how it got there from the previous delivery.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Observing failed (the file is damaged); nothing more is delivered.
    case error(StoreError)
}

extension CollectionChange: CustomStringConvertible {
    /// `.update(Results<Person> (4): […], deletions: [], insertions: [3], modifications: [0])`.
    public var description: String {
        switch self {
        case .initial(let collection): ".initial(\(collection))"
        case .update(let collection, let deletions, let insertions, let modifications):
            ".update(\(collection), deletions: \(deletions), insertions: \(insertions), modifications: \(modifications))"
        case .error(let error): ".error(\(error))"
        }
    }
}
