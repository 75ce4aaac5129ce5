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
