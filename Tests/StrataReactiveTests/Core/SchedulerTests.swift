import Foundation
import StrataReactive
import Testing

@Suite("Schedulers", .fixtureChecks)
struct SchedulerTests {
    @Test("ImmediateScheduler runs at once; QueueScheduler runs on its queue in order, unless disposed first")
    func immediateAndQueue() {
        var ran = false
        ImmediateScheduler().schedule { ran = true }
        #expect(ran)
        let queue = DispatchQueue(label: "scheduler-test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let scheduler = QueueScheduler(queue: queue)
        let order = EventRecorder<Int, Never>()
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // holds the queue until everything is scheduled
        for value in 0..<5 {
            scheduler.schedule { order.observer.send(value: DispatchQueue.getSpecific(key: key) == 1 ? value : -1) }
        }
        scheduler.schedule { order.observer.send(value: 99) }?.dispose()
        gate.signal()
        queue.sync {}
        #expect(order.values == [0, 1, 2, 3, 4])
    }

    @Test("TestScheduler runs nothing until advanced, then by date and in scheduling order")
    func virtualTime() {
        let scheduler = TestScheduler()
        let start = scheduler.currentDate
        var log: [String] = []
        scheduler.schedule(after: start.addingTimeInterval(2)) { log.append("at 2") }
        scheduler.schedule(after: start.addingTimeInterval(1)) { log.append("at 1, first") }
        scheduler.schedule(after: start.addingTimeInterval(1)) {
            log.append("at 1, second")
            scheduler.schedule { log.append("scheduled at 1 by an action") }
        }
        scheduler.schedule(after: start.addingTimeInterval(3)) { log.append("cancelled") }?.dispose()
        scheduler.schedule { log.append("now") }
        #expect(log.isEmpty)
        scheduler.advance()
        #expect(log == ["now"])
        scheduler.advance(by: .seconds(1))
        #expect(log == ["now", "at 1, first", "at 1, second", "scheduled at 1 by an action"])
        #expect(scheduler.currentDate == start.addingTimeInterval(1))
        scheduler.run()
        #expect(log.last == "at 2")
        #expect(scheduler.isIdle)
        #expect(scheduler.currentDate == .distantFuture)  // as ReactiveSwift's run(); it was the last action's date
    }

    @Test("start(on:) starts the work on the scheduler; disposing before then means it never starts")
    func startOn() {
        let scheduler = TestScheduler()
        let starts = Counter()
        let producer = SignalProducer<Int, Never>(value: 1).on(starting: { starts.increment() }).start(on: scheduler)
        let started = EventRecorder<Int, Never>()
        let cancelled = EventRecorder<Int, Never>()
        started.start(producer)
        cancelled.start(producer).dispose()
        #expect(starts.value == 0)
        scheduler.advance()
        #expect(starts.value == 1)
        #expect(started.descriptions == ["value 1", "completed"])
        #expect(cancelled.descriptions == ["interrupted"])
    }

    @Test("observe(on:) delivers every event on the scheduler, in order")
    func observeOn() {
        let scheduler = TestScheduler()
        let recorder = EventRecorder<Int, Never>()
        recorder.start(SignalProducer<Int, Never>([1, 2]).observe(on: scheduler))
        #expect(recorder.descriptions.isEmpty)
        scheduler.advance()
        #expect(recorder.descriptions == ["value 1", "value 2", "completed"])
    }

    @Test("delay(_:on:) holds values and completion; a failure comes without delay")
    func delay() {
        let scheduler = TestScheduler()
        let recorder = EventRecorder<Int, TestError>()
        let (producer, input) = pipeProducer(Int.self, TestError.self)
        recorder.start(producer.delay(2, on: scheduler))
        input.send(value: 1)
        scheduler.advance(by: 1)
        input.send(value: 2)
        #expect(recorder.values.isEmpty)
        scheduler.advance(by: 1)
        #expect(recorder.values == [1])
        input.send(error: TestError(1))
        scheduler.advance()
        #expect(recorder.descriptions == ["value 1", "failed E1"])
    }
}
