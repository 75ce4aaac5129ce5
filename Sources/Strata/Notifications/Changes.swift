
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

/// A change of one object.
public enum ObjectChange<T: Object> {
    /// The observed properties that changed, with their values before and after.
    case change(T, [PropertyChange])
    /// The object was deleted; nothing more is delivered.
    case deleted
    /// Observing failed (the file is damaged); nothing more is delivered.
    case error(StoreError)
}

/// One property of an `ObjectChange`. Values are as the property's type reads them; for links and
/// Lists they are nil (the new value is on the object).
public struct PropertyChange {
    /// The property's name, as declared.
    public let name: String
    /// Its value before the change.
    public let oldValue: Any?
    /// Its value after the change.
    public let newValue: Any?
}

extension ObjectChange: CustomStringConvertible {
    /// `.change(Person { … }, [name: "Ann" → "Anna"])`, `.deleted`, `.error(…)`.
    public var description: String {
        switch self {
        case .change(let object, let properties): ".change(\(object), \(properties))"
        case .deleted: ".deleted"
        case .error(let error): ".error(\(error))"
        }
    }
}

extension PropertyChange: CustomStringConvertible {
    /// `name: "Ann" → "Anna"` (links and Lists: `dogs: changed`).
    public var description: String {
        guard oldValue != nil || newValue != nil else { return "\(name): changed" }
        return "\(name): \(Self.describe(oldValue)) → \(Self.describe(newValue))"
    }

    private static func describe(_ value: Any?) -> String {
        switch value {
        case let string as String: "\"\(string)\""
        case let value?: "\(value)"
        case nil: "nil"
        }
    }
}

/// The commits a delivered change spans: the Store moved from version `from` to `to`, coalescing
/// `commits` commits. For `.initial`, `from == to` and `commits == 0`.
public struct ChangeVersions: Sendable, Equatable {
    /// The version the previous delivery showed.
    public let from: Int
    /// The version this delivery shows.
    public let to: Int
    /// How many commits the change coalesces.
    public var commits: Int { to - from }
}

/// Keeps an observation alive: notifications stop when it is invalidated or deinitialised.
public final class NotificationToken: Sendable {
    let state: ObserverState

    init(state: ObserverState) {
        self.state = state
    }

    /// Stops the notifications (from any thread; a delivery under way on the Store's queue finishes).
    public func invalidate() {
        state.invalidate()
    }

    deinit {
        state.invalidate()
    }
}
