/// Implementation detail of `ThreadConfined`: a description of a confined instance that holds no
/// transaction and no object, only keys and the query.
public struct _Handoff: @unchecked Sendable {  // immutable; see `Payload`
    /// The file, and the version the reference was made at (a resolving Store moves up to it).
    let path: String
    let version: Int
    let payload: Payload

    /// `@unchecked Sendable`: keys and schema are values; a Results' stages hold predicates and sort
    /// keys that capture only values and key paths (filter closures, which could capture anything,
    /// cannot be handed over).
    enum Payload {
        case object(type: ObjectIdentifier, key: RowKey)
        case list(ownerType: ObjectIdentifier, key: RowKey, column: Int)
        case results(type: ObjectIdentifier, stages: Any)
    }
}
