import Dispatch
import Foundation

/// Where work runs: `start(on:)` and `observe(on:)` take one.
///
/// - Warning: A scheduler that runs actions on another thread moves the values with them; values
///   confined to a thread (Strata objects, Results) must not cross that way: hand them over with a
///   `ThreadSafeReference`, or use the Store wrapper's `.background` context, which does.
public protocol Scheduler: AnyObject, Sendable {
    /// Runs `action` (now, or later); the result cancels it if it has not run yet.
    @discardableResult
    func schedule(_ action: @escaping () -> Void) -> Disposable?
}

/// A scheduler that knows the time and can run actions at a later date.
public protocol DateScheduler: Scheduler {
    /// The scheduler's clock (virtual for `TestScheduler`).
    var currentDate: Date { get }

    /// Runs `action` at `date` (or soon after); the result cancels it if it has not run yet.
    @discardableResult
    func schedule(after date: Date, action: @escaping () -> Void) -> Disposable?
}

/// Runs every action at once, on the calling thread.
public final class ImmediateScheduler: Scheduler {
    /// A scheduler that runs each action inside `schedule`.
    public init() {}

    /// Runs `action` now, before returning (nothing is left to cancel).
    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        action()
        return nil
    }
}

/// Runs actions on a serial dispatch queue, in the order they were scheduled.
///
/// ```swift
/// producer.observe(on: QueueScheduler.main).startWithValues { label.text = $0 }
/// ```
public final class QueueScheduler: DateScheduler {
    /// The main queue: actions run on the main thread (once it drains its queue: a run loop,
    /// `dispatchMain()`, or XCTest's `wait(for:timeout:)`).
    public static let main = QueueScheduler(queue: .main)

    /// The serial queue actions run on.
    public let queue: DispatchQueue

    /// A scheduler on `queue`, which must be serial.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// A scheduler on a new serial queue.
    public convenience init(qos: DispatchQoS = .default, name: String = "strata.reactive.queue-scheduler") {
        self.init(queue: DispatchQueue(label: name, qos: qos))
    }

    /// The wall clock.
    public var currentDate: Date { Date() }

    /// Runs `action` on the queue, asynchronously; the disposable cancels it if it has not run.
    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        let work = CancellableAction(action)
        queue.async { work.run() }
        return work
    }

    /// Runs `action` at `date` or soon after; the disposable cancels it if it has not run.
    @discardableResult
    public func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
        let work = CancellableAction(action)
        let delay = max(0, date.timeIntervalSinceNow)
        queue.asyncAfter(wallDeadline: .now() + delay) { work.run() }
        return work
    }
}

/// An action that runs once, unless disposed first; carries it to the thread that runs it.
final class CancellableAction: Disposable, @unchecked Sendable {  // the action is taken under `lock`
    private let lock = NSLock()
    private var action: (() -> Void)?

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    var isDisposed: Bool { lock.withLock { action == nil } }

    func dispose() {
        lock.withLock { action = nil }
    }

    func run() {
        let taken: (() -> Void)? = lock.withLock {
            defer { action = nil }
            return action
        }
        taken?()
    }
}
