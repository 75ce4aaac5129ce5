import Foundation

/// A disposable that runs an action when disposed.
public final class AnyDisposable: Disposable, @unchecked Sendable {  // `action` is taken under `lock`
    private let lock = NSLock()
    private var action: (() -> Void)?
    private var disposed = false

    /// A disposable with nothing to clean up.
    public convenience init() {
        self.init {}
    }

    /// A disposable that runs `action` on the first `dispose()`.
    public init(_ action: @escaping () -> Void) {
        self.action = action
    }

    /// Whether `dispose()` has run.
    public var isDisposed: Bool {
        lock.withLock { disposed }
    }

    /// Runs the action, once.
    public func dispose() {
        let taken: (() -> Void)? = lock.withLock {
            disposed = true
            defer { action = nil }
            return action
        }
        taken?()
    }
}
