import Foundation
import StrataReactive

/// Records the events a test observes (from any thread), for assertions as strings.
final class EventRecorder<Value, Error: Swift.Error>: @unchecked Sendable {  // state under `lock`
    private let lock = NSLock()
    private var recorded: [Signal<Value, Error>.Event] = []

    var events: [Signal<Value, Error>.Event] { lock.withLock { recorded } }
    var descriptions: [String] { events.map(\.description) }
    var values: [Value] { events.compactMap(\.value) }
    var isTerminated: Bool { events.last?.isTerminating ?? false }

    var observer: Signal<Value, Error>.Observer {
        Signal.Observer { [self] event in lock.withLock { recorded.append(event) } }
    }

    /// Starts `producer` into the recorder.
    @discardableResult
    func start(_ producer: SignalProducer<Value, Error>) -> Disposable {
        producer.start(observer)
    }
}

/// A producer fed by a pipe: the test sends each event when it wants to.
func pipeProducer<Value, Error>(_ type: Value.Type = Value.self, _ error: Error.Type = Error.self)
    -> (producer: SignalProducer<Value, Error>, input: Signal<Value, Error>.Observer)
{
    let (signal, input) = Signal<Value, Error>.pipe()
    return (SignalProducer { observer, lifetime in lifetime += signal.observe(observer) }, input)
}

struct TestError: Error, Equatable, CustomStringConvertible {
    let code: Int
    init(_ code: Int) { self.code = code }
    var description: String { "E\(code)" }
}

/// Counts under a lock, for work started from several threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    @discardableResult
    func increment() -> Int { add(1) }
    @discardableResult
    func add(_ delta: Int) -> Int {
        lock.withLock {
            count += delta
            return count
        }
    }
}
