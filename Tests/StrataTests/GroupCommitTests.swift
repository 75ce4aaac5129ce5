import Foundation
import StrataTestSupport
import Testing

@_spi(StrataSync) @testable import Strata

extension StoreActor {
    /// The age of the person with `id`, as this Store shows it (nil: not there).
    func age(of id: Int) throws -> Int? {
        try #require(store).object(ofType: Person.self, forPrimaryKey: id)?.age
    }

    /// One `asyncWrite` that makes the person with `id` a year older.
    func ageByOneYear(_ id: Int) async throws {
        let store = try #require(store)
        let person = try #require(store.object(ofType: Person.self, forPrimaryKey: id))
        try await store.asyncWrite { person.age += 1 }
    }

    /// One `asyncWrite` that adds the person with `id`, then throws `RefusedWrite`.
    func addThenRefuse(_ id: Int) async throws {
        let store = try #require(store)
        try await store.asyncWrite {
            try store.add(Person(id: id))
            throw RefusedWrite()
        }
    }

    /// Observes every Person; records the insertions of each update (after the initial delivery).
    func observeInsertions(into updates: Locked<[[Int]]>, started: Locked<Bool>) throws -> NotificationToken {
        try #require(store).objects(Person.self).observe { change in
            switch change {
            case .initial: started.withLock { $0 = true }
            case .update(_, _, let insertions, _): updates.withLock { $0.append(insertions) }
            case .error: updates.withLock { $0.append([-1]) }
            }
        }
    }
}

struct RefusedWrite: Error {}

/// Captures Person's changes in the file (a Store opened and released on the caller's thread).
func enableCapture(_ configuration: Store.Configuration) throws {
    try Store(configuration: configuration).captureChanges(of: [Person.self])
}

/// The outbox's sequence numbers, one per change.
func capturedSequences(_ configuration: Store.Configuration) throws -> [UInt64] {
    try Store(configuration: configuration).capturedChanges().map(\.sequence)
}

/// The newest version of the file (a Store opened and released on the caller's thread).
func committedVersion(_ configuration: Store.Configuration) throws -> Int {
    try Store(configuration: configuration).core.version()
}

/// The change stamp of `type`'s table in the newest commit (`ChangeStamps`).
func committedStamp(_ configuration: Store.Configuration, of type: Object.Type) throws -> ChangeStamp? {
    let store = try Store(configuration: configuration)
    return try QueryEngine<Object>(core: store.core, binding: store.core.binding(for: type)).changeStamp()
}

/// A durable write held open (its block waits) until `others` tasks wait in line behind it, so that
/// they all meet in its commit group.
private struct HeldWrite {
    let holder = HoppingLibrarian()  // on threads of its own: its block blocks one by design
    let release = DispatchSemaphore(value: 0)
    let started = Locked(false)
    let timedOut = Locked(false)

    /// Starts the holder's write (adding the person with id 0) and returns once its block runs, with
    /// the file's writer gate (asked of the holder before: its actor is busy while the block runs).
    func start(_ configuration: Store.Configuration) async throws -> (Task<Void, any Error>, WriterGate) {
        try await holder.open(configuration)
        let gate = try await holder.leak().value.core.environment.writerGate
        let task = Task { [holder, release, started, timedOut] in
            try await holder.addPeople(base: 0, times: 1, holding: release, started: started, timedOut: timedOut)
        }
        #expect(await waitUntil { started.withLock { $0 } })
        return (task, gate)
    }

    /// Lets the held write end once `count` writers wait for the writer's turn.
    func release(whenWaiting count: Int, gate: WriterGate) async {
        #expect(await waitUntil { gate.waitingCount == count })
        release.signal()
    }

    /// One group: opens `counters` (opening may write, so first), holds a write until each counter's
    /// one-object `asyncWrite` waits behind it, then lets it go. Returns the holder's task and the
    /// counters' (the person with id 0 is the holder's; the counters add 1, 2, …).
    func meet(
        _ counters: [Counter], in configuration: Store.Configuration
    ) async throws -> (holding: Task<Void, any Error>, members: [Task<Void, any Error>]) {
        for counter in counters { try await counter.open(configuration) }
        let (holding, gate) = try await start(configuration)
        let members = counters.enumerated().map { index, counter in
            Task { try await counter.addPeople(base: index + 1, times: 1) }
        }
        await release(whenWaiting: counters.count, gate: gate)
        return (holding, members)
    }
}

@Suite("Group commit of asyncWrites", .fixtureChecks)
struct GroupCommitTests {
    @Test("7 asyncWrites queued behind a durable one commit with it: one commit, every object, one notification")
    func writersInLineShareOneCommit() async throws {
        let fixture = Fixture()
        let observer = Librarian()
        try await observer.open(fixture.configuration)
        let updates = Locked<[[Int]]>([])
        let observing = Locked(false)
        let token = try await observer.observeInsertions(into: updates, started: observing)
        #expect(await waitUntil { observing.withLock { $0 } })
        let versionBefore = try committedVersion(fixture.configuration)
        let stampBefore = try #require(try committedStamp(fixture.configuration, of: Person.self))

        let counters = (1..<8).map { _ in Counter() }
        let held = HeldWrite()
        let (holding, members) = try await held.meet(counters, in: fixture.configuration)
        try await holding.value
        for member in members { try await member.value }

        #expect(try await counters[0].count() == 8)
        let versionAfter = try committedVersion(fixture.configuration)
        #expect(versionAfter == versionBefore + 1, "8 asyncWrites made \(versionAfter - versionBefore) commits")
        // Each member's write, nested in the group's, counted the table's stamp up (a column copy of
        // the table made before is no longer used).
        let stampAfter = try #require(try committedStamp(fixture.configuration, of: Person.self))
        #expect(stampBefore.precedes(stampAfter))
        #expect(await waitUntil { !updates.withLock { $0 }.isEmpty })
        #expect(updates.withLock { $0 } == [Array(0..<8)], "one update, with the 8 insertions")
        token.invalidate()
        for counter in counters { await counter.close() }
        await held.holder.close()
        await observer.close()
    }

    @Test("with change capture on, each write of a group records its own outbox record in the group's commit")
    func capturedChangesOfAGroup() async throws {
        let fixture = Fixture()
        try enableCapture(fixture.configuration)
        let counters = (1..<4).map { _ in Counter() }
        let held = HeldWrite()
        let (holding, members) = try await held.meet(counters, in: fixture.configuration)
        try await holding.value
        for member in members { try await member.value }
        let sequences = try capturedSequences(fixture.configuration)
        #expect(sequences.count == 4, "\(sequences)")
        #expect(Set(sequences).count == 4, "\(sequences)")
        #expect(Set(sequences.map { $0 >> 16 }).count == 1, "one transaction: \(sequences)")
        for counter in counters { await counter.close() }
        await held.holder.close()
    }

    @Test("in a group, a block that throws undoes only itself and gets its error; the others are stored")
    func aThrowingMemberUndoesOnlyItself() async throws {
        let fixture = Fixture()
        let refusing = Counter()
        let accepting = Counter()
        try await refusing.open(fixture.configuration)
        try await accepting.open(fixture.configuration)
        let held = HeldWrite()
        let (holding, gate) = try await held.start(fixture.configuration)
        let refused = Task { try await refusing.addThenRefuse(1) }
        #expect(await waitUntil { gate.waitingCount == 1 })
        let accepted = Task { try await accepting.addPeople(base: 2, times: 1) }
        await held.release(whenWaiting: 2, gate: gate)
        try await holding.value
        await #expect(throws: RefusedWrite.self) { try await refused.value }
        try await accepted.value
        #expect(try await accepting.count() == 2)
        #expect(try await accepting.age(of: 1) == nil)
        await refusing.close()
        await accepting.close()
        await held.holder.close()
    }

    @Test("a group whose commit fails fails every member and stores nothing; later writes work")
    func aFailingGroupCommitFailsEveryMember() async throws {
        let fixture = Fixture()
        let failures = Locked(1)
        CommitGroup.beforeCommit.withLock {
            $0[fixture.path] = {
                failures.withLock { remaining in
                    defer { remaining -= 1 }
                    return remaining > 0 ? LMDBError.mapFull : nil
                }
            }
        }
        defer { _ = CommitGroup.beforeCommit.withLock { $0.removeValue(forKey: fixture.path) } }
        let counters = (1..<4).map { _ in Counter() }
        let held = HeldWrite()
        let (holding, members) = try await held.meet(counters, in: fixture.configuration)
        await #expect(throws: StoreError.mapFull) { try await holding.value }
        for member in members { await #expect(throws: StoreError.mapFull) { try await member.value } }
        #expect(try await counters[0].count() == 0)
        #expect(try await counters[0].countAsShown() == 0)
        try await counters[1].addPeople(base: 10, times: 1)
        #expect(try await counters[2].count() == 1)
        for counter in counters { await counter.close() }
        await held.holder.close()
    }

    @Test("while its group commits, the Store shows the commit before its write to the actor's other tasks")
    func theStoreWhileItsGroupCommits() async throws {
        let fixture = Fixture()
        let librarian = Librarian()
        try await librarian.open(fixture.configuration)
        try await librarian.add(1, age: 30)
        let committing = Locked(false)
        let proceed = DispatchSemaphore(value: 0)
        CommitGroup.beforeCommit.withLock {
            $0[fixture.path] = {  // holds the first group's commit until the reads below are done
                let first = committing.withLock { committing in
                    defer { committing = true }
                    return !committing
                }
                if first { _ = proceed.wait(timeout: .now() + 300) }
                return nil
            }
        }
        defer { _ = CommitGroup.beforeCommit.withLock { $0.removeValue(forKey: fixture.path) } }
        let writing = Task { try await librarian.addPeople(base: 2, times: 1) }
        let older = Task { try await librarian.ageByOneYear(1) }
        // Generous: a CI run with builds beside it on 2 cores once took more than 60 s to get here.
        #expect(await waitUntil(timeout: .seconds(300)) { committing.withLock { $0 } })
        // A group holds a write of this Store (or both) uncommitted: the actor runs other tasks meanwhile.
        #expect(try await librarian.countAsShown() == 1)
        #expect(try await librarian.age(of: 1) == 30)
        proceed.signal()
        try await writing.value
        try await older.value
        #expect(try await librarian.countAsShown() == 2)
        #expect(try await librarian.age(of: 1) == 31)
        await librarian.close()
    }
}
