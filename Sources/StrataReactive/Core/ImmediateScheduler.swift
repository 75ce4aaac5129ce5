import Dispatch
import Foundation

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
