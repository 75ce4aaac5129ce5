import Dispatch
import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite("A pool of Stores shared by tasks", .fixtureChecks)
struct StorePoolTests {
    @Test("100 concurrent tasks mixing reads and writes: every write stored once, reads see what came before")
    func manyTasks() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration, readers: 3)
        let counts = try await withThrowingTaskGroup(of: (written: Int, seen: Int)?.self) { group in
            for task in 0..<100 {
                group.addTask {
                    if task % 2 == 0 {
                        try await pool.write { store in try store.add(Person(id: task, name: "p\(task)")) }
                        // What this task wrote is there for its next read, whichever reader runs it.
                        let seen = try await pool.read { store in
                            store.object(ofType: Person.self, forPrimaryKey: task)?.name
                        }
                        #expect(seen == "p\(task)")
                        return (written: task, seen: -1)
                    }
                    return (written: -1, seen: try await pool.read { store in store.objects(Person.self).count })
                }
            }
            var results: [(written: Int, seen: Int)] = []
            for try await result in group { results.append(result!) }
            return results
        }
        #expect(counts.filter { $0.written >= 0 }.count == 50)
        #expect(counts.allSatisfy { $0.seen <= 50 })
        let stored = try await pool.read { store in store.objects(Person.self).map(\.id).sorted() }
        #expect(stored == Array(stride(from: 0, to: 100, by: 2)))
    }

    @Test("a write that throws stores nothing and its error comes back unchanged; the next write works")
    func aThrowingWrite() async throws {
        struct Refused: Error, Equatable {}
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration)
        await #expect(throws: Refused.self) {
            try await pool.write { store in
                try store.add(Person(id: 1))
                throw Refused()
            }
        }
        #expect(try await pool.read { $0.objects(Person.self).count } == 0)
        let error = await #expect(throws: StoreError.self) {
            try await pool.write { store in
                try store.add(Person(id: 2))
                try store.add(Person(id: 2))
            }
        }
        #expect(error == .alreadyExists(primaryKey: .init("2", typeName: "Person")))
        let id = try await pool.write { store in
            try store.add(Person(id: 3))
            return 3
        }
        #expect(id == 3)
        #expect(try await pool.read { $0.objects(Person.self).map(\.id) } == [3])
    }

    @Test("reads run side by side: one read waits for another that starts after it", .offThePool)
    func readsRunAtOnce() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration, readers: 2)
        let firstStarted = Locked(false)
        let secondStarted = DispatchSemaphore(value: 0)
        async let first: Bool = pool.read { _ in
            firstStarted.withLock { $0 = true }
            return secondStarted.wait(timeout: .now() + 60) == .success  // a condition: the other read running
        }
        // The first read holds its reader until the second runs on the other one.
        #expect(await waitUntil { firstStarted.withLock { $0 } })
        try await pool.read { _ in secondStarted.signal() }
        #expect(try await first)
    }

    @Test("blocks that wait hold no thread of the cooperative pool: 8 blocked writes, and tasks still run")
    func noCooperativeThreadWaits() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration, readers: 4)
        let release = DispatchSemaphore(value: 0)
        let waitTimedOut = Locked(false)
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 0..<8 {
                    group.addTask {
                        try await pool.write { store in
                            if id == 0 {  // the writer waits on a condition: the tasks below having run
                                let timedOut = release.wait(timeout: .now() + 60) == .timedOut
                                waitTimedOut.withLock { $0 = timedOut }
                            }
                            try store.add(Person(id: id))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // With 8 writes waiting, tasks of the (two-thread) cooperative pool still run: more tasks
        // than its threads each get to this line.
        #expect(await cooperativeTasksThatRun() == 8)
        release.signal()
        try await writes.value
        #expect(waitTimedOut.withLock { $0 } == false, "the tasks ran only after the blocked write gave up")
        #expect(try await pool.read { $0.objects(Person.self).count } == 8)
    }

    @Test("a cancelled task's read throws CancellationError and runs nothing")
    func cancellation() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration)
        let ran = Locked(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.read { _ in ran.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.withLock { $0 } == false)
    }

    @Test("a file that cannot be opened fails when the pool is made, with the Store's typed error")
    func openingErrors() throws {
        let fixture = Fixture()
        try Data("not a strata file, not an LMDB file either: bytes".utf8).write(to: URL(fileURLWithPath: fixture.path))
        let error = #expect(throws: StoreError.self) { try StorePool(configuration: fixture.configuration) }
        guard case .corrupted = error else {
            Issue.record("expected .corrupted, got \(String(describing: error))")
            return
        }
        #expect(throws: StoreError.invalidArgument("a StorePool needs at least one reader, not 0")) {
            try StorePool(configuration: Fixture().configuration, readers: 0)
        }
    }

    @Test("a ThreadSafeReference made in one read resolves in another block")
    func handOffBetweenBlocks() async throws {
        let fixture = Fixture()
        let pool = try StorePool(configuration: fixture.configuration)
        try await pool.write { store in try store.add(Person(id: 5, name: "Eve")) }
        let reference = try await pool.read { store in
            try ThreadSafeReference(to: store.object(ofType: Person.self, forPrimaryKey: 5)!)
        }
        let name = try await pool.write { store in
            let person = try #require(try store.resolve(reference))
            person.name = "Eve B."
            return person.name
        }
        #expect(name == "Eve B.")
        #expect(try await pool.read { $0.object(ofType: Person.self, forPrimaryKey: 5)?.name } == "Eve B.")
    }
}
