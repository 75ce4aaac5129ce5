import Foundation

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
    /// was scheduled before it.
    ///
    /// ```swift
    /// api.fetchTodos().observe(on: QueueScheduler.main).startWithResult { render($0) }
    /// ```
    public func observe(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            let (upstream, upstreamToken) = Lifetime.make()
            lifetime.routeInterruption { upstreamToken.dispose() }
            lifetime.observeEnded { upstreamToken.dispose() }
            self.start(
                Signal.Observer { event in scheduler.schedule { observer.send(event) } }, interruptedBy: upstream)
        }
    }

    /// Delays values and completion by `interval` on `scheduler`; a failure or an interruption is
    /// delivered on `scheduler` without delay.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        precondition(interval >= 0, "delay needs a non-negative interval")
        return relay { observer, _ in
            { event in
                switch event {
                case .failed, .interrupted:
                    scheduler.schedule { observer.send(event) }
                case .value, .completed:
                    scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(interval)) {
                        observer.send(event)
                    }
                }
            }
        }
    }
}
