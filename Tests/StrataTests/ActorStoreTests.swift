import Foundation
import StrataTestSupport
import Testing

@_spi(Testing) @testable import Strata

/// Runs each job of an actor on the other of two threads, in turn: every `await` inside the actor
/// resumes on another thread than the one before (a default actor on this machine's two-thread pool
/// often stays on one). Serial: one job at a time, in order. A worker idle for a moment ends (and
/// starts again with the next job), so that no worker outlives the test run.
final class AlternatingExecutor: SerialExecutor, @unchecked Sendable {  // all state under `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var turn = 0
    private var running = [false, false]
    private var stopped = false

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.withLock {
            jobs.append(unowned)
            for worker in 0..<2 where !running[worker] {
                running[worker] = true
                Thread { [self] in run(worker) }.start()
            }
            condition.broadcast()
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    private func run(_ worker: Int) {
        while true {
            condition.lock()
            while !stopped && (jobs.isEmpty || turn != worker) {
                // Idle: wait a moment for a job (a condition), then end; `enqueue` starts it again.
                if !condition.wait(until: Date().addingTimeInterval(0.2)), jobs.isEmpty { break }
            }
            if stopped || jobs.isEmpty || turn != worker {
                running[worker] = false
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
            condition.withLock {
                turn = 1 - worker
                condition.broadcast()
            }
        }
    }
}

/// The thread running the caller, asked of the system each time (glibc marks `pthread_self` pure, so
/// optimised code could reuse one answer across awaits).
@inline(never) func currentThreadNumber() -> UInt {
    UInt(bitPattern: Thread.current.hash) ^ UInt(pthread_self())
}

/// Adds a person through a Store of a thread of its own (the task waits suspended); false if that failed.
func addPersonOnOwnThread(id: Int, to configuration: Store.Configuration) async -> Bool {
    await onAnotherThread { (try? writeSynchronously(Store(configuration: configuration), Person(id: id))) != nil }
}

/// Adds `object` in a write of its own (synchronous: a write must not span an await).
func writeSynchronously(_ store: Store, _ object: Object) throws {
    try store.write { try store.add(object) }
}

/// An actor with a Store of its own; `Librarian` runs on a default executor, `HoppingLibrarian` on
/// an `AlternatingExecutor`.
protocol StoreActor: Actor {
    var store: Store? { get set }
}

actor Librarian: StoreActor {
    var store: Store?
}

/// An actor that keeps the tokens of its observers, as an app's model actor does.
actor WatchingLibrarian: StoreActor {
    var store: Store?
    private var tokens: [NotificationToken] = []

    func watchPeople() throws {
        tokens.append(try #require(store).objects(Person.self).observe { _ in })
    }
}

actor HoppingLibrarian: StoreActor {
    var store: Store?
    nonisolated let executor = AlternatingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    deinit { executor.stop() }
}

extension StoreActor {
    func open(_ configuration: Store.Configuration) async throws {
        store = try await Store(configuration: configuration, actor: self)
    }

    /// Adds a person, then reads and changes it across `awaits` suspensions, one write every 100;
    /// returns the threads it ran on and the person's final age.
    func useAcrossAwaits(_ awaits: Int) async throws -> (threads: Set<UInt>, age: Int) {
        let store = try #require(store)
        try add(1, name: "Ann", age: 0)
        let ann = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        var threads: Set<UInt> = []
        for round in 1...awaits {
            await Task.yield()
            threads.insert(currentThreadNumber())
            #expect(ann.name == "Ann")  // a property read after the await: no trap
            if round % 100 == 0 { try birthday(ann) }
        }
        try store.refresh()
        return (threads, ann.age)
    }

    func count() throws -> Int {
        let store = try #require(store)
        try store.refresh()
        return store.objects(Person.self).count
    }

    /// Synchronous, as a write is: it must not span an await.
    func add(_ id: Int, name: String = "", age: Int = 18) throws {
        let store = try #require(store)
        try store.write { try store.add(Person(id: id, name: name, age: age)) }
    }

    func birthday(_ person: Person) throws {
        let store = try #require(store)
        try store.write { person.age += 1 }
    }

    /// The Store, boxed so that a test can carry it off the actor (what the compiler refuses a plain
    /// Store: it is not `Sendable`).
    func leak() throws -> Unchecked<Store> {
        Unchecked(try #require(store))
    }

    func close() {
        store = nil
    }

    /// How many people the Store shows now, without moving it.
    func countAsShown() throws -> Int {
        try #require(store).objects(Person.self).count
    }

    /// Observes every Person; each delivery records the count and whether it ran on this actor.
    func observePeople(into deliveries: Locked<[(count: Int, onActor: Bool)]>) throws -> NotificationToken {
        let store = try #require(store)
        return try store.objects(Person.self).observe { change in
            let onActor = store.core.isConfined
            switch change {
            case .initial(let people), .update(let people, _, _, _):
                deliveries.withLock { $0.append((people.count, onActor)) }
            case .error:
                deliveries.withLock { $0.append((-1, onActor)) }
            }
        }
    }

    /// The counts of Person the changes show, iterated on this actor, until one shows `count`.
    func changes(until count: Int, started: Locked<Bool>) async throws -> [Int] {
        let store = try #require(store)
        var counts: [Int] = []
        let changes = store.objects(Person.self).changes
        started.withLock { $0 = true }  // observing: commits from now on reach the iteration
        for await change in changes {
            switch change {
            case .initial(let people), .update(let people, _, _, _): counts.append(people.count)
            case .error(let error): throw error
            }
            if counts.last == count { break }
        }
        return counts
    }
}

@Suite("Stores isolated to an actor", .fixtureChecks)
struct ActorStoreTests {
    @Test("1,000 awaits on an actor whose jobs alternate threads: reads and writes work throughout")
    func acrossThousandAwaits() async throws {
        let fixture = Fixture()
        let librarian = HoppingLibrarian()
        try await librarian.open(fixture.configuration)
        let (threads, age) = try await librarian.useAcrossAwaits(1_000)
        #expect(threads.count >= 2, "the awaits resumed on \(threads.count) thread(s)")
        #expect(age == 10)
        await librarian.close()
    }

    @Test("a default actor's Store works across awaits while other tasks keep the pool busy")
    func defaultActorAcrossAwaits() async throws {
        let fixture = Fixture()
        let librarian = Librarian()
        try await librarian.open(fixture.configuration)
        let busy = Task.detached {
            var spins = 0
            while !Task.isCancelled {
                spins &+= 1
                await Task.yield()
            }
            return spins
        }
        let (_, age) = try await librarian.useAcrossAwaits(1_000)
        busy.cancel()
        _ = await busy.value
        #expect(age == 10)
        await librarian.close()
    }

    @Test("off its actor the Store throws .wrongThread, from a task and from a thread; the actor keeps using it")
    func offTheActor() async throws {
        let fixture = Fixture()
        let librarian = Librarian()
        try await librarian.open(fixture.configuration)
        try await librarian.add(1)
        let leaked = try await librarian.leak()
        await Task.detached {
            #expect(throws: StoreError.wrongThread) { try leaked.value.refresh() }
            #expect(throws: StoreError.wrongThread) { try writeSynchronously(leaked.value, Person(id: 2)) }
        }.value
        let fromThread = await onAnotherThread { () -> StoreError? in
            do throws(StoreError) {
                try leaked.value.refresh()
                return nil
            } catch {
                return error
            }
        }
        #expect(fromThread == .wrongThread)
        try await librarian.add(3)
        #expect(try await librarian.count() == 2)
        await librarian.close()
    }

    @Test("Stores of two actors and of a thread share one file")
    func severalActorsAndAThread() async throws {
        let fixture = Fixture()
        let first = HoppingLibrarian()
        let second = Librarian()
        try await first.open(fixture.configuration)
        try await second.open(fixture.configuration)
        try await first.add(1)
        try await second.add(2)
        let configuration = fixture.configuration
        let onThread = await onAnotherThread { () -> Int in
            guard let store = try? Store(configuration: configuration) else { return -1 }
            guard (try? writeSynchronously(store, Person(id: 3))) != nil else { return -2 }
            return store.objects(Person.self).count
        }
        #expect(onThread == 3)
        #expect(try await first.count() == 3)
        #expect(try await second.count() == 3)
        await first.close()
        await second.close()
    }

    @Test("the main actor's Store works from main-actor code across awaits")
    @MainActor func mainActorStore() async throws {
        let fixture = Fixture()
        let store = try await Store(configuration: fixture.configuration, actor: MainActor.shared)
        try writeSynchronously(store, Person(id: 1, name: "Main"))
        let person = try #require(store.object(ofType: Person.self, forPrimaryKey: 1))
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(1))
            #expect(person.name == "Main")
        }
        let leaked = Unchecked(store)
        let offMain = await Task.detached { #expect(throws: StoreError.wrongThread) { try leaked.value.refresh() } }
            .value
        #expect(offMain == .wrongThread)
        try store.refresh()
    }

    @Test("an actor's Store moves to other Stores' commits on its own, on the actor")
    func autorefreshOnTheActor() async throws {
        let fixture = Fixture()
        let librarian = HoppingLibrarian()
        try await librarian.open(fixture.configuration)
        #expect(try await librarian.countAsShown() == 0)
        let configuration = fixture.configuration
        #expect(await addPersonOnOwnThread(id: 1, to: configuration))
        #expect(try await waitUntil { try await librarian.countAsShown() == 1 })
        await librarian.close()
    }

    @Test("observers of an actor's Store are called on the actor, and its changes iterate there")
    func notificationsOnTheActor() async throws {
        let fixture = Fixture()
        let librarian = HoppingLibrarian()
        try await librarian.open(fixture.configuration)
        let deliveries = Locked<[(count: Int, onActor: Bool)]>([])
        let token = try await librarian.observePeople(into: deliveries)
        let started = Locked(false)
        async let iterated = librarian.changes(until: 2, started: started)
        // Both observers are registered and the callback's initial delivery is in: commits come after.
        #expect(await waitUntil { started.withLock { $0 } && !deliveries.withLock { $0.isEmpty } })
        let configuration = fixture.configuration
        for id in 1...2 {
            #expect(await addPersonOnOwnThread(id: id, to: configuration))
            #expect(await waitUntil { deliveries.withLock { $0.last?.count ?? 0 } >= id })
        }
        let seen = deliveries.withLock { $0 }
        #expect(seen.map(\.count) == [0, 1, 2])
        let allOnActor = seen.allSatisfy { $0.onActor }
        #expect(allOnActor)
        if seen.last?.count == 2 {  // else the iteration waits for nothing: leaving the scope cancels it
            // Commits made before a delivery coalesce into it: the counts only grow, up to 2.
            let iteratedCounts = try await iterated
            #expect(iteratedCounts.last == 2)
            #expect(iteratedCounts == iteratedCounts.sorted())
        }
        token.invalidate()
        await librarian.close()
    }

    @Test("an actor that goes away holding its Store and the tokens of its observers: the file closes")
    func actorGoneWithItsTokens() async throws {
        let fixture = Fixture()
        do {
            let librarian = WatchingLibrarian()
            try await librarian.open(fixture.configuration)
            try await librarian.watchPeople()
            #expect(await addPersonOnOwnThread(id: 1, to: fixture.configuration))
        }
        #expect(fixture.teardownProblems() == [])
    }

    @Test("a token that outlives its Store's actor: the file closes when it is invalidated, not before")
    func tokenOutlivesItsActor() async throws {
        let fixture = Fixture()
        let token: NotificationToken
        do {
            let librarian = Librarian()
            try await librarian.open(fixture.configuration)
            token = try await librarian.observePeople(into: Locked([]))
        }
        // Commits wake the Store whose actor is gone: nothing is delivered, and the observer stays.
        #expect(await addPersonOnOwnThread(id: 1, to: fixture.configuration))
        #expect(try Store._isOpenInThisProcess(path: fixture.path))
        token.invalidate()
        #expect(fixture.teardownProblems() == [])
    }

    @Test("an actor's object read off the actor traps, naming the wrong thread")
    func propertyReadOffTheActorTraps() async throws {
        let fixture = Fixture()
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Person.self])
            let librarian = Librarian()
            try await librarian.open(configuration)
            try await librarian.add(1)
            let leaked = try await librarian.leak()
            let person = Unchecked(leaked.value.objects(Person.self).first)
            _ = person
        }
        #expect(standardError(of: result).contains(TrapMessage.wrongThread))
    }
}
