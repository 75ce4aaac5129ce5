import Dispatch
import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// An actor that asks `ExecutorQuestion` about itself and others from its own code.
private actor Asker {
    func answers(about others: [any Actor]) -> [Bool] {
        others.map { ExecutorQuestion.isCurrent($0.unownedExecutor) }
    }

    /// Asks about itself after each of `awaits` suspensions (each may resume on another thread).
    func answersAcross(_ awaits: Int) async -> Int {
        var yes = 0
        for _ in 0..<awaits {
            await Task.yield()
            if ExecutorQuestion.isCurrent(unownedExecutor) { yes += 1 }
        }
        return yes
    }
}

/// The same, on an executor of its own (each job on the other of two threads).
private actor HoppingAsker {
    let executor = AlternatingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func answers(about others: [any Actor]) -> [Bool] {
        others.map { ExecutorQuestion.isCurrent($0.unownedExecutor) }
    }
}

/// How Strata tells where code runs without runtime internals (Model/ActorIsolation.swift,
/// Model/Confinement.swift). These fail loudly the day a toolchain answers otherwise: the actor
/// question rests on how the runtime checks a conformance isolated to a global actor.
struct ActorIsolationTests {
    @Test("on an actor the question answers yes for it and no for every other; off every actor, no")
    func actorQuestion() async {
        let first = Asker()
        let second = Asker()
        let hopping = HoppingAsker()
        #expect(await first.answers(about: [first, second, hopping]) == [true, false, false])
        #expect(await second.answers(about: [first, second, hopping]) == [false, true, false])
        #expect(await hopping.answers(about: [first, second, hopping]) == [false, false, true])
        let executors = [first.unownedExecutor, hopping.unownedExecutor]
        let detached = await Task.detached { executors.map(ExecutorQuestion.isCurrent) }.value
        #expect(detached == [false, false])
        let fromThread = await onAnotherThread { executors.map(ExecutorQuestion.isCurrent) }
        #expect(fromThread == [false, false])
        hopping.executor.stop()
    }

    @Test("the answer stays yes across 1,000 awaits of the actor while other tasks keep the pool busy")
    func acrossAwaits() async {
        let asker = Asker()
        let busy = Task.detached {
            while !Task.isCancelled { await Task.yield() }
        }
        #expect(await asker.answersAcross(1_000) == 1_000)
        busy.cancel()
        await busy.value
    }

    @Test("queues are recognised through their specific values: the main queue's and the global queues' wrappers")
    func queueIdentity() {
        #expect(DispatchQueues.isMain(.main))
        #expect(DispatchQueues.isSame(.main, .main))
        #expect(DispatchQueues.isSame(.global(), .global(qos: .default)))
        let serial = DispatchQueue(label: "strata.tests.identity")
        #expect(!DispatchQueues.isMain(serial))
        #expect(!DispatchQueues.isSame(serial, .main))
        #expect(DispatchQueues.isSame(serial, serial))
        for qos in [DispatchQoS.QoSClass.background, .utility, .default, .userInitiated, .userInteractive] {
            #expect(DispatchQueues.isConcurrent(.global(qos: qos)))
        }
        #expect(!DispatchQueues.isConcurrent(.main))
    }

    @Test("a queue's kind is learned from a block on it: serial, and made with .concurrent")
    func learnedKinds() {
        let serial = DispatchQueue(label: "strata.tests.serial-kind")
        #expect(serial.sync { DispatchQueues.learnKind(ofCurrent: serial) } == .serial)
        #expect(!DispatchQueues.isConcurrent(serial))
        let concurrent = DispatchQueue(label: "strata.tests.concurrent-kind", attributes: .concurrent)
        #expect(concurrent.sync { DispatchQueues.learnKind(ofCurrent: concurrent) } == .concurrent)
        #expect(DispatchQueues.isConcurrent(concurrent))
        let targeting = DispatchQueue(label: "strata.tests.targeting", target: .global())
        #expect(targeting.sync { DispatchQueues.learnKind(ofCurrent: targeting) } == .serial)
    }

    @Test("a queue Strata makes is known serial before any Store opens on it: no probe")
    func queuesStrataMakes() {
        let made = DispatchQueues.makeSerial(label: "strata.tests.made")
        #expect(DispatchQueues.token(of: made).kind.withLock { $0 } == .serial)
        let other = DispatchQueue(label: "strata.tests.not-made")
        #expect(DispatchQueues.token(of: other).kind.withLock { $0 } == nil)
    }

    @Test("a concurrent queue is recognised while every thread of Dispatch's pool is busy")
    func concurrentKindWithABusyPool() {
        let release = DispatchSemaphore(value: 0)
        let blockers = 64
        let blocked = DispatchGroup()
        for _ in 0..<blockers {
            DispatchQueue.global().async(group: blocked) { _ = release.wait(timeout: .now() + 10) }
        }
        defer {
            for _ in 0..<blockers { release.signal() }
            blocked.wait()
        }
        for round in 0..<5 {
            let concurrent = DispatchQueue(label: "strata.tests.busy-pool-\(round)", attributes: .concurrent)
            #expect(concurrent.sync { DispatchQueues.learnKind(ofCurrent: concurrent) } == .concurrent)
        }
    }
}
