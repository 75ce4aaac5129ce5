import Foundation
import Strata
import StrataReactive

// The single-source-of-truth pattern (Docs/Guides/SingleSourceOfTruth.md): what a screen shows comes
// only from the store; syncing writes the remote's data into the store, in the background, and
// reports nothing but its failures.

public final class Todo: Object {
    @Persisted(primaryKey: true) public var id: String
    @Persisted public var title: String
    @Persisted public var done: Bool

    public convenience init(_ remote: RemoteTodo) {
        self.init()
        id = remote.id
        title = remote.title
        done = remote.done
    }
}

/// A todo as the remote sends it.
public struct RemoteTodo: Sendable {
    public let id: String
    public let title: String
    public var done = false

    public init(id: String, title: String, done: Bool = false) {
        self.id = id
        self.title = title
        self.done = done
    }
}

public enum SyncError: Error, Equatable {
    case remote(String)
    case storage(StoreError)
}

/// A stand-in for the network: the test decides what the next fetch answers, and when.
public final class FakeTodoAPI: @unchecked Sendable {  // used from the main thread only
    /// What the next fetch answers (by default: no todos, from a background queue).
    public var next: SignalProducer<[RemoteTodo], SyncError> = FakeTodoAPI.answer([])
    public private(set) var fetchCount = 0

    public init() {}

    public func fetchTodos() -> SignalProducer<[RemoteTodo], SyncError> {
        let response = next
        return SignalProducer { [self] observer, lifetime in
            fetchCount += 1
            lifetime += response.start(observer)
        }
    }

    /// An answer that arrives on a background queue, as a network response would.
    public static func answer(_ todos: [RemoteTodo]) -> SignalProducer<[RemoteTodo], SyncError> {
        SignalProducer(value: todos).start(on: QueueScheduler(name: "fake-network"))
    }

    public static func failure(_ message: String) -> SignalProducer<[RemoteTodo], SyncError> {
        SignalProducer(error: .remote(message)).start(on: QueueScheduler(name: "fake-network"))
    }
}

/// Lets one piece of work run at a time: starting another while one runs completes at once.
public final class SyncLimiter: @unchecked Sendable {  // `running` is only touched under `lock`
    private let lock = NSLock()
    private var running = false

    /// Whether some work is running.
    public var isRunning: Bool { lock.withLock { running } }

    public init() {}

    public func limit<Value, Error>(_ work: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        SignalProducer { [self] observer, lifetime in
            let acquired = lock.withLock {
                defer { running = true }
                return !running
            }
            guard acquired else { return observer.sendCompleted() }
            lifetime.observeEnded { self.lock.withLock { self.running = false } }
            lifetime += work.start(observer)
        }
    }
}

/// What a screen of todos is told.
public enum TodoFeed {
    case todos(CollectionChange<Results<Todo>>)
    case syncFailed(SyncError)
}

public final class TodoRepository {
    public let store: Store
    public let api: FakeTodoAPI
    private let limiter = SyncLimiter()
    private let (syncRequests, requestInput) = Signal<Void, Never>.pipe()

    /// - Warning: `store` must be the main thread's: reactive writes start there.
    public init(store: Store, api: FakeTodoAPI) {
        self.store = store
        self.api = api
    }

    /// The todos, by title: from the store, and nothing else.
    public func todos() -> SignalProducer<CollectionChange<Results<Todo>>, StoreError> {
        store.reactive.objects(Todo.self).flatMap(.latest) { $0.sorted(by: \.title).reactive.changes }
    }

    /// Fetches the remote's todos and writes them in the background. Sends no value: the new data
    /// reaches screens through `todos()`. At most one sync runs at a time.
    public func sync() -> SignalProducer<Never, SyncError> {
        let store = self.store
        let work = api.fetchTodos()
            .observe(on: QueueScheduler.main)  // reactive writes start on the main thread
            .flatMap(.latest) { remote in
                remote.map(Todo.init).reactive.add(to: store, update: .modified, on: .background)
                    .mapError(SyncError.storage)
            }
            .flatMap(.concat) { _ in SignalProducer<Never, SyncError>.empty }
        return limiter.limit(work)
    }

    /// Whether a sync is running (a sync requested meanwhile is dropped: the running one fetches).
    public var isSyncing: Bool { limiter.isRunning }

    /// Asks for a sync; its failure arrives through `observe()`.
    public func requestSync() {
        requestInput.send(value: ())
    }

    /// The store's todos, merged with the failures of the syncs (the first one starts now). A failed
    /// sync is reported as a value, so the observation goes on.
    public func observe() -> SignalProducer<TodoFeed, StoreError> {
        let requests = SignalProducer<Void, Never> { [syncRequests] observer, lifetime in
            lifetime += syncRequests.observe(observer)
        }
        let syncFailures = requests.prefix(value: ())
            .flatMap(.merge) { [self] in sync().materialize() }
            .flatMap(.merge) { event in
                event.error.map { SignalProducer<TodoFeed, Never>(value: .syncFailed($0)) } ?? .empty
            }
        return SignalProducer.merge(todos().map(TodoFeed.todos), syncFailures.promoteError(StoreError.self))
    }
}
