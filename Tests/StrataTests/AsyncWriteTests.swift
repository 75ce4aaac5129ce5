import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// An actor with a Store of its own, for the tests of `asyncWrite` (runs on the cooperative pool).
actor Counter: StoreActor {
    var store: Store?
}

extension StoreActor {
    /// `times` writes with `asyncWrite`, each adding a person with the id `base + n`; with `release`,
    /// the first write's block sets `started` and blocks until `release` is signalled (recording in
    /// `timedOut` whether that took 20 seconds).
    func addPeople(
        base: Int, times: Int, holding release: DispatchSemaphore? = nil, started: Locked<Bool>? = nil,
        timedOut: Locked<Bool>? = nil
    ) async throws {
        let store = try #require(store)
        for number in 0..<times {
            try await store.asyncWrite {
                if number == 0, let release {
                    started?.withLock { $0 = true }
                    let late = release.wait(timeout: .now() + 60) == .timedOut  // waits on a condition
                    timedOut?.withLock { $0 = late }
                }
                try store.add(Person(id: base + number))
            }
        }
    }
}

@Suite("Writes from async code", .fixtureChecks)
struct AsyncWriteTests {
    @Test("8 actors, 25 asyncWrites each, all at once: exact counts")
    func eightConcurrentWriters() async throws {
        let fixture = Fixture()
        let counters = (0..<8).map { _ in Counter() }
        for counter in counters { try await counter.open(fixture.configuration) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, counter) in counters.enumerated() {
                group.addTask { try await counter.addPeople(base: index * 1_000, times: 25) }
            }
            try await group.waitForAll()
        }
        #expect(try await counters[0].count() == 200)
        for counter in counters { await counter.close() }
    }

    @Test("writers waiting for their turn hold no thread: one holds the writer, 7 wait, and tasks still run")
    func waitingWritersHoldNoThread() async throws {
        let fixture = Fixture()
        // The holder runs on threads of its own (its block blocks one by design); the 7 others on the
        // cooperative pool, which would run out of threads if waiting for the turn blocked them.
        let holding = HoppingLibrarian()
        try await holding.open(fixture.configuration)
        let counters = (1..<8).map { _ in Counter() }
        for counter in counters { try await counter.open(fixture.configuration) }
        let release = DispatchSemaphore(value: 0)
        let timedOut = Locked(false)
        let started = Locked(false)
        let holder = Task {
            try await holding.addPeople(base: 0, times: 1, holding: release, started: started, timedOut: timedOut)
        }
        // The holder's block is running (it blocks its thread by design); the 7 others queue behind it.
        #expect(await waitUntil { started.withLock { $0 } })
        let waiting = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, counter) in counters.enumerated() {
                    group.addTask { try await counter.addPeople(base: (index + 1) * 1_000, times: 1) }
                }
                try await group.waitForAll()
            }
        }
        // With 7 writers waiting, more tasks than the cooperative pool's threads still get to run.
        #expect(await cooperativeTasksThatRun() == 8)
        release.signal()
        try await holder.value
        try await waiting.value
        #expect(timedOut.withLock { $0 } == false, "the tasks ran only after the holding write gave up")
        #expect(try await counters[0].count() == 8)
        for counter in counters { await counter.close() }
        await holding.close()
    }

    @Test("a thread's writes and an actor's asyncWrites take turns on one file")
    func threadsAndActorsTakeTurns() async throws {
        let fixture = Fixture()
        let counter = Counter()
        try await counter.open(fixture.configuration)
        let configuration = fixture.configuration
        async let threadWrote = onAnotherThread { () -> Bool in
            guard let store = try? Store(configuration: configuration) else { return false }
            for id in 0..<50 where (try? writeSynchronously(store, Person(id: 10_000 + id))) == nil { return false }
            return true
        }
        try await counter.addPeople(base: 0, times: 50)
        #expect(await threadWrote)
        #expect(try await counter.count() == 100)
        await counter.close()
    }

    @Test("a block that throws stores nothing, its error comes back unchanged, and the next write works")
    @MainActor func aThrowingBlock() async throws {
        struct Refused: Error {}
        let fixture = Fixture()
        let store = try await Store(configuration: fixture.configuration, actor: MainActor.shared)
        await #expect(throws: Refused.self) {
            try await store.asyncWrite {
                try store.add(Person(id: 1))
                throw Refused()
            }
        }
        let id = try await store.asyncWrite {
            try store.add(Person(id: 2))
            return 2
        }
        #expect(id == 2)
        #expect(store.objects(Person.self).map(\.id) == [2])
    }

    @Test("asyncWrite off the Store's actor throws .wrongThread and writes nothing")
    func offTheActor() async throws {
        let fixture = Fixture()
        let counter = Counter()
        try await counter.open(fixture.configuration)
        let leaked = try await counter.leak()
        let error = await Task.detached {
            await #expect(throws: StoreError.wrongThread) {
                try await leaked.value.asyncWrite { try leaked.value.add(Person(id: 1)) }
            }
        }.value
        #expect(error == .wrongThread)
        try await counter.addPeople(base: 5, times: 1)
        #expect(try await counter.count() == 1)
        await counter.close()
    }
}
