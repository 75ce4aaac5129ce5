import Foundation
import StrataReactive
import Testing

@Suite("Operators", .fixtureChecks)
struct OperatorTests {
    private func events<V, E>(_ producer: SignalProducer<V, E>) -> [String] {
        let recorder = EventRecorder<V, E>()
        recorder.start(producer)
        return recorder.descriptions
    }

    @Test("map, mapError, promoteError and filter transform values and failures")
    func transforms() {
        #expect(
            events(SignalProducer<Int, TestError>([1, 2]).map { $0 * 10 }) == ["value 10", "value 20", "completed"])
        #expect(
            events(SignalProducer<Int, TestError>(error: TestError(1)).mapError { TestError($0.code + 1) }) == [
                "failed E2"
            ])
        #expect(events(SignalProducer<Int, Never>(value: 3).promoteError(TestError.self)) == ["value 3", "completed"])
        #expect(
            events(SignalProducer<Int, Never>(1...6).filter { $0.isMultiple(of: 2) }) == [
                "value 2", "value 4", "value 6", "completed",
            ])
    }

    @Test("skip(first:) drops the first values; take(first:) completes after n and interrupts the work")
    func skipAndTake() {
        #expect(events(SignalProducer<Int, Never>(1...4).skip(first: 2)) == ["value 3", "value 4", "completed"])
        #expect(events(SignalProducer<Int, Never>(1...4).skip(first: 9)) == ["completed"])
        let upstream = EventRecorder<Int, Never>()
        let numbers = SignalProducer<Int, Never>(1...1_000_000).on(event: { upstream.observer.send($0) })
        #expect(events(numbers.take(first: 2)) == ["value 1", "value 2", "completed"])
        #expect(upstream.descriptions == ["value 1", "value 2", "interrupted"])  // it stopped at once
        let starts = Counter()
        // As in ReactiveSwift, taking none interrupts (it completed), without starting the work.
        #expect(
            events(SignalProducer<Int, Never>(value: 1).on(starting: { starts.increment() }).take(first: 0)) == [
                "interrupted"
            ])
        #expect(starts.value == 0)
    }

    @Test("scan sends every running total; prefix(value:) sends its value first")
    func scanAndPrefix() {
        #expect(
            events(SignalProducer<Int, Never>([1, 2, 3]).scan(0, +)) == ["value 1", "value 3", "value 6", "completed"])
        #expect(events(SignalProducer<Int, Never>([1]).prefix(value: 0)) == ["value 0", "value 1", "completed"])
    }

    @Test("materialize turns every event into a value then completes; dematerialize restores the events")
    func materialize() {
        let failing = SignalProducer<Int, TestError>([1]).concatFailure(TestError(3))
        #expect(events(failing.materialize().map(\.description)) == ["value value 1", "value failed E3", "completed"])
        #expect(events(failing.materialize().dematerialize()) == ["value 1", "failed E3"])
        let interrupted = EventRecorder<Signal<Int, TestError>.Event, Never>()
        let (producer, _) = pipeProducer(Int.self, TestError.self)
        let disposable = producer.on(disposed: {}).materialize().start(interrupted.observer)
        disposable.dispose()
        #expect(interrupted.descriptions == ["interrupted"])
    }

    @Test("retry(upTo:) starts again after each failure, then forwards the last one")
    func retry() {
        let attempts = Counter()
        let flaky = SignalProducer<Int, TestError> { observer, _ in
            let attempt = attempts.increment()
            if attempt < 3 {
                observer.send(error: TestError(attempt))
            } else {
                observer.send(value: attempt)
                observer.sendCompleted()
            }
        }
        #expect(events(flaky.retry(upTo: 5)) == ["value 3", "completed"])
        #expect(attempts.value == 3)
        let always = Counter()
        let failing = SignalProducer<Int, TestError> { observer, _ in
            observer.send(error: TestError(always.increment()))
        }
        #expect(events(failing.retry(upTo: 2)) == ["failed E3"])
        #expect(events(failing.retry(upTo: 0)) == ["failed E4"])
    }

    @Test("flatMapError continues with another producer")
    func flatMapError() {
        let recovered = SignalProducer<Int, TestError>([1]).concatFailure(TestError(7))
            .flatMapError { error in SignalProducer<Int, Never>(value: error.code) }
        #expect(events(recovered) == ["value 1", "value 7", "completed"])
    }

    @Test("flatMap(.merge) forwards inner values as they come and completes after outer and inners")
    func flatMapMerge() {
        let (outer, outerInput) = pipeProducer(Int.self, TestError.self)
        let inners = (0..<2).map { _ in pipeProducer(String.self, TestError.self) }
        let recorder = EventRecorder<String, TestError>()
        recorder.start(outer.flatMap(.merge) { inners[$0].producer })
        outerInput.send(value: 0)
        outerInput.send(value: 1)
        inners[1].input.send(value: "b1")
        inners[0].input.send(value: "a1")
        outerInput.sendCompleted()
        inners[0].input.sendCompleted()
        #expect(recorder.descriptions == ["value b1", "value a1"])
        inners[1].input.sendCompleted()
        #expect(recorder.descriptions == ["value b1", "value a1", "completed"])
    }

    @Test("flatMap(.concat) starts each inner after the one before completes")
    func flatMapConcat() {
        let inners = (0..<2).map { _ in pipeProducer(String.self, TestError.self) }
        let started = Counter()
        let recorder = EventRecorder<String, TestError>()
        recorder.start(
            SignalProducer<Int, TestError>([0, 1]).flatMap(.concat) { index in
                inners[index].producer.on(starting: { started.increment() })
            })
        #expect(started.value == 1)
        inners[1].input.send(value: "lost: not started yet")
        inners[0].input.send(value: "a")
        inners[0].input.sendCompleted()
        #expect(started.value == 2)
        inners[1].input.send(value: "b")
        inners[1].input.sendCompleted()
        #expect(recorder.descriptions == ["value a", "value b", "completed"])
    }

    @Test("flatMap(.latest) interrupts the previous inner; an inner failure fails the whole")
    func flatMapLatest() {
        let (outer, outerInput) = pipeProducer(Int.self, TestError.self)
        let inners = (0..<2).map { _ in pipeProducer(String.self, TestError.self) }
        let firstInner = EventRecorder<String, TestError>()
        let recorder = EventRecorder<String, TestError>()
        recorder.start(
            outer.flatMap(.latest) { index in
                index == 0 ? inners[0].producer.on(event: { firstInner.observer.send($0) }) : inners[1].producer
            })
        outerInput.send(value: 0)
        inners[0].input.send(value: "a")
        outerInput.send(value: 1)
        inners[0].input.send(value: "stale")
        inners[1].input.send(value: "b")
        #expect(firstInner.descriptions == ["value a", "interrupted"])
        inners[1].input.send(error: TestError(9))
        #expect(recorder.descriptions == ["value a", "value b", "failed E9"])
    }

    @Test("merge completes when every producer has; a failure of any fails it")
    func merge() {
        let (first, firstInput) = pipeProducer(Int.self, TestError.self)
        let (second, secondInput) = pipeProducer(Int.self, TestError.self)
        let recorder = EventRecorder<Int, TestError>()
        recorder.start(SignalProducer.merge(first, second))
        firstInput.send(value: 1)
        secondInput.send(value: 2)
        firstInput.sendCompleted()
        secondInput.send(value: 3)
        secondInput.sendCompleted()
        #expect(recorder.descriptions == ["value 1", "value 2", "value 3", "completed"])
        let failed = SignalProducer.merge([SignalProducer<Int, TestError>.never, SignalProducer(error: TestError(2))])
        #expect(events(failed) == ["failed E2"])
    }

    @Test("combineLatest waits for a value of each, then sends the latest pair on every value")
    func combineLatest() {
        let (numbers, numbersInput) = pipeProducer(Int.self, TestError.self)
        let (letters, lettersInput) = pipeProducer(String.self, TestError.self)
        let recorder = EventRecorder<String, TestError>()
        recorder.start(numbers.combineLatest(with: letters).map { "\($0)\($1)" })
        numbersInput.send(value: 1)
        numbersInput.send(value: 2)
        lettersInput.send(value: "a")
        numbersInput.send(value: 3)
        lettersInput.send(value: "b")
        numbersInput.sendCompleted()
        #expect(!recorder.isTerminated)
        lettersInput.sendCompleted()
        #expect(recorder.descriptions == ["value 2a", "value 3a", "value 3b", "completed"])
        let (failing, failingInput) = pipeProducer(Int.self, TestError.self)
        let failed = EventRecorder<(Int, Int), TestError>()
        failed.start(failing.combineLatest(with: SignalProducer<Int, TestError>.never))
        failingInput.send(error: TestError(3))
        #expect(failed.descriptions == ["failed E3"])
        let array = SignalProducer.combineLatest([
            SignalProducer<Int, Never>(value: 1), SignalProducer(value: 2), SignalProducer(value: 3),
        ])
        #expect(events(array) == ["value [1, 2, 3]", "completed"])
        #expect(events(SignalProducer<Int, Never>.combineLatest([SignalProducer<Int, Never>]())) == ["completed"])
    }

    @Test("values: an AsyncThrowingStream that finishes, throws the failure, and interrupts when the task ends")
    func asyncValues() async throws {
        var collected: [Int] = []
        for try await value in SignalProducer<Int, TestError>([1, 2, 3]).values { collected.append(value) }
        #expect(collected == [1, 2, 3])
        await #expect(throws: TestError(4)) {
            for try await _ in SignalProducer<Int, TestError>(error: TestError(4)).values {}
        }
        await #expect(throws: CancellationError.self) {
            let interruptedAtOnce = SignalProducer<Int, Never> { observer, _ in observer.sendInterrupted() }
            for try await _ in interruptedAtOnce.values {}
        }
        let interrupted = Counter()
        let endless = SignalProducer<Int, Never> { observer, lifetime in
            observer.send(value: 1)
            lifetime.observeEnded { interrupted.increment() }
        }
        for try await value in endless.values {
            #expect(value == 1)
            break
        }
        let deadline = Date().addingTimeInterval(10)
        while interrupted.value == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(interrupted.value == 1)
    }
}
