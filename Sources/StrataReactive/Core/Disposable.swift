import Foundation

/// Something that can be cancelled or cleaned up, once: disposing twice does nothing more.
///
/// ```swift
/// let disposable = producer.startWithValues { print($0) }
/// disposable.dispose()   // interrupts the producer's work
/// ```
/// - Warning: `dispose()` may be called from any thread; the cleanup runs on the calling thread.
public protocol Disposable: AnyObject, Sendable {
    /// Whether `dispose()` has run (or, for a started producer, whether its work has ended).
    var isDisposed: Bool { get }
    /// Cancels the work or releases the resource; later calls do nothing.
    func dispose()
}

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

/// Disposes many disposables together. One added after disposal is disposed at once.
///
/// ```swift
/// let bag = CompositeDisposable()
/// bag += producer.start()
/// bag.dispose()
/// ```
public final class CompositeDisposable: Disposable, @unchecked Sendable {  // state under `lock`
    private let lock = NSLock()
    private var disposables: [UInt64: Disposable]? = [:]
    private var nextToken: UInt64 = 0

    /// An empty composite.
    public init() {}

    /// Whether `dispose()` has run.
    public var isDisposed: Bool {
        lock.withLock { disposables == nil }
    }

    /// Adds a disposable; the result removes it again (without disposing it).
    @discardableResult
    public func add(_ disposable: Disposable?) -> Disposable? {
        guard let disposable, !disposable.isDisposed else { return nil }
        let token: UInt64? = lock.withLock {
            guard disposables != nil else { return nil }
            nextToken += 1
            disposables![nextToken] = disposable
            return nextToken
        }
        guard let token else {
            disposable.dispose()
            return nil
        }
        return AnyDisposable { [weak self] in
            guard let self else { return }
            lock.withLock { _ = disposables?.removeValue(forKey: token) }
        }
    }

    /// Adds an action run on disposal.
    @discardableResult
    public func add(_ action: @escaping () -> Void) -> Disposable? {
        add(AnyDisposable(action))
    }

    /// Disposes everything added, in the order it was added.
    public func dispose() {
        let taken = lock.withLock {
            defer { disposables = nil }
            return disposables
        }
        for (_, disposable) in (taken ?? [:]).sorted(by: { $0.key < $1.key }) { disposable.dispose() }
    }

    /// `add(_:)`, as an operator.
    public static func += (composite: CompositeDisposable, disposable: Disposable?) {
        composite.add(disposable)
    }
}

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
