import Dispatch

/// Identifies a serial queue that Stores are confined to (set as the queue's specific value).
@usableFromInline
final class QueueToken: Sendable {}

/// Where a Store may be used: the thread that opened it, or a serial dispatch queue.
@usableFromInline
enum Confinement {
    case thread(ThreadIdentity)
    case queue(QueueToken)
    /// A frozen Store: an immutable snapshot, readable from any thread.
    case frozen

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
        }
    }

    @usableFromInline
    static func isCurrentQueue(_ token: QueueToken) -> Bool {
        DispatchQueue.getSpecific(key: queueKey) === token
    }

    /// A number that identifies the thread or queue, for the per-thread Store cache.
    var identity: UInt {
        switch self {
        case .thread(let thread): thread.raw
        case .queue(let token): UInt(bitPattern: ObjectIdentifier(token).hashValue)
        case .frozen: 0
        }
    }
}
