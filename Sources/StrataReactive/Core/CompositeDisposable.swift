import Foundation

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
