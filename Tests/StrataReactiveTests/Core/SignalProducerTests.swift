import Foundation
import StrataReactive
import Testing

@Suite("SignalProducer: cold work, starting and disposing", .fixtureChecks)
struct SignalProducerTests {
    @Test("the work runs on each start, not before")
    func coldness() {
        let starts = Counter()
        let producer = SignalProducer<Int, Never> { observer, _ in
            observer.send(value: starts.increment())
            observer.sendCompleted()
        }
        #expect(starts.value == 0)
        let first = EventRecorder<Int, Never>()
        let second = EventRecorder<Int, Never>()
        first.start(producer)
        second.start(producer)
        #expect(first.descriptions == ["value 1", "completed"])
        #expect(second.descriptions == ["value 2", "completed"])
    }

    @Test("value, error, result, sequence, empty and never")
    func initialisers() {
        func events<V>(_ producer: SignalProducer<V, TestError>) -> [String] {
            let recorder = EventRecorder<V, TestError>()
            recorder.start(producer)
            return recorder.descriptions
        }
        #expect(events(SignalProducer(value: 1)) == ["value 1", "completed"])
        #expect(events(SignalProducer<Int, TestError>(error: TestError(2))) == ["failed E2"])
        #expect(events(SignalProducer<Int, TestError>(result: .success(3))) == ["value 3", "completed"])
        #expect(events(SignalProducer<Int, TestError>(result: .failure(TestError(4)))) == ["failed E4"])
        #expect(events(SignalProducer<Int, TestError>([5, 6])) == ["value 5", "value 6", "completed"])
        #expect(events(SignalProducer<Int, TestError>.empty) == ["completed"])
        #expect(events(SignalProducer<Int, TestError>.never) == [])
    }

    @Test("disposing interrupts: the observer gets interrupted, the work's lifetime ends, later events are dropped")
    func disposingInterrupts() {
        var input: Signal<Int, Never>.Observer?
        var ended = false
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            input = observer
            lifetime.observeEnded { ended = true }
        }
        let recorder = EventRecorder<Int, Never>()
        let disposable = recorder.start(producer)
        input?.send(value: 1)
        #expect(!disposable.isDisposed)
        disposable.dispose()
        input?.send(value: 2)
        disposable.dispose()
        #expect(recorder.descriptions == ["value 1", "interrupted"])
        #expect(ended)
        #expect(disposable.isDisposed)
    }

    @Test("disposing after completion changes nothing; the disposable counts as disposed")
    func disposingAfterCompletion() {
        let recorder = EventRecorder<Int, Never>()
        let disposable = recorder.start(SignalProducer(value: 1))
        #expect(disposable.isDisposed)
        disposable.dispose()
        #expect(recorder.descriptions == ["value 1", "completed"])
    }

    @Test("disposing from inside the observer interrupts after the value under delivery, without deadlock")
    func disposingFromInside() {
        let (producer, input) = pipeProducer(Int.self, Never.self)
        var disposable: Disposable?
        var log: [String] = []
        disposable = producer.start { event in
            log.append(event.description)
            if event.value == 1 { disposable?.dispose() }
        }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log == ["value 1", "interrupted"])
    }

    @Test("startWithResult, startWithFailed, startWithCompleted, startWithInterrupted, startWithValues")
    func startVariants() {
        var results: [String] = []
        SignalProducer<Int, TestError>([1]).concatFailure(TestError(5)).startWithResult { results.append("\($0)") }
        #expect(results == ["success(1)", "failure(E5)"])
        var failure: TestError?
        SignalProducer<Int, TestError>(error: TestError(6)).startWithFailed { failure = $0 }
        #expect(failure == TestError(6))
        var completed = false
        SignalProducer<Int, TestError>.empty.startWithCompleted { completed = true }
        #expect(completed)
        var interrupted = false
        SignalProducer<Int, TestError>.never.startWithInterrupted { interrupted = true }.dispose()
        #expect(interrupted)
        var values: [Int] = []
        SignalProducer<Int, Never>([7, 8]).startWithValues { values.append($0) }
        #expect(values == [7, 8])
    }

    @Test("on(…) runs each side effect before the event is forwarded, in life-cycle order")
    func sideEffects() {
        var log: [String] = []
        let producer = SignalProducer<Int, TestError>([1]).on(
            starting: { log.append("starting") }, started: { log.append("started") },
            event: { log.append("event \($0)") }, value: { log.append("value \($0)") },
            failed: { log.append("failed \($0)") }, completed: { log.append("completed") },
            interrupted: { log.append("interrupted") }, terminated: { log.append("terminated") },
            disposed: { log.append("disposed") })
        producer.start { log.append("observer \($0)") }
        #expect(
            log == [
                "starting", "event value 1", "value 1", "observer value 1", "event completed", "completed",
                "terminated", "observer completed", "disposed", "started",
            ])
        log = []
        SignalProducer<Int, TestError>.never.on(
            interrupted: { log.append("interrupted") }, disposed: { log.append("disposed") }
        )
        .start().dispose()
        #expect(log == ["interrupted", "disposed"])
    }
}

extension SignalProducer {
    /// Test helper: this producer's values, then a failure instead of completion.
    func concatFailure(_ error: Error) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            lifetime += self.start { event in
                if case .completed = event { observer.send(error: error) } else { observer.send(event) }
            }
        }
    }
}
