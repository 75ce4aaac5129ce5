import Dispatch

/// A Store that any task or thread can share, for servers and async code: reads run on one of a few
/// reader queues and writes on one writer queue, each with a Store of its own, so no `.wrongThread`
/// is possible through it. GRDB calls this a `DatabasePool`.
///
/// ```swift
/// let pool = try StorePool(configuration: configuration)
/// try await pool.write { store in try store.add(Book(id: 1, title: "Dune")) }
/// let count = try await pool.read { store in store.objects(Book.self).count }
/// let titles = try await pool.read { store in store.objects(Book.self).map(\.title) }
/// ```
/// Each block is synchronous and runs whole on one thread; awaiting a block blocks no thread of the
/// cooperative pool. A read sees every write that returned before the read began. What a block
/// returns must be `Sendable`: plain values, or a `ThreadSafeReference` to resolve elsewhere; the
/// `Store` and its live objects stay in the block.
///
/// - Warning: LMDB has one writer per file: the pool's writes run one at a time, and a write of
///   another Store of the file (or another process) makes the pool's writer thread wait for it.
public final class StorePool: Sendable {
    /// The configuration every Store of the pool is opened with.
    public let configuration: Store.Configuration

    private let readers: [Lane]
    private let writer: Lane
    /// Per reader, the blocks given to it and not yet finished: a read goes to the least busy.
    private let pendingReads: Locked<[Int]>

    /// Opens a pool of `readers` reader queues and one writer queue. The writer's Store is opened
    /// here, so that a file that cannot be opened (or that needs a migration) fails now; the readers'
    /// open on their first read.
    ///
    /// - Parameters:
    ///   - configuration: the file and options every Store of the pool opens with.
    ///   - readers: how many reads may run at once (at least 1).
    /// - Throws: `.invalidArgument` for fewer than one reader, and what `Store(configuration:)` throws.
    public init(configuration: Store.Configuration, readers: Int = 4) throws(StoreError) {
        guard readers >= 1 else { throw .invalidArgument("a StorePool needs at least one reader, not \(readers)") }
        self.configuration = configuration
        self.readers = (0..<readers).map { Lane(label: "strata.pool.reader.\($0)") }
        writer = Lane(label: "strata.pool.writer")
        pendingReads = Locked(Array(repeating: 0, count: readers))
        let writer = self.writer
        let opening: Result<Store, StoreError> = writer.queue.sync {
            Result { () throws(StoreError) in try writer.store(configuration) }
        }
        _ = try opening.get()
    }

    deinit {
        // A Store is released for the last time on its own queue (the per-queue cache relies on it).
        for lane in readers + [writer] { lane.queue.async { lane.close() } }
    }

    /// Runs `block` with a Store of one of the reader queues, moved to the newest commit first, and
    /// returns what it returns.
    ///
    /// ```swift
    /// let adults = try await pool.read { store in store.objects(Person.self).where { $0.age >= 18 }.count }
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the block starts; what opening
    ///   or refreshing the reader's Store throws (a `StoreError`); whatever `block` throws, unchanged.
    @discardableResult
    public func read<Value: Sendable>(_ block: @escaping @Sendable (Store) throws -> Value) async throws -> Value {
        let index = pendingReads.withLock { pending in
            let least = pending.indices.min { pending[$0] < pending[$1] }!
            pending[least] += 1
            return least
        }
        defer { pendingReads.withLock { $0[index] -= 1 } }
        let configuration = configuration
        return try await readers[index].run { lane in
            let store = try lane.store(configuration)
            try store.refresh()
            return try block(store)
        }
    }

    /// Runs `block` in a write transaction of the writer queue's Store and commits it, or rolls it
    /// back if `block` throws; returns what `block` returns once the commit is done (durable as the
    /// configuration's `durability` says).
    ///
    /// ```swift
    /// let id = try await pool.write { store in
    ///     let book = Book(id: 7, title: "Solaris")
    ///     try store.add(book)
    ///     return book.id
    /// }
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the block starts; what `write`
    ///   throws (`.readOnly`, `.mapFull`, `.storage`…); whatever `block` throws, unchanged (nothing of
    ///   that write is stored).
    @discardableResult
    public func write<Value: Sendable>(_ block: @escaping @Sendable (Store) throws -> Value) async throws -> Value {
        let configuration = configuration
        return try await writer.run { lane in
            let store = try lane.store(configuration)
            return try store.write { try block(store) }
        }
    }
}

/// One serial queue of a pool and the Store confined to it, which only blocks on the queue touch.
private final class Lane: @unchecked Sendable {
    let queue: DispatchQueue
    private var opened: Store?

    init(label: String) {
        queue = DispatchQueues.makeSerial(label: label)  // no probe of its kind when its Store opens
    }

    /// The queue's Store, opened on first use. Call on `queue`.
    func store(_ configuration: Store.Configuration) throws(StoreError) -> Store {
        if let opened { return opened }
        let store = try Store(configuration: configuration, queue: queue)
        opened = store
        return store
    }

    /// Releases the Store. Call on `queue`.
    func close() {
        opened = nil
    }

    /// Runs `job` on the queue; the caller's task waits without holding a thread.
    func run<Value: Sendable>(_ job: @escaping @Sendable (Lane) throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try job(self) })
            }
        }
    }
}
