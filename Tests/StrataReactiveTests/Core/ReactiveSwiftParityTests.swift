import Foundation
import StrataReactive
import Testing

/// StrataReactive behaves as ReactiveSwift's own specs say, where it differed.
@Suite("ReactiveSwift parity", .fixtureChecks)
struct ReactiveSwiftParityTests {
    private func events<V, E>(_ producer: SignalProducer<V, E>) -> [String] {
        let recorder = EventRecorder<V, E>()
        recorder.start(producer)
        return recorder.descriptions
    }

    /// Flattens 10,000 inner producers that each complete at once, queued behind one that completes
    /// later; returns the values received.
    static func flattenManySynchronousProducers(_ strategy: FlattenStrategy) -> Int {
        let (first, input) = pipeProducer(Int.self, Never.self)
        let inner = [first] + (1...10_000).map { SignalProducer<Int, Never>(value: $0) }
        var received = 0
        var completed = false
        SignalProducer<SignalProducer<Int, Never>, Never>(inner).flatten(strategy).start { event in
            switch event {
            case .value: received += 1
            case .completed: completed = true
            default: break
            }
        }
        input.sendCompleted()  // under .concat, the 10,000 queued producers run now, one after another
        return completed ? received : -1
    }

    @Test(
        "flatten over 10,000 producers that complete at once does not recurse per producer",
        arguments: [
            "concat", "merge", "latest",
        ])
    func flattenIsIterative(strategy: String) async {
        // In a child process, on a thread with a 1 MiB stack: .concat overflowed it and crashed.
        await #expect(processExitsWith: .success) {
            [strategy] in
            let strategies: [String: FlattenStrategy] = ["concat": .concat, "merge": .merge, "latest": .latest]
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                precondition(ReactiveSwiftParityTests.flattenManySynchronousProducers(strategies[strategy]!) == 10_000)
                done.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
            done.wait()
        }
    }

    @Test("an interrupted inner producer counts as completed; the flattened producer goes on")
    func innerInterruptionIsCompletion() {
        let interruptedInner = SignalProducer<Int, Never> { observer, _ in
            observer.send(value: 1)
            observer.sendInterrupted()
        }
        let inners = SignalProducer<SignalProducer<Int, Never>, Never>([interruptedInner, SignalProducer(value: 2)])
        #expect(events(inners.flatten(.concat)) == ["value 1", "value 2", "completed"])
        #expect(events(inners.flatten(.merge)) == ["value 1", "value 2", "completed"])
        #expect(events(inners.flatten(.latest)) == ["value 1", "value 2", "completed"])
        // The outer producer's interruption still interrupts.
        let (outer, input) = pipeProducer(SignalProducer<Int, Never>.self, Never.self)
        let recorder = EventRecorder<Int, Never>()
        recorder.start(outer.flatten(.merge))
        input.send(value: SignalProducer(value: 3))
        input.sendInterrupted()
        #expect(recorder.descriptions == ["value 3", "interrupted"])
    }

    @Test("TestScheduler.run() leaves the clock in the distant future")
    func runMovesToTheDistantFuture() {
        let scheduler = TestScheduler()
        var log: [String] = []
        scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(5)) { log.append("at 5") }
        scheduler.run()
        #expect(log == ["at 5"])
        #expect(scheduler.currentDate == .distantFuture)
        // Scheduling after a date now passed runs on the next advance, as in ReactiveSwift.
        scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: 10)) { log.append("late") }
        scheduler.advance()
        #expect(log == ["at 5", "late"])
    }

    @Test("after observe(on:), disposing interrupts the work and .interrupted arrives through the scheduler")
    func interruptionGoesThroughTheScheduler() {
        let scheduler = TestScheduler()
        let upstream = EventRecorder<Int, Never>()
        let (producer, input) = pipeProducer(Int.self, Never.self)
        let recorder = EventRecorder<Int, Never>()
        let disposable = recorder.start(producer.on(event: { upstream.observer.send($0) }).observe(on: scheduler))
        input.send(value: 1)
        disposable.dispose()
        #expect(upstream.descriptions == ["value 1", "interrupted"])  // the work stopped at once
        #expect(recorder.descriptions.isEmpty)  // it arrived at once before
        #expect(!disposable.isDisposed)
        scheduler.advance()
        #expect(recorder.descriptions == ["value 1", "interrupted"])
        #expect(disposable.isDisposed)
    }

    @Test(
        "after observe(on:), disposing once the upstream has terminated still delivers .interrupted through the scheduler"
    )
    func interruptionOfATerminatedUpstreamGoesThroughTheScheduler() {
        // SignalProducerSpec: "should deliver the interrupted event with respect to the asynchronous
        // operator applied to a terminated upstream with a direct observation".
        let scheduler = TestScheduler()
        var interrupted = false
        let disposable = SignalProducer<Int, Never>.empty.observe(on: scheduler).startWithInterrupted {
            interrupted = true
        }
        disposable.dispose()
        #expect(!interrupted)
        scheduler.run()
        #expect(interrupted)
        // A value sent before the end is delivered first; the end that was pending becomes .interrupted.
        let recorder = EventRecorder<Int, TestError>()
        let failing = recorder.start(
            SignalProducer<Int, TestError> { observer, _ in
                observer.send(value: 7)
                observer.send(error: TestError(1))
            }.observe(on: scheduler))
        failing.dispose()
        #expect(recorder.descriptions.isEmpty)
        scheduler.run()
        #expect(recorder.descriptions == ["value 7", "interrupted"])
        // Delivered before the disposal, the end stays as it was.
        let done = EventRecorder<Int, Never>()
        let completed = done.start(SignalProducer<Int, Never>(value: 1).observe(on: scheduler))
        scheduler.run()
        completed.dispose()
        scheduler.run()
        #expect(done.descriptions == ["value 1", "completed"])
    }

    @Test("after delay, disposing once the upstream has terminated delivers .interrupted through the scheduler")
    func interruptionAfterDelayOfATerminatedUpstream() {
        let scheduler = TestScheduler()
        let recorder = EventRecorder<Int, Never>()
        let disposable = recorder.start(SignalProducer<Int, Never>(value: 1).delay(5, on: scheduler))
        disposable.dispose()
        #expect(recorder.descriptions.isEmpty)
        scheduler.run()
        #expect(recorder.descriptions == ["interrupted"])
    }
}
