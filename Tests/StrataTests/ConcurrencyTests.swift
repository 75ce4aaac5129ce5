import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Eight threads mixing writes, reads, refreshes, handoffs and notifications for a fixed number of
/// operations, with exact final counts. CI also runs it under ThreadSanitizer (`.ci/run`).
@Suite("Concurrency", .fixtureChecks, .offThePool)
struct ConcurrencyTests {
    static let threads = 8
    static let operationsPerThread = 300

    /// A queue of handed-over references between the threads.
    final class Mailbox: @unchecked Sendable {  // `references` under `lock`
        private let lock = NSLock()
        private var references: [ThreadSafeReference<Item>] = []
        func post(_ reference: ThreadSafeReference<Item>) { lock.withLock { references.append(reference) } }
        func take() -> ThreadSafeReference<Item>? { lock.withLock { references.popLast() } }
    }

    /// What one thread did, for the final counts.
    struct Tally: Sendable {
        var added = 0
        var bumps = 0
        var posted = 0
        var resolved = 0
        var deliveries = 0
        var brokenDeliveries = 0
    }

    @Test("8 threads × 300 mixed operations: exact final counts, consistent change batches")
    func mixedOperations() throws {
        let fixture = Fixture([Item.self])
        do {
            let store = try fixture.open()
            try store.write {
                // One counter per thread (ids 0..<8), bumped only by that thread.
                for thread in 0..<Self.threads { try store.add(Item(id: thread, score: 0, name: "counter")) }
            }
        }
        let mailbox = Mailbox()
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let tallies = Locked([Tally](repeating: Tally(), count: Self.threads))
        let failures = Locked([String]())
        for thread in 0..<Self.threads {
            done.enter()
            Thread {
                defer { done.leave() }
                start.wait()
                do {
                    let tally = try Self.run(thread: thread, fixture: fixture, mailbox: mailbox)
                    tallies.withLock { $0[thread] = tally }
                } catch {
                    failures.withLock { $0.append("thread \(thread): \(error)") }
                }
            }.start()
        }
        for _ in 0..<Self.threads { start.signal() }
        done.wait()
        #expect(failures.withLock { $0 } == [])
        let totals = tallies.withLock { $0 }
        let store = try fixture.open()
        try store.refresh()
        // Leftover references are resolved here: every object handed over exists.
        var leftover = 0
        while let reference = mailbox.take() {
            #expect(try store.resolve(reference) != nil)
            leftover += 1
        }
        #expect(totals.map(\.resolved).reduce(0, +) + leftover == totals.map(\.posted).reduce(0, +))
        let items = store.objects(Item.self)
        #expect(items.count == Self.threads + totals.map(\.added).reduce(0, +))
        for thread in 0..<Self.threads {
            #expect(store.object(ofType: Item.self, forPrimaryKey: thread)?.score == Double(totals[thread].bumps))
            #expect(items.where { $0.name == "t\(thread)" }.count == totals[thread].added)
        }
        #expect(totals.allSatisfy { $0.deliveries > 0 })
        #expect(totals.map(\.brokenDeliveries).reduce(0, +) == 0)
        try store.verify()
    }

    private static func run(thread: Int, fixture: Fixture, mailbox: Mailbox) throws -> Tally {
        var random = SplitMix64(state: UInt64(thread + 1))
        var tally = Tally()
        let store = try fixture.open()
        let mine = store.objects(Item.self).where { $0.name == "t\(thread)" }
        var observedCount = 0
        let token = try store.objects(Item.self).sorted(by: \.score).observe { change in
            tally.deliveries += 1
            switch change {
            case .initial(let results):
                observedCount = results.count
            case .update(let results, let deletions, let insertions, _):
                if observedCount - deletions.count + insertions.count != results.count { tally.brokenDeliveries += 1 }
                observedCount = results.count
            case .error:
                tally.brokenDeliveries += 1
            }
        }
        defer { token.invalidate() }
        try store.refresh()  // delivers `.initial` on a thread without queue
        for _ in 0..<operationsPerThread {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3:  // write: add an object of this thread, and bump its counter in the same write
                let id = 1_000 + thread * 10_000 + tally.added
                try store.write {
                    try store.add(
                        Item(id: id, score: Double(Int.random(in: 0..<100, using: &random)), name: "t\(thread)"))
                    store.object(ofType: Item.self, forPrimaryKey: thread)!.score += 1
                }
                tally.added += 1
                tally.bumps += 1
            case 3..<5:  // read: a query and a scan, checked against what this thread wrote
                #expect(mine.count == tally.added)
                _ = store.objects(Item.self).where { $0.score >= 50 }.count
            case 5..<7:
                try store.refresh()
            case 7:  // hand one of this thread's objects to whichever thread takes it
                if let object = mine.first {
                    mailbox.post(try ThreadSafeReference(to: object))
                    tally.posted += 1
                }
            default:  // take one handed over by another thread
                if let reference = mailbox.take() {
                    let object = try store.resolve(reference)
                    #expect(object?.name.hasPrefix("t") == true)
                    tally.resolved += 1
                }
            }
        }
        try store.refresh()
        return tally
    }
}
