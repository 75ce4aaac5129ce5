#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestModels
    import StrataTestSupport
    import Testing

    /// Partial sync: a client holds the objects of a partial type that its subscriptions select, as
    /// the server evaluates them, and nothing else of that type.
    @Suite("StrataSync's subscriptions (partial sync)", .serialized, .offThePool, .fixtureChecks)
    struct SubscriptionTests {
        func ids(_ client: SyncClient) async throws -> [Int] {
            try await client.items().map(\.id)
        }

        @Test(
            "nothing until subscribed; matches arrive and follow, objects that stop matching or are deleted leave, an unsubscribe removes only here"
        )
        func subscribeFollowLeaveUnsubscribe() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: scene.server)
            try await writer.write { store in
                for id in 1...10 {
                    try store.add(SyncItem(id: id, title: id % 2 == 1 ? "a\(id)" : "b\(id)", count: id))
                }
            }
            try await writer.sync.synchronize()
            let readerFile = Fixture([SyncItem.self, SyncOwner.self])
            let reader = try await SyncClient(server: scene.server, fixture: readerFile, partial: [SyncItem.self])
            try await reader.sync.synchronize()
            #expect(try await ids(reader) == [])

            try await reader.sync.subscribe(SyncItem.self, named: "small", where: { $0.count < 5 })
            #expect(try await ids(reader) == [1, 2, 3, 4])

            try await writer.write { store in
                store.object(ofType: SyncItem.self, forPrimaryKey: 2)!.count = 50  // leaves
                store.object(ofType: SyncItem.self, forPrimaryKey: 7)!.count = 3  // arrives
                store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.title = "a1 renamed"  // follows
                try store.delete(store.object(ofType: SyncItem.self, forPrimaryKey: 3)!)  // leaves
            }
            try await writer.sync.synchronize()
            try await reader.sync.synchronize()
            #expect(try await ids(reader) == [1, 4, 7])
            #expect(try await reader.items().first?.title == "a1 renamed")

            try await reader.sync.subscribe(SyncItem.self, named: "b", where: "title BEGINSWITH $0", "b")
            #expect(try await ids(reader) == [1, 2, 4, 6, 7, 8, 10])
            #expect(Set(await reader.sync.subscriptions.map(\.name)) == ["small", "b"])

            #expect(try await reader.sync.unsubscribe(named: "small"))
            #expect(try await ids(reader) == [2, 4, 6, 8, 10])
            #expect(reader.sync.state.pending == 0)
            #expect(try scene.serverItems().map(\.id) == [1, 2, 4, 5, 6, 7, 8, 9, 10])  // no delete was sent

            // The subscriptions are kept in the file.
            let again = try await StoreSync(
                configuration: readerFile.configuration, server: scene.server,
                types: [SyncItem.self, SyncOwner.self], partial: [SyncItem.self])
            #expect(await again.subscriptions.map(\.name) == ["b"])
            #expect(try await again.unsubscribeAll(ofType: SyncItem.self))
            #expect(try await ids(reader) == [])
        }

        @Test("a local change that takes an object out of the subscriptions is pushed, then the object leaves")
        func localChangeLeaves() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: scene.server)
            try await writer.write { store in
                for id in 1...4 { try store.add(SyncItem(id: id, title: "t\(id)", count: id)) }
            }
            try await writer.sync.synchronize()
            let reader = try await SyncClient(server: scene.server, partial: [SyncItem.self])
            try await reader.sync.subscribe(SyncItem.self, where: { $0.count <= 2 })
            #expect(try await ids(reader) == [1, 2])
            // Made here, outside the subscription: sent, then gone from this file.
            try await reader.write { store in
                store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.count = 100
                try store.add(SyncItem(id: 20, title: "made here", count: 99))
            }
            try await reader.sync.synchronize()
            #expect(try await ids(reader) == [2])
            let server = try scene.serverItems()
            #expect(server.first { $0.id == 1 }?.count == 100)
            #expect(server.contains { $0.id == 20 })
        }

        @Test(
            "an object that leaves while a local change of it waits stays until the change is pushed; offline subscribing keeps the subscription"
        )
        func pendingChangeKeepsItsObject() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: scene.server)
            try await writer.write { store in
                for id in 1...3 { try store.add(SyncItem(id: id, title: "t\(id)", count: id)) }
            }
            try await writer.sync.synchronize()
            let reader = try await SyncClient(server: scene.server, partial: [SyncItem.self])
            try await reader.sync.subscribe(SyncItem.self, named: "low", where: { $0.count <= 2 })
            try await writer.write { store in store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.count = 100 }
            try await writer.sync.synchronize()
            try await reader.write { store in store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.title = "mine" }
            try await reader.sync.pull()  // item 1 no longer matches, but its title waits to be pushed
            #expect(try await ids(reader) == [1, 2])
            try await reader.sync.synchronize()
            #expect(try await ids(reader) == [2])
            #expect(
                try scene.serverItems().first { $0.id == 1 }.map { ($0.title, $0.count) } ?? ("", 0) == ("mine", 100))

            // Offline: the subscription is kept, and its objects arrive once the server answers.
            var unreachable = scene.server
            unreachable.port = 1
            let offlineFile = Fixture([SyncItem.self, SyncOwner.self])
            let offline = try await SyncClient(server: unreachable, fixture: offlineFile, partial: [SyncItem.self])
            await #expect(throws: SyncError.self) {
                try await offline.sync.subscribe(SyncItem.self, named: "all", where: "TRUEPREDICATE")
            }
            #expect(await offline.sync.subscriptions.map(\.name) == ["all"])
            let online = try await StoreSync(
                configuration: offlineFile.configuration, server: scene.server, types: [SyncItem.self, SyncOwner.self],
                partial: [SyncItem.self])
            try await online.synchronize()
            #expect(try await ids(offline) == [1, 2, 3])
        }

        @Test("a condition the server cannot evaluate, or a type synced whole, is .unsupportedQuery and kept nowhere")
        func refused() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let reader = try await SyncClient(server: scene.server, partial: [SyncItem.self])
            await #expect(throws: SyncError.self) {
                try await reader.sync.subscribe(SyncOwner.self, where: { $0.name == "x" }, waitForSync: false)
            }
            await #expect(throws: SyncError.self) {
                try await reader.sync.subscribe(SyncItem.self, where: "title ==[d] 'e'", waitForSync: false)
            }
            let failure = await #expect(throws: SyncError.self) {
                try await reader.sync.subscribe(SyncItem.self, where: { $0.owner.name == "x" }, waitForSync: false)
            }
            #expect(failure.map { "\($0)" }?.contains("owner.name") == true)
            #expect(await reader.sync.subscriptions.isEmpty)
            await #expect(throws: SyncError.self) {
                _ = try await StoreSync(
                    configuration: Fixture([SyncItem.self, SyncOwner.self]).configuration, server: scene.server,
                    types: [SyncItem.self], partial: [SyncOwner.self])
            }
        }

        @Test("the server selects exactly the objects the same query selects locally (nil, case, quotes, wildcards)")
        func serverAgreesWithLocalQueries() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let writer = try await SyncClient(server: scene.server)
            let titles = [
                "Apple", "apple", "Äpfel", "banana", "it's", "back\\slash", "100%", "a_b", "ab", "", "Zebra", "zebra",
                "émile", "b*c", "b?c",
            ]
            try await writer.write { store in
                for (index, title) in titles.enumerated() {
                    try store.add(
                        SyncItem(
                            id: index, title: title, count: index * 7 % 11 - 5,
                            note: index % 3 == 0 ? nil : titles[(index + 4) % titles.count]))
                }
            }
            try await writer.sync.synchronize()
            // A new client that subscribes before its first synchronization starts from the tables.
            let reader = try await SyncClient(server: scene.server, partial: [SyncItem.self])
            try await reader.sync.subscribe(SyncItem.self, named: "q", where: { $0.count >= 0 }, waitForSync: false)
            try await reader.sync.synchronize()
            let local = try await writer.read { store in
                store.objects(SyncItem.self).where { $0.count >= 0 }.map(\.id).sorted()
            }
            #expect(try await ids(reader) == local)

            let queries: [(String, [any Sendable])] = [
                ("title == $0", ["apple"]), ("title ==[c] $0", ["APPLE"]), ("title != $0", ["ab"]),
                ("title < $0", ["b"]), ("title >= $0", ["a"]), ("title BEGINSWITH $0", ["a"]),
                ("title BEGINSWITH[c] $0", ["A"]), ("title ENDSWITH $0", ["ra"]), ("title CONTAINS $0", ["'"]),
                ("title CONTAINS $0", ["\\"]), ("title CONTAINS $0", ["%"]), ("title LIKE $0", ["a?b"]),
                ("title LIKE $0", ["*_*"]), ("title LIKE $0", ["b\\*c"]), ("title LIKE[c] $0", ["z*"]),
                ("note == nil", []), ("note != nil", []), ("note < $0", ["b"]), ("note > $0", ["b"]),
                ("note <= nil", []), ("note > nil", []), ("count IN {-5, 0, 2}", []), ("count BETWEEN {-2, 2}", []),
                ("NOT (count > 0) OR title == 'ab'", []), ("count > 0 AND note BEGINSWITH 'b'", []),
                ("TRUEPREDICATE", []), ("FALSEPREDICATE", []), ("title IN {'Apple', \"it's\", 'zz'}", []),
            ]
            for (query, arguments) in queries {
                try await reader.sync.subscribe(SyncItem.self, named: "q", where: query, arguments: arguments)
                let local = try await writer.read { store in
                    try store.objects(SyncItem.self).where(query, arguments: arguments).map(\.id).sorted()
                }
                let held = try await ids(reader)
                #expect(held == local, "\(query) \(arguments): \(held) here, \(local) by the local query")
            }
        }
    }
#endif
