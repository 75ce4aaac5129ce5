/// What holds one of this process's LMDB reader slots (each open read transaction holds one, even
/// reset, under `MDB_NOTLS`): counted for the report of `.readersFull`.
enum ReaderHolder: Int, CaseIterable, Sendable {
    /// The snapshot of a live Store (one per thread, queue or actor that opened the file).
    case store
    /// A frozen version: `freeze()`, or a commit's snapshot kept for notifications.
    case frozen
    /// Anything else: opening checks, migrations, reading the outbox.
    case other

    var described: String {
        switch self {
        case .store: "live Stores of threads, queues and actors"
        case .frozen: "frozen versions"
        case .other: "other readers"
        }
    }
}
