import Foundation
import Strata
import StrataReactive
import StrataTestSupport
import XCTest

@testable import StrataReactive

/// XCTest runs its methods on the main thread, and `wait(for:timeout:)` drains the main queue: the
/// reactive writes' main-thread contract is tested here, on the real main thread.
class ReactiveTestCase: XCTestCase {
    /// What a started producer sent, and on which thread each event arrived.
    final class Outcome<Value>: @unchecked Sendable {  // written and read on the main thread
        var events: [Signal<Value, StoreError>.Event] = []
        var offMainEvents = 0
        var disposable: Disposable?

        var descriptions: [String] { events.map(\.description) }
        var error: StoreError? { events.last?.error }
        var isTerminated: Bool { events.last?.isTerminating ?? false }
    }

    /// Starts `producer` and waits (spinning the main queue) until it terminates.
    @discardableResult
    func run<Value>(_ producer: SignalProducer<Value, StoreError>, timeout: TimeInterval = 10) -> Outcome<Value> {
        let outcome = start(producer)
        waitUntil(timeout: timeout) { outcome.isTerminated }
        return outcome
    }

    /// Starts `producer`, recording its events, without waiting.
    func start<Value>(_ producer: SignalProducer<Value, StoreError>) -> Outcome<Value> {
        let outcome = Outcome<Value>()
        outcome.disposable = producer.start { event in
            if !Thread.isMainThread { outcome.offMainEvents += 1 }
            outcome.events.append(event)
        }
        return outcome
    }

    /// Spins the main run loop until `condition` holds (failing after `timeout`).
    func waitUntil(
        timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
    ) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out", file: file, line: line) }
            RunLoop.main.run(until: Date().addingTimeInterval(0.002))
        }
    }

    /// Runs every block enqueued on the main queue so far.
    func drainMainQueue() {
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 10)
    }

    /// Holds the background writers' queue until the returned closure is called.
    func holdBackgroundQueue() -> () -> Void {
        let gate = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        ReactiveWrite.backgroundQueue.async {
            held.signal()
            gate.wait()
        }
        held.wait()
        return {
            gate.signal()
            ReactiveWrite.backgroundQueue.sync {}
        }
    }
}
