/// A change of one object (or of a `Projection` of one).
public enum ObjectChange<T> {
    /// The observed properties that changed, with their values before and after.
    case change(T, [PropertyChange])
    /// The object was deleted; nothing more is delivered.
    case deleted
    /// Observing failed (the file is damaged); nothing more is delivered.
    case error(StoreError)
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
