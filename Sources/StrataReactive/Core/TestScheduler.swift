import Foundation

/// A scheduler with a virtual clock: nothing runs until the test advances it, and then everything due
/// runs on the calling thread, in date order (and in scheduling order for equal dates).
///
/// ```swift
/// let scheduler = TestScheduler()
/// var seen: [Int] = []
/// SignalProducer(value: 1).delay(2, on: scheduler).startWithValues { seen.append($0) }
/// scheduler.advance(by: .seconds(1))   // seen == []
/// scheduler.advance(by: .seconds(1))   // seen == [1]
/// ```
public final class TestScheduler: DateScheduler, @unchecked Sendable {  // state under `lock`
    private struct Entry {
        let date: Date
        let sequence: UInt64
        let action: CancellableAction
    }

    private let lock = NSRecursiveLock()
    private var now: Date
    private var entries: [Entry] = []
    private var sequence: UInt64 = 0

    /// A scheduler whose clock starts at `startDate`.
    public init(startDate: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        now = startDate
    }

    /// The virtual clock: it moves only when the test advances it.
    public var currentDate: Date { lock.withLock { now } }

    /// How many actions are waiting (cancelled ones not counted).
    public var pendingActions: Int { lock.withLock { entries.count { !$0.action.isDisposed } } }

    /// Whether no action is waiting.
    public var isIdle: Bool { pendingActions == 0 }

    /// Queues `action` at the current virtual time: it runs on the next `advance()` or `run()`.
    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        schedule(after: currentDate, action: action)
    }

    /// Queues `action` at virtual time `date`: it runs once the scheduler is advanced to it.
    @discardableResult
    public func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
        let work = CancellableAction(action)
        lock.withLock {
            sequence += 1
            entries.append(Entry(date: date, sequence: sequence, action: work))
        }
        return work
    }

    /// Runs what is due now, without moving the clock.
    public func advance() {
        advance(to: currentDate)
    }

    /// Moves the clock forward by `interval`, running everything due on the way.
    public func advance(by interval: DispatchTimeInterval) {
        advance(by: interval.timeInterval)
    }

    /// Moves the clock forward by `seconds`, running everything due on the way.
    public func advance(by seconds: TimeInterval) {
        advance(to: currentDate.addingTimeInterval(seconds))
    }

    /// Moves the clock to `date`, running everything due on the way (actions they schedule included),
    /// each with the clock at its own date.
    public func advance(to date: Date) {
        while let next = takeNext(dueBy: date) {
            next.run()
        }
        lock.withLock { now = max(now, date) }
    }

    /// Runs everything scheduled (what it schedules too), each with the clock at its date, then moves
    /// the clock to the distant future, as ReactiveSwift's does.
    public func run() {
        advance(to: .distantFuture)
    }

    private func takeNext(dueBy date: Date) -> CancellableAction? {
        lock.withLock {
            guard
                let index = entries.indices.filter({ entries[$0].date <= date })
                    .min(by: { (entries[$0].date, entries[$0].sequence) < (entries[$1].date, entries[$1].sequence) })
            else { return nil }
            let entry = entries.remove(at: index)
            now = max(now, entry.date)
            return entry.action
        }
    }
}

extension DispatchTimeInterval {
    /// The interval in seconds (`.never` as infinity).
    var timeInterval: TimeInterval {
        switch self {
        case .seconds(let value): TimeInterval(value)
        case .milliseconds(let value): TimeInterval(value) / 1_000
        case .microseconds(let value): TimeInterval(value) / 1_000_000
        case .nanoseconds(let value): TimeInterval(value) / 1_000_000_000
        case .never: .infinity
        @unknown default: .infinity
        }
    }
}
