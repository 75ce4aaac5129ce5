import Foundation
import Synchronization

extension SignalProducer {
    /// Starts the work on `scheduler` (the start handler runs there); disposing before then means it
    /// never starts.
    public func start(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            lifetime += scheduler.schedule {
                guard !lifetime.hasEnded else { return }
                self.start(observer, interruptedBy: lifetime)
            }
        }
    }

    /// Delivers every event on `scheduler`, in order. Disposing interrupts the upstream work, and its
    /// `.interrupted` arrives through `scheduler` like any event (as in ReactiveSwift), after what
    /// was scheduled before it; when the upstream had ended already, the end still on its way
    /// arrives as `.interrupted` instead.
    ///
    /// ```swift
    /// api.fetchTodos().observe(on: QueueScheduler.main).startWithResult { render($0) }
    /// ```
    public func observe(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            let (upstream, disposal) = AsyncDisposal.route(lifetime)
            self.start(
                Signal.Observer { event in scheduler.schedule { observer.send(disposal.adjusted(event)) } },
                interruptedBy: upstream)
        }
    }

    /// Delays values and completion by `interval` on `scheduler`; a failure or an interruption is
    /// delivered on `scheduler` without delay. Disposing delivers `.interrupted` on `scheduler`, at
    /// once, even when the upstream had ended already.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        precondition(interval >= 0, "delay needs a non-negative interval")
        return SignalProducer { observer, lifetime in
            let (upstream, disposal) = AsyncDisposal.route(lifetime) {
                scheduler.schedule { observer.sendInterrupted() }  // not held back by a pending end
            }
            self.start(
                Signal.Observer { event in
                    switch event {
                    case .failed, .interrupted:
                        scheduler.schedule { observer.send(disposal.adjusted(event)) }
                    case .value, .completed:
                        scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(interval)) {
                            observer.send(disposal.adjusted(event))
                        }
                    }
                }, interruptedBy: upstream)
        }
    }
}

/// What an asynchronous operator (`observe(on:)`, `delay`) keeps per start: whether its consumer
/// disposed it. The upstream runs in a lifetime of its own, interrupted by the disposal; an end the
/// upstream sent before the disposal and that is still on its way arrives as `.interrupted`, so that
/// disposing always ends in `.interrupted` through the scheduler, as ReactiveSwift specifies.
private final class AsyncDisposal: Sendable {
    private let isDisposed = Atomic<Bool>(false)

    /// The upstream's lifetime, ended by `lifetime`'s interruption (then `alsoOnDisposal` runs) or end.
    static func route(_ lifetime: Lifetime, alsoOnDisposal: @escaping @Sendable () -> Void = {})
        -> (upstream: Lifetime, disposal: AsyncDisposal)
    {
        let (upstream, upstreamToken) = Lifetime.make()
        let disposal = AsyncDisposal()
        lifetime.routeInterruption {
            disposal.isDisposed.store(true, ordering: .sequentiallyConsistent)
            upstreamToken.dispose()
            alsoOnDisposal()
        }
        lifetime.observeEnded { upstreamToken.dispose() }
        return (upstream, disposal)
    }

    /// `event`, or `.interrupted` for an end that arrives after the disposal.
    func adjusted<Value, Error>(_ event: Signal<Value, Error>.Event) -> Signal<Value, Error>.Event {
        guard isDisposed.load(ordering: .sequentiallyConsistent) else { return event }
        switch event {
        case .completed, .failed: return .interrupted
        case .value, .interrupted: return event
        }
    }
}
