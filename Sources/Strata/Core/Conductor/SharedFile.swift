/// What the Stores of one file in this process share beside its environment: the hub that carries
/// each commit to the other Stores, and the frozen snapshots alive (for `Store.diagnostics()`).
/// One per open environment; it lives as long as a Store of the file does.
final class SharedFile: Sendable {
    typealias FrozenSnapshot = (version: Int, created: ContinuousClock.Instant)

    /// The change logs of recent commits and the Stores to wake after each.
    let changes = ChangeHub()
    /// The frozen snapshots of this process, by frozen core.
    let frozenSnapshots = Locked<[ObjectIdentifier: FrozenSnapshot]>([:])
    /// The types whose changes the file captures, once read from it (`Outbox`).
    let capture = CapturedTypes()
    /// The numeric columns queries read again, copied in memory while their table does not change.
    let columnCopies = ColumnCopies()

    private static let all = Locked<[ObjectIdentifier: WeakSharedFile]>([:])

    /// The shared state of `environment`'s file. The environment's identity keys it: every holder of
    /// the state holds a lease on the environment too, so the identity cannot be reused meanwhile.
    static func of(_ environment: Environment) -> SharedFile {
        all.withLock { all in
            let id = ObjectIdentifier(environment)
            if let shared = all[id]?.value { return shared }
            let shared = SharedFile()
            all = all.filter { $0.value.value != nil }
            all[id] = WeakSharedFile(value: shared)
            return shared
        }
    }

    private struct WeakSharedFile {
        weak var value: SharedFile?
    }
}
