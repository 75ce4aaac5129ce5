import Dispatch
import Foundation

/// Runs actions on a serial dispatch queue, in the order they were scheduled.
///
/// ```swift
/// producer.observe(on: QueueScheduler.main).startWithValues { label.text = $0 }
/// ```
public final class QueueScheduler: DateScheduler {
    /// The main queue: actions run on the main thread (once it drains its queue: a run loop,
    /// `dispatchMain()`, or XCTest's `wait(for:timeout:)`).
    public static let main = QueueScheduler(queue: .main)

    /// The serial queue actions run on.
    public let queue: DispatchQueue

    /// A scheduler on `queue`, which must be serial.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// A scheduler on a new serial queue.
    public convenience init(qos: DispatchQoS = .default, name: String = "strata.reactive.queue-scheduler") {
        self.init(queue: DispatchQueue(label: name, qos: qos))
    }

    /// The wall clock.
    public var currentDate: Date { Date() }

    /// Runs `action` on the queue, asynchronously; the disposable cancels it if it has not run.
    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        let work = CancellableAction(action)
        queue.async { work.run() }
        return work
    }

    /// Runs `action` at `date` or soon after; the disposable cancels it if it has not run.
    @discardableResult
    public func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
        let work = CancellableAction(action)
        let delay = max(0, date.timeIntervalSinceNow)
        queue.asyncAfter(wallDeadline: .now() + delay) { work.run() }
        return work
    }
}
