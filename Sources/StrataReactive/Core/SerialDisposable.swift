import Foundation

/// Holds one disposable at a time: setting another disposes the one before.
public final class SerialDisposable: Disposable, @unchecked Sendable {  // state under `lock`
    private let lock = NSLock()
    private var current: Disposable?
    private var disposed = false

    /// A serial disposable holding `disposable`, if any.
    public init(_ disposable: Disposable? = nil) {
        current = disposable
    }

    /// Whether `dispose()` has run.
    public var isDisposed: Bool {
        lock.withLock { disposed }
    }

    /// The disposable held; setting one after disposal disposes it at once.
    public var inner: Disposable? {
        get { lock.withLock { current } }
        set {
            let (previous, refused): (Disposable?, Bool) = lock.withLock {
                guard !disposed else { return (nil, true) }
                defer { current = newValue }
                return (current, false)
            }
            previous?.dispose()
            if refused { newValue?.dispose() }
        }
    }

    /// Disposes the disposable held; any set later is disposed at once.
    public func dispose() {
        let taken: Disposable? = lock.withLock {
            disposed = true
            defer { current = nil }
            return current
        }
        taken?.dispose()
    }
}
