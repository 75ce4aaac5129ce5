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

    init(_ disposables: CompositeDisposable) {
        self.disposables = disposables
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
