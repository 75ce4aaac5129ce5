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
