import Foundation

/// How long some work may go on: it ends once, and everything observing the end is told then.
///
/// A producer's start handler receives the lifetime of the signal it feeds: it ends when that signal
/// terminates (including by interruption), which is the moment to stop work and free resources.
///
/// ```swift
/// SignalProducer<Int, Never> { observer, lifetime in
///     let timer = startTimer { observer.send(value: $0) }
///     lifetime.observeEnded { timer.cancel() }
/// }
/// ```
public final class Lifetime: Sendable {
    private let disposables: CompositeDisposable
    /// What disposing the producer's `start` does instead of interrupting its signal at once, when the
    /// start handler routes interruption through its own work (`observe(on:)`).
    private let interruption = InterruptionRoute()

    init(_ disposables: CompositeDisposable) {
        self.disposables = disposables
    }

    /// Routes an interruption requested by disposal through `interrupt` instead of sending
    /// `.interrupted` to the signal at once: `interrupt` must make the work send it (`observe(on:)`
    /// interrupts its upstream, whose `.interrupted` then arrives through the scheduler).
    func routeInterruption(_ interrupt: @escaping @Sendable () -> Void) {
        interruption.set(interrupt)
    }

    /// The route set by `routeInterruption`, taken (it runs once).
    func takeInterruptionRoute() -> (@Sendable () -> Void)? {
        interruption.take()
    }

    /// `+=`, returning what removes `disposable` again without disposing it.
    @discardableResult
    func add(_ disposable: Disposable?) -> Disposable? {
        disposables.add(disposable)
    }

    /// Whether the lifetime has ended.
    public var hasEnded: Bool { disposables.isDisposed }

    /// Runs `action` when the lifetime ends (at once, if it has). The result cancels the observation.
    @discardableResult
    public func observeEnded(_ action: @escaping () -> Void) -> Disposable? {
        disposables.add(action)
    }

    /// Disposes `disposable` when the lifetime ends (at once, if it has).
    public static func += (lifetime: Lifetime, disposable: Disposable?) {
        lifetime.disposables.add(disposable)
    }

    /// A lifetime, and the token whose deinitialisation ends it: keep the token in an object to tie
    /// work to the object's life.
    public static func make() -> (lifetime: Lifetime, token: Token) {
        let token = Token()
        return (Lifetime(token.disposables), token)
    }

    /// A lifetime that has ended already.
    public static var empty: Lifetime {
        let disposables = CompositeDisposable()
        disposables.dispose()
        return Lifetime(disposables)
    }

    /// Ends its lifetime when deinitialised, or when `dispose()` is called.
    public final class Token: Sendable {
        fileprivate let disposables = CompositeDisposable()

        /// Ends the lifetime now, instead of at deinitialisation.
        public func dispose() {
            disposables.dispose()
        }

        deinit {
            disposables.dispose()
        }
    }
}

/// The interruption route of a `Lifetime`, under a lock (set on the starting thread, taken on the
/// disposing one).
private final class InterruptionRoute: @unchecked Sendable {  // `action` only under `lock`
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?

    func set(_ action: @escaping @Sendable () -> Void) {
        lock.withLock { self.action = action }
    }

    func take() -> (@Sendable () -> Void)? {
        lock.withLock {
            defer { action = nil }
            return action
        }
    }
}
