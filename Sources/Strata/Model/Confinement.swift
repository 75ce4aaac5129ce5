import Dispatch
import Foundation

/// Identifies a dispatch queue that Stores are confined to or deliver on: set as the queue's
/// specific value (the public way to recognise a queue: on Linux every access to
/// `DispatchQueue.main` or `.global()` makes a new wrapper, so wrappers cannot be compared with `===`).
@usableFromInline
final class QueueToken: Sendable {
    /// Whether the queue may run two blocks at once, once known: marked for the global queues,
    /// learned for others when a Store is first opened on them (`DispatchQueues.learnKind`).
    let kind: Locked<DispatchQueues.Kind?>

    init(kind: DispatchQueues.Kind?) { self.kind = Locked(kind) }
}

/// Where a Store may be used: the thread that opened it, a serial dispatch queue, or an actor.
@usableFromInline
enum Confinement {
    case thread(ThreadIdentity)
    case queue(QueueToken)
    /// A frozen Store: an immutable snapshot, readable from any thread.
    case frozen
    /// An actor's Store: used by the actor's code on any thread its jobs run on.
    case actor(ActorToken)

    static var currentThread: Confinement { .thread(.current) }

    /// Confinement to `queue`, which the caller must be running on.
    ///
    /// - Throws: `.wrongThread` when not called from `queue`.
    static func queue(_ queue: DispatchQueue) throws(StoreError) -> Confinement {
        let token = DispatchQueues.token(of: queue)
        guard isCurrentQueue(token) else { throw .wrongThread }
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
        DispatchQueue.getSpecific(key: DispatchQueues.tokenKey) === token
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

/// What a `DispatchQueue` is, told through public Dispatch API only: each queue Strata meets gets a
/// `QueueToken` as its specific value, and a queue's kind is marked (the global queues) or learned
/// by watching it run a block (`learnKind`). Dispatch has no public question "is this queue
/// serial?"; Docs/Concurrency.md says what the probe gives and where it cannot answer.
enum DispatchQueues {
    enum Kind: Sendable {
        case serial
        /// A queue made with `.concurrent`, or a global one: two of its blocks may run at once.
        case concurrent
    }

    static let tokenKey = DispatchSpecificKey<QueueToken>()
    /// Makes getting or setting a queue's token one step (two threads meeting a new queue agree).
    private static let tokensLock = NSLock()

    /// The main queue's token, and the global queues' (marked concurrent), set once.
    private static let marked: QueueToken = {
        for qos in [
            DispatchQoS.QoSClass.background, .utility, .default, .userInitiated, .userInteractive, .unspecified,
        ] {
            _ = token(of: .global(qos: qos), kind: .concurrent)
        }
        return token(of: .main, kind: .serial)
    }()

    /// The token of `queue`, set on it the first time.
    static func token(of queue: DispatchQueue) -> QueueToken {
        _ = marked
        return token(of: queue, kind: nil)
    }

    private static func token(of queue: DispatchQueue, kind: Kind?) -> QueueToken {
        // An NSLock, not `Locked<Void>`: ThreadSanitizer reports the inout access to a zero-sized state.
        tokensLock.lock()
        defer { tokensLock.unlock() }
        if let existing = queue.getSpecific(key: tokenKey) { return existing }
        let token = QueueToken(kind: kind)
        queue.setSpecific(key: tokenKey, value: token)
        return token
    }

    /// A serial queue made by Strata: its kind is known, so the first Store opened on it does not
    /// probe it (`learnKind`).
    static func makeSerial(label: String, qos: DispatchQoS = .unspecified) -> DispatchQueue {
        let queue = DispatchQueue(label: label, qos: qos)
        _ = marked
        _ = token(of: queue, kind: .serial)
        return queue
    }

    /// Whether both are the same queue.
    static func isSame(_ a: DispatchQueue, _ b: DispatchQueue) -> Bool {
        a === b || token(of: a) === token(of: b)
    }

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        token(of: queue) === marked
    }

    /// Whether `queue` is known to run two blocks at once (a global queue, or one `learnKind` saw do
    /// it). A queue not yet probed counts as serial.
    static func isConcurrent(_ queue: DispatchQueue) -> Bool {
        token(of: queue).kind.withLock { $0 } == .concurrent
    }

    /// How long `learnKind` waits for its block to run beside the caller's, once its thread runs.
    static let probeWait = DispatchTimeInterval.milliseconds(50)

    /// Learns the kind of `queue` once, from a block running on it (the caller's): a thread of its
    /// own calls `queue.sync` with a block. On a concurrent queue that block runs at once, on that
    /// thread, beside the caller's (no thread of Dispatch's pool is needed, so a busy pool cannot
    /// delay it); on a serial queue it waits for the caller's block to end. Once that thread runs, the
    /// caller waits up to `probeWait` for the block (a serial queue waits it all, once per queue; the
    /// probing thread then runs its empty block after the caller's and ends). Only a thread kept from
    /// running for that long after it started makes a concurrent queue count as serial.
    ///
    /// - Returns: the queue's kind.
    @discardableResult
    static func learnKind(ofCurrent queue: DispatchQueue) -> Kind {
        let token = token(of: queue)
        if let known = token.kind.withLock({ $0 }) { return known }
        let started = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        let probe = Thread {
            started.signal()
            queue.sync { _ = ran.signal() }
        }
        probe.name = "strata.queue-kind"
        probe.start()
        // The wait counts from the probing thread's start: a loaded machine can be slow to run a new
        // thread, not to run a block inline on a thread that runs.
        _ = started.wait(timeout: .now() + .seconds(5))
        let kind: Kind = ran.wait(timeout: .now() + probeWait) == .success ? .concurrent : .serial
        return token.kind.withLock { known in
            if known == nil { known = kind }
            return known!
        }
    }
}
