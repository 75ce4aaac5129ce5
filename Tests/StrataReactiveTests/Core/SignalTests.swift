import Foundation
import StrataReactive
import Testing

@Suite("Signal: the event contract", .fixtureChecks)
struct SignalTests {
    @Test("values, then one terminating event; nothing after it")
    func grammar() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let recorder = EventRecorder<Int, TestError>()
        signal.observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        input.send(error: TestError(1))
        input.send(value: 3)
        input.sendCompleted()
        input.sendInterrupted()
        #expect(recorder.descriptions == ["value 1", "value 2", "failed E1"])
    }

    @Test("every observer sees the same events in the same order; a late one sees only later events")
    func observersShareEvents() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let first = EventRecorder<Int, Never>()
        let second = EventRecorder<Int, Never>()
        signal.observe(first.observer)
        input.send(value: 1)
        signal.observe(second.observer)
        input.send(value: 2)
        input.sendCompleted()
        #expect(first.descriptions == ["value 1", "value 2", "completed"])
        #expect(second.descriptions == ["value 2", "completed"])
    }

    @Test("observing a terminated signal gets interrupted at once; a removed observer gets nothing")
    func lateAndRemovedObservers() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let removed = EventRecorder<Int, Never>()
        let observation = signal.observe(removed.observer)
        observation?.dispose()
        input.send(value: 1)
        input.sendCompleted()
        let late = EventRecorder<Int, Never>()
        #expect(signal.observe(late.observer) == nil)
        #expect(removed.descriptions.isEmpty)
        #expect(late.descriptions == ["interrupted"])
    }

    @Test("the generator's lifetime ends after the terminating event is delivered")
    func lifetimeEndsOnTermination() {
        var order: [String] = []
        var input: Signal<Int, Never>.Observer?
        let signal = Signal<Int, Never> { observer, lifetime in
            input = observer
            lifetime.observeEnded { order.append("ended") }
        }
        signal.observe { order.append($0.description) }
        input?.send(value: 1)
        input?.sendCompleted()
        #expect(order == ["value 1", "completed", "ended"])
    }

    @Test("events sent from 8 threads at once are delivered one at a time, none lost")
    func serialDeliveryAcrossThreads() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let inFlight = Counter()
        let overlaps = Counter()
        let received = Counter()
        signal.observeValues { _ in
            if inFlight.increment() > 1 { overlaps.increment() }
            received.increment()
            inFlight.add(-1)
        }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for value in 0..<1_000 { input.send(value: value) }
        }
        #expect(received.value == 8_000)
        #expect(overlaps.value == 0)
    }

    @Test("a terminating event sent from inside an observer waits until every observer has the value")
    func terminationDuringDeliveryIsDeferred() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let second = EventRecorder<Int, Never>()
        signal.observeValues { _ in input.sendCompleted() }
        signal.observe(second.observer)
        input.send(value: 1)
        #expect(second.descriptions == ["value 1", "completed"])
    }

    @Test("an interruption from another thread during a delivery does not wait for it, and comes after it")
    func interruptionFromAnotherThreadDoesNotBlock() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let recorder = EventRecorder<Int, Never>()
        signal.observe { event in
            if case .value = event {
                entered.signal()
                release.wait()
            }
        }
        signal.observe(recorder.observer)
        let sender = Thread { input.send(value: 1) }
        sender.start()
        entered.wait()
        input.sendInterrupted()  // returns at once: the sender delivers it when its delivery ends
        #expect(recorder.descriptions.isEmpty)
        release.signal()
        let deadline = Date().addingTimeInterval(10)
        while !recorder.isTerminated, Date() < deadline { usleep(1_000) }
        #expect(recorder.descriptions == ["value 1", "interrupted"])
    }

    @Test("a value sent from inside the terminating event's observer is dropped, without deadlock")
    func valueDuringTermination() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let recorder = EventRecorder<Int, Never>()
        signal.observe { event in if event.isTerminating { input.send(value: 2) } }
        signal.observe(recorder.observer)
        input.sendCompleted()
        #expect(recorder.descriptions == ["completed"])
    }

    @Test("a value sent from inside an observer of the same signal traps (events are never recursive)")
    func recursiveValueTraps() async {
        await #expect(processExitsWith: .failure) {
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.observeValues { value in if value == 1 { input.send(value: 2) } }
            input.send(value: 1)
        }
    }
}
