import Dispatch

/// Identifies a serial queue that Stores are confined to (set as the queue's specific value).
@usableFromInline
final class QueueToken: Sendable {}

/// Where a Store may be used: the thread that opened it, a serial dispatch queue, or an actor.
@usableFromInline
enum Confinement {
    case thread(ThreadIdentity)
    case queue(QueueToken)
    /// A frozen Store: an immutable snapshot, readable from any thread.
    case frozen
    /// An actor's Store: used by the actor's code on any thread its jobs run on.
    case actor(ActorToken)

    private static let queueKey = DispatchSpecificKey<QueueToken>()

    static var currentThread: Confinement { .thread(.current) }

    /// Confinement to `queue`, which the caller must be running on.
    ///
    /// - Throws: `.wrongThread` when not called from `queue`.
    static func queue(_ queue: DispatchQueue) throws(StoreError) -> Confinement {
        let token: QueueToken
        if let existing = queue.getSpecific(key: queueKey) {
            token = existing
        } else {
            token = QueueToken()
            queue.setSpecific(key: queueKey, value: token)
        }
        guard DispatchQueue.getSpecific(key: queueKey) === token else { throw .wrongThread }
        return .queue(token)
    }

    @inlinable
    var isCurrent: Bool {
        switch self {
        case .thread(let thread): thread == .current
        case .queue(let token): Self.isCurrentQueue(token)
        case .frozen: true
        case .actor(let token): token.isCurrent
        }
    }

    @usableFromInline
    static func isCurrentQueue(_ token: QueueToken) -> Bool {
        DispatchQueue.getSpecific(key: queueKey) === token
    }

    /// Whether one thread at a time uses what is confined (not a frozen snapshot, read from any).
    var isConfinedToOneThread: Bool {
        if case .frozen = self { return false }
        return true
    }

    /// A number that identifies the thread or queue, for the per-thread Store cache.
    var identity: UInt {
        switch self {
        case .thread(let thread): thread.raw
        case .queue(let token): UInt(bitPattern: ObjectIdentifier(token).hashValue)
        case .frozen: 0
        case .actor(let token): UInt(bitPattern: ObjectIdentifier(token).hashValue)
        }
    }
}

/// What a `DispatchQueue` is, seen through the dispatch object it wraps. On Linux every access to
/// `DispatchQueue.main` (or `.global()`) makes a new wrapper, so wrappers cannot be compared with
/// `===`; and a concurrent queue cannot confine a Store (two of its blocks may run at once).
enum DispatchQueues {
    /// The dispatch object a queue wraps (on Linux, its `__wrapped` field), or nil where the wrapper
    /// is the object itself or its layout is unknown.
    private static func object(of queue: DispatchQueue) -> UnsafeRawPointer? {
        #if canImport(Darwin)
            return UnsafeRawPointer(Unmanaged.passUnretained(queue).toOpaque())
        #else
            for child in Mirror(reflecting: queue).children where child.label == "__wrapped" {
                return (child.value as? OpaquePointer).map(UnsafeRawPointer.init)
            }
            return nil
        #endif
    }

    /// The first word of a dispatch object: its class (vtable), the same for every queue of a kind.
    private static func kind(of queue: DispatchQueue) -> UInt? {
        #if canImport(Darwin)
            return nil
        #else
            object(of: queue)?.load(as: UInt.self)
        #endif
    }

    /// The kinds of queue a Store cannot be confined to: made with `.concurrent`, and the global ones.
    private static let concurrentKinds: Set<UInt> = Set(
        [DispatchQueue(label: "strata.kind.concurrent", attributes: .concurrent), DispatchQueue.global()]
            .compactMap(kind(of:)))

    /// Whether both wrap the same queue.
    static func isSame(_ a: DispatchQueue, _ b: DispatchQueue) -> Bool {
        if a === b { return true }
        guard let first = object(of: a), let second = object(of: b) else { return false }
        return first == second
    }

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        isSame(queue, .main)
    }

    /// Whether `queue` may run two blocks at once (a `.concurrent` queue, or a global one). Unknown
    /// kinds count as serial.
    static func isConcurrent(_ queue: DispatchQueue) -> Bool {
        guard let kind = kind(of: queue) else { return false }
        return concurrentKinds.contains(kind)
    }
}
