import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `Store.observe(_:)`: `.didChange` each time the Store moves to a newer version (nothing at first,
/// commits before a move told as one), `.refreshRequired` for each newer version a Store with
/// `autorefresh` off does not show, nothing after the token is invalidated or for a write committed
/// without notifying it; a frozen Store or another thread is refused.
@Suite(.fixtureChecks) struct StoreObserveTests {
    /// What an observer was told, and how many Items its Store showed each time.
    final class Told {
        var notifications: [Store.Notification] = []
        var counts: [Int] = []

        func observe(_ store: Store) throws -> NotificationToken {
            try store.observe { notification, observed in
                self.notifications.append(notification)
                self.counts.append(observed.objects(Item.self).count)
                #expect(observed == store)
            }
        }
    }

    @Test func aThreadStoreIsToldOnceForEachMoveAndNothingAtFirst() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let told = Told()
        let token = try told.observe(store)
        try store.refresh()
        #expect(told.notifications.isEmpty, "nothing at first, nothing when nothing landed")
        try store.write { try store.add(Item(id: 1, score: 0, name: "a")) }
        try store.refresh()
        #expect(told.notifications == [.didChange])
        #expect(told.counts == [1])
        // Two commits of another thread before this Store moves: one change.
        onAnotherThread {
            let other = try! fixture.open()
            try! other.write { try other.add(Item(id: 2, score: 0, name: "b")) }
            try! other.write { try other.add(Item(id: 3, score: 0, name: "c")) }
        }
        try store.refresh()
        #expect(told.notifications == [.didChange, .didChange])
        #expect(told.counts == [1, 3])
        try store.refresh()
        #expect(told.notifications.count == 2, "no new version: nothing told")
        // A write that changes nothing stores no new version: nothing is told (Realm tells one).
        try store.write {}
        try store.refresh()
        #expect(told.notifications.count == 2)
        token.invalidate()
        try store.write { try store.add(Item(id: 4, score: 0, name: "d")) }
        try store.refresh()
        #expect(told.counts.last == 3, "invalidated: nothing more")
    }

    @Test func aWriteCommittedWithoutNotifyingIsNotTold() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let told = Told()
        let token = try told.observe(store)
        try store.refresh()
        try store.beginWrite()
        try store.add(Item(id: 1, score: 0, name: "a"))
        try store.commitWrite(withoutNotifying: [token])
        try store.refresh()
        #expect(told.notifications.isEmpty)
        try store.write { try store.add(Item(id: 2, score: 0, name: "b")) }
        try store.refresh()
        #expect(told.counts == [2])
        token.invalidate()
    }

    @Test func aQueueStoreIsToldOnItsQueueOfAnotherThreadsCommit() throws {
        let fixture = Fixture([Item.self])
        let queue = DispatchQueue(label: "store-observer")
        let changed = DispatchSemaphore(value: 0)
        let seen = ResultBox<[String]>()
        seen.value = []
        let token = try queue.sync { () throws -> NotificationToken in
            let store = try Store(configuration: fixture.configuration, queue: queue)
            return try store.observe { notification, observed in
                let onQueue = Confinement.isCurrentQueue(observed.core.confinementToken!)
                seen.value!.append("\(notification) \(observed.objects(Item.self).count) \(onQueue)")
                changed.signal()
            }
        }
        let store = try fixture.open()
        try store.write { try store.add(Item(id: 1, score: 0, name: "a")) }
        #expect(changed.wait(timeout: .now() + 30) == .success)
        queue.sync {}
        #expect(seen.value == ["didChange 1 true"])
        queue.sync { token.invalidate() }
    }

    @Test func withoutAutorefreshEachNewerVersionIsARefreshRequired() throws {
        let fixture = Fixture([Item.self])
        let queue = DispatchQueue(label: "store-observer-manual")
        let told = DispatchSemaphore(value: 0)
        let seen = ResultBox<[String]>()
        seen.value = []
        let (observed, token) = try queue.sync { () throws -> (Unchecked<Store>, NotificationToken) in
            let store = try Store(configuration: fixture.configuration, queue: queue)
            store.autorefresh = false
            let token = try store.observe { notification, observed in
                seen.value!.append("\(notification) \(observed.objects(Item.self).count)")
                told.signal()
            }
            return (Unchecked(store), token)
        }
        let store = try fixture.open()
        try store.write { try store.add(Item(id: 1, score: 0, name: "a")) }
        #expect(told.wait(timeout: .now() + 30) == .success)
        queue.sync {}
        #expect(seen.value == ["refreshRequired 0"], "the Store stays where it was")
        try store.write { try store.add(Item(id: 2, score: 0, name: "b")) }
        #expect(told.wait(timeout: .now() + 30) == .success)
        let refreshed = try queue.sync { () throws -> Bool in
            #expect(seen.value == ["refreshRequired 0", "refreshRequired 0"])
            return try observed.value.refresh()
        }
        #expect(refreshed)
        #expect(told.wait(timeout: .now() + 30) == .success)
        queue.sync {
            #expect(seen.value == ["refreshRequired 0", "refreshRequired 0", "didChange 2"])
            token.invalidate()
        }
    }

    @Test func aCommitOfAnotherProcessIsToldWhenTheStoreRefreshes() async throws {
        let fixture = Fixture([Item.self])
        let path = fixture.path
        let queue = DispatchQueue(label: "store-observer-parent")
        let told = Told()
        let (store, token) = try queue.sync { () throws -> (Unchecked<Store>, NotificationToken) in
            let store = try Store(configuration: fixture.configuration, queue: queue)
            try store.write { try store.add(Item(id: 1, score: 0, name: "parent")) }
            try store.refresh()
            let token = try told.observe(store)
            return (Unchecked(store), token)
        }
        await #expect(processExitsWith: .success) { [path = path as String] in
            NotificationTests.writeFromChild(path)
        }
        try queue.sync { _ = try store.value.refresh() }
        queue.sync {
            #expect(told.notifications == [.didChange])
            #expect(told.counts == [2])
            token.invalidate()
        }
    }

    @Test func aFrozenStoreAndAnotherThreadAreRefused() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let frozen = try store.freeze()
        #expect { _ = try frozen.observe { _, _ in } } throws: { isCase($0, .invalidArgument("")) }
        let shared = Unchecked(store)
        let error = onAnotherThread { () -> StoreError? in
            do {
                _ = try shared.value.observe { _, _ in }
                return nil
            } catch {
                return error as? StoreError
            }
        }
        #expect(error == .wrongThread)
    }
}
