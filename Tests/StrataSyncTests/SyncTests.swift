#if Sync
    import Foundation
    import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    @Suite("StrataSync against a private PostgreSQL", .serialized, .offThePool, .fixtureChecks)
    struct SyncTests {
        @Test("what one client commits, another pulls: inserts, updates, deletes, links; the server's tables agree")
        func twoClientsConverge() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            try await alice.write { store in
                let owner = SyncOwner(name: "alice")
                try store.add(owner)
                for id in 1...5 {
                    let item = SyncItem(id: id, title: "item \(id)", count: id)
                    item.owner = id.isMultiple(of: 2) ? owner : nil
                    try store.add(item)
                }
            }
            #expect(await waitUntil(timeout: .seconds(60)) { alice.sync.state.pending == 6 })
            try await alice.sync.synchronize()
            #expect(alice.sync.state.pending == 0)
            try await bob.sync.synchronize()
            let expected = try await alice.items()
            #expect(expected.count == 5)
            #expect(try await bob.items() == expected)
            #expect(try scene.serverItems() == expected)

            try await bob.write { store in
                let items = store.objects(SyncItem.self)
                try store.delete(items.filter { $0.id == 1 }.first!)
                items.filter { $0.id == 2 }.first!.note = "from bob"
                items.filter { $0.id == 3 }.first!.owner = store.object(ofType: SyncOwner.self, forPrimaryKey: "alice")
            }
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()
            let after = try await bob.items()
            #expect(after.map(\.id) == [2, 3, 4, 5])
            #expect(after.first { $0.id == 2 }?.note == "from bob")
            #expect(after.first { $0.id == 3 }?.owner == "alice")
            #expect(try await alice.items() == after)
            #expect(try scene.serverItems() == after)
            #expect(alice.sync.state.lastSequence == bob.sync.state.lastSequence)
        }

        @Test("the same property set on two clients: the change the server sequenced last wins everywhere")
        func lastSequencedWins() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            try await alice.write { try $0.add(SyncItem(id: 1, title: "first", count: 1)) }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()

            try await alice.write { $0.objects(SyncItem.self).first!.title = "alice's" }
            try await bob.write { store in
                store.objects(SyncItem.self).first!.title = "bob's"
                store.objects(SyncItem.self).first!.count = 2
            }
            try await alice.sync.synchronize()  // sequenced first
            try await bob.sync.synchronize()  // bob's pending title is re-applied over alice's, then sequenced last
            #expect(try await bob.items().first?.title == "bob's")
            try await alice.sync.synchronize()
            let expected = [ItemState(id: 1, title: "bob's", count: 2, note: nil, owner: nil)]
            #expect(try await alice.items() == expected)
            #expect(try await bob.items() == expected)
            #expect(try scene.serverItems() == expected)
        }

        @Test("two clients insert an object of the same key: the insert the server sequenced last wins everywhere")
        func sameKeyInsertedTwice() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            try await alice.write { try $0.add(SyncItem(id: 5, title: "alice's five", count: 1)) }
            try await bob.write { store in
                try store.add(SyncItem(id: 4, title: "bob's four", count: 4))
                try store.add(SyncItem(id: 5, title: "bob's five", count: 2))
                try store.add(SyncItem(id: 6, title: "bob's six", count: 6))
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()  // its insert of 5 finds alice's row on the server
            try await alice.sync.synchronize()
            let expected = [
                ItemState(id: 4, title: "bob's four", count: 4, note: nil, owner: nil),
                ItemState(id: 5, title: "bob's five", count: 2, note: nil, owner: nil),
                ItemState(id: 6, title: "bob's six", count: 6, note: nil, owner: nil),
            ]
            #expect(try scene.serverItems() == expected)
            #expect(try await alice.items() == expected)
            #expect(try await bob.items() == expected)
            #expect(bob.sync.state.pending == 0)
        }

        @Test("a client's pending change is not undone by a pull; other properties of the object still arrive")
        func pendingChangesStayOnTop() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            try await alice.write { try $0.add(SyncItem(id: 1, title: "first", count: 1)) }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            try await alice.write { store in
                store.objects(SyncItem.self).first!.title = "alice's"
                store.objects(SyncItem.self).first!.count = 10
            }
            try await alice.sync.synchronize()
            try await bob.write { $0.objects(SyncItem.self).first!.title = "bob's, not pushed" }
            // Bob's outbox holds the title: a pull brings the count, not the title.
            #expect(await waitUntil(timeout: .seconds(60)) { bob.sync.state.pending == 1 })
            try await bob.sync.pull()
            #expect(
                try await bob.items() == [
                    ItemState(id: 1, title: "bob's, not pushed", count: 10, note: nil, owner: nil)
                ])
        }

        @Test("a delete wins over earlier updates; a later insert of the same key recreates the object")
        func deleteAndRecreate() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            try await alice.write { try $0.add(SyncItem(id: 7, title: "v1", count: 1)) }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()

            try await bob.write { $0.objects(SyncItem.self).first!.count = 2 }
            try await bob.sync.synchronize()
            // alice has not seen bob's update
            try await alice.write { try $0.delete($0.objects(SyncItem.self).first!) }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await alice.items().isEmpty)
            #expect(try await bob.items().isEmpty)
            #expect(try scene.serverItems().isEmpty)

            try await bob.write { try $0.add(SyncItem(id: 7, title: "v2", count: 3)) }
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()
            let expected = [ItemState(id: 7, title: "v2", count: 3, note: nil, owner: nil)]
            #expect(try await alice.items() == expected)
            #expect(try scene.serverItems() == expected)
        }

        @Test(
            "values of every kind reach the server's typed columns and the other client: inserts, partial updates, nulls"
        )
        func everyKindOfValue() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let fixture = { Fixture([SyncItem.self, SyncOwner.self, SyncKinds.self]) }
            let carol = try await scene.follower(fixture: fixture(), types: [SyncKinds.self])  // by pulls
            let alice = try await SyncClient(server: scene.server, fixture: fixture(), types: [SyncKinds.self])
            let bob = try await SyncClient(server: scene.server, fixture: fixture(), types: [SyncKinds.self])
            let full = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
            let empty = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!
            try await alice.write { store in
                let kinds = SyncKinds()
                kinds.id = full
                kinds.flag = true
                kinds.big = .max
                kinds.ratio = 0.1
                kinds.blob = Data([0, 1, 255])
                kinds.at = Date(timeIntervalSince1970: 1_700_000_000.25)
                kinds.amount = Decimal(string: "12.345")!
                kinds.numbers.append(objectsIn: [1, -2, 3])
                kinds.small = -8
                kinds.label = "it's \"quoted\", é"
                try store.add(kinds)
                let bare = SyncKinds()
                bare.id = empty
                try store.add(bare)
            }
            try await alice.sync.synchronize()
            let query = """
                SELECT id, flag, big, ratio, encode(blob, 'hex'), extract(epoch FROM at), amount, numbers::text,
                    coalesce(small::text, '<nil>'), coalesce(label, '<nil>')
                FROM strata."SyncKinds" ORDER BY id
                """
            let inserted = try scene.cluster.psql(query, database: scene.database)
            #expect(
                inserted.split(separator: "\n") == [
                    "00000000-0000-0000-0000-00000000000a|t|18446744073709551615|0.1|0001ff|1700000000.250000|12.345|[1, -2, 3]|-8|it's \"quoted\", é",
                    "00000000-0000-0000-0000-00000000000b|f|0|0||978307200.000000|0|[]|<nil>|<nil>",
                ])
            // One batch sets a different property of each object: each row sets only its own.
            try await alice.write { store in
                store.object(ofType: SyncKinds.self, forPrimaryKey: full)!.label = nil
                store.object(ofType: SyncKinds.self, forPrimaryKey: empty)!.ratio = -2.5
                store.object(ofType: SyncKinds.self, forPrimaryKey: empty)!.small = 7
            }
            try await alice.sync.synchronize()
            #expect(
                try scene.cluster.psql(
                    "SELECT id, ratio, coalesce(small::text, '<nil>'), coalesce(label, '<nil>') FROM strata.\"SyncKinds\" ORDER BY id",
                    database: scene.database
                ).split(separator: "\n") == [
                    "00000000-0000-0000-0000-00000000000a|0.1|-8|<nil>",
                    "00000000-0000-0000-0000-00000000000b|-2.5|7|<nil>",
                ])
            try await bob.sync.synchronize()
            let describe: @Sendable (Store) -> [String] = { store in
                store.objects(SyncKinds.self).sorted { $0.id.uuidString < $1.id.uuidString }.map { kinds in
                    "\(kinds.id) \(kinds.flag) \(kinds.big) \(kinds.ratio) \(Array(kinds.blob)) "
                        + "\(kinds.at.timeIntervalSince1970) \(kinds.amount) \(Array(kinds.numbers)) "
                        + "\(kinds.small.map(String.init) ?? "nil") \(kinds.label ?? "nil")"
                }
            }
            let expected = try await alice.read(describe)
            #expect(expected.count == 2)
            #expect(try await bob.read(describe) == expected)  // started from the tables
            try await carol.sync.synchronize()
            #expect(try await carol.read(describe) == expected)  // pulled the changes
        }

        @Test(
            "ObjectId keys, Decimal128, Map (jsonb) and MutableSet (arrays) reach the server's typed columns and the other client"
        )
        func modelKinds() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let fixture = { Fixture([SyncItem.self, SyncOwner.self, SyncModelKinds.self]) }
            let carol = try await scene.follower(fixture: fixture(), types: [SyncModelKinds.self])  // by pulls
            let alice = try await SyncClient(server: scene.server, fixture: fixture(), types: [SyncModelKinds.self])
            let bob = try await SyncClient(server: scene.server, fixture: fixture(), types: [SyncModelKinds.self])
            let first = try ObjectId(string: "65a1b2c3d4e5f60718293a4b")
            let second = try ObjectId(string: "65a1b2c3d4e5f60718293a4c")
            try await alice.write { store in
                let kinds = SyncModelKinds()
                kinds.id = first
                kinds.balance = "-12.50"
                kinds.phones["home"] = "it's \"1\""
                kinds.phones["work"] = "2"
                kinds.scores["none"] = .some(nil)
                kinds.scores["ten"] = 10
                kinds.tags.insert(objectsIn: ["b", "a,{}", "\\"])
                kinds.dates.insert(Date(timeIntervalSince1970: 1_700_000_000))
                kinds.extra = .map(["n": .int(1), "s": .list([.string("x"), .double(0.5)])])
                try store.add(kinds)
                let other = SyncModelKinds()
                other.id = second
                other.friend = kinds
                try store.add(other)
            }
            try await alice.sync.synchronize()
            let rows = try scene.cluster.psql(
                """
                SELECT id, balance, phones::text, scores::text, array_to_string(tags, '|'), cardinality(dates),
                    coalesce(friend, '<nil>'), extra::text
                FROM strata."SyncModelKinds" ORDER BY id
                """, database: scene.database)
            #expect(
                rows.split(separator: "\n") == [
                    #"65a1b2c3d4e5f60718293a4b|-12.50|{"home": "it's \"1\"", "work": "2"}|{"ten": 10, "none": null}|\|a,{}|b|1|<nil>|{"n": 1, "s": ["x", 0.5]}"#,
                    #"65a1b2c3d4e5f60718293a4c|0|{}|{}||0|65a1b2c3d4e5f60718293a4b|null"#,
                ])
            try await alice.write { store in
                let kinds = store.object(ofType: SyncModelKinds.self, forPrimaryKey: first)!
                kinds.phones["home"] = nil
                kinds.tags.remove("b")
                kinds.balance += 1
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            let describe: @Sendable (Store) -> [String] = { store in
                store.objects(SyncModelKinds.self).map { kinds in
                    "\(kinds.id) \(kinds.balance) \(kinds.phones.map { "\($0.key)=\($0.value)" }) "
                        + "\(kinds.scores.map { "\($0.key)=\($0.value.map(String.init) ?? "nil")" }) \(Array(kinds.tags)) "
                        + "\(kinds.dates.count) \(kinds.friend?.id.stringValue ?? "nil")"
                }
            }
            let expected = try await alice.read(describe)
            #expect(
                expected.first
                    == "65a1b2c3d4e5f60718293a4b -11.50 [\"work=2\"] [\"none=nil\", \"ten=10\"] [\"\\\\\", \"a,{}\"] 1 nil"
            )
            #expect(try await bob.read(describe) == expected)
            try await carol.sync.synchronize()
            #expect(try await carol.read(describe) == expected)
        }

        @Test("a Map syncs per key: concurrent changes of different keys both win; of one key, the later one")
        func mapPerKey() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let fixture = { Fixture([SyncItem.self, SyncOwner.self, SyncModelKinds.self]) }
            let alice = try await SyncClient(server: scene.server, fixture: fixture(), types: [SyncModelKinds.self])
            let bob = try await SyncClient(server: scene.server, fixture: fixture(), types: [SyncModelKinds.self])
            let id = try ObjectId(string: "65a1b2c3d4e5f60718293a4b")
            try await alice.write { store in
                let kinds = SyncModelKinds()
                kinds.id = id
                kinds.phones["home"] = "1"
                kinds.phones["work"] = "1"
                kinds.phones["old"] = "1"
                kinds.scores["a"] = 1
                try store.add(kinds)
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            // Offline on both: alice sets home and removes old, bob sets work and adds a null score.
            try await alice.write { store in
                let kinds = store.object(ofType: SyncModelKinds.self, forPrimaryKey: id)!
                kinds.phones["home"] = "alice"
                kinds.phones["old"] = nil
            }
            try await bob.write { store in
                let kinds = store.object(ofType: SyncModelKinds.self, forPrimaryKey: id)!
                kinds.phones["work"] = "bob"
                kinds.scores["b"] = .some(nil)
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()  // pulls alice's keys (bob holds only "work"), pushes its own
            try await alice.sync.synchronize()
            let describe: @Sendable (Store) -> String = { store in
                guard let kinds = store.object(ofType: SyncModelKinds.self, forPrimaryKey: id) else { return "none" }
                return "\(kinds.phones.map { "\($0.key)=\($0.value)" }) "
                    + "\(kinds.scores.map { "\($0.key)=\($0.value.map(String.init) ?? "nil")" })"
            }
            let merged = "[\"home=alice\", \"work=bob\"] [\"a=1\", \"b=nil\"]"
            #expect(try await alice.read(describe) == merged)
            #expect(try await bob.read(describe) == merged)
            let row = try scene.cluster.psql(
                "SELECT phones::text, scores::text FROM strata.\"SyncModelKinds\"", database: scene.database)
            #expect(row == #"{"home": "alice", "work": "bob"}|{"a": 1, "b": null}"#, "\(row)")
            // One key changed on both: the change the server sequences last wins.
            try await alice.write { store in
                store.object(ofType: SyncModelKinds.self, forPrimaryKey: id)!.phones["home"] = "A"
            }
            try await bob.write { store in
                store.object(ofType: SyncModelKinds.self, forPrimaryKey: id)!.phones["home"] = "B"
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()
            #expect(try await alice.read(describe).hasPrefix("[\"home=B\", \"work=bob\"]"))
            #expect(try await bob.read(describe) == (try await alice.read(describe)))
        }

        @Test(
            "embedded objects travel inside their owner's row (jsonb on the server): set, changed in place, replaced, deleted with it"
        )
        func embeddedObjects() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let fixture = { Fixture([SyncItem.self, SyncOwner.self, SyncPlace.self]) }
            let types: [Object.Type] = [SyncItem.self, SyncPlace.self]
            let carol = try await scene.follower(fixture: fixture(), types: types)  // by pulls
            let alice = try await SyncClient(server: scene.server, fixture: fixture(), types: types)
            let bob = try await SyncClient(server: scene.server, fixture: fixture(), types: types)
            try await alice.write { store in
                let item = SyncItem(id: 7, title: "pin", count: 0)
                try store.add(item)
                let place = SyncPlace(id: 1, name: "office")
                place.address = SyncAddress("Oslo", street: "Storgata 1")
                place.address?.point = SyncPoint()
                place.address?.point?.latitude = 59.9
                place.address?.point?.owner = item
                place.stops.append(objectsIn: [SyncAddress("Bergen"), SyncAddress("Trondheim")])
                place.byLabel["home"] = SyncAddress("Tromsø")
                place.byLabel["none"] = .some(nil)
                try store.add(place)
            }
            try await alice.sync.synchronize()
            let row = try scene.cluster.psql(
                """
                SELECT address->>'city', address->'point'->>'latitude', address->'point'->>'owner',
                    jsonb_array_length(stops), stops->1->>'city', "byLabel"->'home'->>'city', "byLabel"->'none'
                FROM strata."SyncPlace"
                """, database: scene.database)
            #expect(row == "Oslo|59.9|7|2|Trondheim|Tromsø|null", "\(row)")
            try await bob.sync.synchronize()
            let describe: @Sendable (Store) -> String = { store in
                guard let place = store.object(ofType: SyncPlace.self, forPrimaryKey: 1) else { return "none" }
                let address = place.address.map {
                    "\($0.city)/\($0.street)/\($0.point?.latitude ?? 0)/\($0.point?.owner?.title ?? "nil")"
                }
                return "\(address ?? "nil") \(place.stops.map(\.city)) "
                    + "\(place.byLabel.map { "\($0.key)=\($0.value?.city ?? "nil")" }) "
                    + "\(store.objects(SyncAddress.self).count)+\(store.objects(SyncPoint.self).count)"
            }
            let first = "Oslo/Storgata 1/59.9/pin [\"Bergen\", \"Trondheim\"] [\"home=Tromsø\", \"none=nil\"] 4+1"
            #expect(try await bob.read(describe) == first)  // started from the tables
            try await carol.sync.synchronize()
            #expect(try await carol.read(describe) == first)  // pulled the insert
            // Changed in place (only the embedded row changes): the owner's property travels.
            try await alice.write { store in
                store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!.address!.city = "Bergen"
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await bob.read(describe).hasPrefix("Bergen/Storgata 1/59.9/pin"))
            // In place inside a Map: the Map travels whole, as embedded objects (not as row ids).
            try await alice.write { store in
                store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!.byLabel["home"]??.city = "Narvik"
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await bob.read(describe).contains("home=Narvik"))
            let home = try scene.cluster.psql(
                #"SELECT "byLabel"->'home'->>'city' FROM strata."SyncPlace""#, database: scene.database)
            #expect(home == "Narvik")
            try await alice.write { store in
                store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!.byLabel["home"]??.city = "Tromsø"
            }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            // Replaced and removed on the other client: the old embedded rows are deleted there.
            try await bob.write { store in
                let place = store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!
                place.stops.removeFirst()
                place.address = SyncAddress("Stavanger")
            }
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()
            let expected = "Stavanger//0.0/nil [\"Trondheim\"] [\"home=Tromsø\", \"none=nil\"] 3+0"
            #expect(try await alice.read(describe) == expected)
            #expect(try await bob.read(describe) == expected)
            // Concurrent edits of one embedded object: it is one property of its owner, so the change
            // the server sequences last wins whole, and a client's pending change stays on top.
            try await bob.write { store in
                store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!.address!.city = "Bodø"
            }
            try await alice.write { store in
                store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!.address!.street = "Kirkegata"
            }
            try await bob.sync.synchronize()
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await alice.read(describe).hasPrefix("Stavanger/Kirkegata/"))
            #expect(try await bob.read(describe) == (try await alice.read(describe)))
            // Deleted with their owner, on both clients.
            try await alice.write { store in try store.delete(store.object(ofType: SyncPlace.self, forPrimaryKey: 1)!) }
            try await alice.sync.synchronize()
            try await bob.sync.synchronize()
            #expect(try await bob.read(describe) == "none")
            #expect(try await bob.read { try $0.verify().orphans }.isEmpty)
            try await carol.sync.synchronize()
            #expect(try await carol.read(describe) == "none")
            #expect(try await carol.read { try $0.verify().orphans }.isEmpty)
            #expect(try await bob.read { $0.objects(SyncAddress.self).count } == 0)
        }

        @Test("a client offline for 1,000 commits catches up, and so does the other")
        func offlineThousandCommits() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            var offline = scene.server
            offline.port = try closedPort()
            offline.connectTimeout = .seconds(1)
            let fixture = Fixture([SyncItem.self, SyncOwner.self])
            do {
                let away = try await SyncClient(server: offline, fixture: fixture)
                for commit in 0..<1_000 {
                    try await away.write { store in
                        if let item = store.object(ofType: SyncItem.self, forPrimaryKey: commit % 100) {
                            item.count += 1
                        } else {
                            try store.add(SyncItem(id: commit % 100, title: "item \(commit % 100)", count: 1))
                        }
                    }
                }
                await #expect(throws: SyncError.self) { try await away.sync.synchronize() }
                #expect(away.sync.state.pending == 1_000)
                #expect(away.sync.state.connection == .offline)
            }
            let back = try await SyncClient(server: scene.server, fixture: fixture)
            try await back.sync.synchronize()
            #expect(back.sync.state.pending == 0)
            let other = try await SyncClient(server: scene.server)
            try await other.sync.synchronize()
            let expected = try await back.items()
            #expect(expected.count == 100)
            #expect(expected.allSatisfy { $0.count == 10 })
            #expect(try await other.items() == expected)
            #expect(try scene.serverItems() == expected)
        }

        @Test("observers of a client hear of pulled changes as of local ones; a started sync delivers promptly")
        func observersHearRemoteChanges() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let alice = try await SyncClient(server: scene.server)
            let bob = try await SyncClient(server: scene.server)
            await alice.sync.start()
            await bob.sync.start()
            let heard = Box<[String]>([])  // "insertions/modifications/deletions" of each update
            try await bob.observeItems { change in
                if case .update(_, let deletions, let insertions, let modifications) = change {
                    heard.mutate { $0.append("\(insertions)/\(modifications)/\(deletions)") }
                }
            }
            try await alice.write { try $0.add(SyncItem(id: 1, title: "one", count: 1)) }
            #expect(await waitUntil(timeout: .seconds(60)) { heard.value.contains("[0]/[]/[]") }, "\(heard.value)")
            try await alice.write { $0.objects(SyncItem.self).first!.count = 2 }
            #expect(await waitUntil(timeout: .seconds(60)) { heard.value.contains("[]/[0]/[]") }, "\(heard.value)")
            await alice.sync.stop()
            await bob.sync.stop()
            #expect(try await bob.items() == [ItemState(id: 1, title: "one", count: 2, note: nil, owner: nil)])
        }

        @Test("the server unreachable at start: a typed error within the timeout; local writes go on")
        func unreachableAtStart() async throws {
            var server = SyncServer(
                username: "strata", password: "strata", database: "app", connectTimeout: .seconds(2))
            server.port = try closedPort()
            let client = try await SyncClient(server: server)
            try await client.write { try $0.add(SyncItem(id: 1)) }
            let started = ContinuousClock.now
            await #expect {
                try await client.sync.synchronize()
            } throws: { error in
                if case .unreachable = error as? SyncError { return true }
                return false
            }
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(client.sync.state.connection == .offline)
            #expect(client.sync.state.pending == 1)
            if case .unreachable = client.sync.state.lastError {
            } else {
                Issue.record("\(String(describing: client.sync.state.lastError))")
            }
        }

        @Test("the server stops and starts again: the next synchronize() of every client succeeds within seconds")
        func serverRestartBetweenSynchronizations() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let started = try await SyncClient(server: scene.server)
            let plain = try await SyncClient(server: scene.server)  // never started: synchronize() alone
            let idle = try await SyncClient(server: scene.server)  // not asked anything while the server is down
            try await started.write { try $0.add(SyncItem(id: 1, title: "before")) }
            try await started.sync.synchronize()
            try await plain.sync.synchronize()
            try await idle.sync.synchronize()
            await started.sync.start()
            #expect(try await plain.items().map(\.id) == [1])

            try scene.cluster.stopServer()
            try await started.write { try $0.add(SyncItem(id: 2, title: "offline")) }
            try await plain.write { try $0.add(SyncItem(id: 3, title: "offline too")) }
            for client in [started, plain] {
                let failedAt = ContinuousClock.now
                await #expect {
                    try await client.sync.synchronize()
                } throws: { error in
                    if case .unreachable = error as? SyncError { return true }
                    return false
                }
                #expect(ContinuousClock.now - failedAt < .seconds(15))
            }

            try scene.cluster.restartServer()
            for client in [idle, started, plain] {
                let began = ContinuousClock.now
                try await client.sync.synchronize()
                #expect(ContinuousClock.now - began < .seconds(10), "took \(ContinuousClock.now - began)")
            }
            try await started.sync.synchronize()  // pulls what the plain client pushed after it
            let expected = try await plain.items()
            #expect(expected.map(\.id) == [1, 2, 3])
            #expect(try await started.items() == expected)
            try await idle.sync.synchronize()
            #expect(try await idle.items() == expected)
            #expect(try scene.serverItems() == expected)
            await started.sync.stop()
        }

        @Test("bad credentials: .authenticationFailed, and nothing of the outbox is lost")
        func badCredentials() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            var server = scene.server
            server.password = "wrong"
            let client = try await SyncClient(server: server)
            try await client.write { try $0.add(SyncItem(id: 1)) }
            await #expect {
                try await client.sync.synchronize()
            } throws: { error in
                if case .authenticationFailed = error as? SyncError { return true }
                return false
            }
            #expect(client.sync.state.pending == 1)
        }

        @Test("a server whose tables describe a type otherwise: .schemaMismatch, nothing pushed")
        func schemaMismatch() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let first = try await SyncClient(server: scene.server)
            try await first.sync.synchronize()
            _ = try scene.cluster.psql(
                "UPDATE strata.types SET fingerprint = 'key=id;id:integer,title:string' WHERE name = 'SyncItem'",
                database: scene.database)
            let second = try await SyncClient(server: scene.server)
            try await second.write { try $0.add(SyncItem(id: 1)) }
            await #expect {
                try await second.sync.synchronize()
            } throws: { error in
                if case .schemaMismatch = error as? SyncError { return true }
                return false
            }
            #expect(second.sync.state.pending == 1)
            #expect(try scene.cluster.psql("SELECT count(*) FROM strata.change_log", database: scene.database) == "0")
        }

        @Test("a server of another sync protocol version: .schemaMismatch, nothing pushed")
        func protocolVersionMismatch() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let first = try await SyncClient(server: scene.server)
            try await first.sync.synchronize()
            _ = try scene.cluster.psql(
                "UPDATE strata.sync_meta SET value = '1' WHERE key = 'protocol'", database: scene.database)
            let second = try await SyncClient(server: scene.server)
            try await second.write { try $0.add(SyncItem(id: 1)) }
            await #expect {
                try await second.sync.synchronize()
            } throws: { error in
                guard case .schemaMismatch(let reason) = error as? SyncError else { return false }
                return reason.contains("protocol 1")
            }
            #expect(second.sync.state.pending == 1)
            #expect(try scene.cluster.psql("SELECT count(*) FROM strata.change_log", database: scene.database) == "0")
        }

        @Test("pulls in windows smaller and larger than the pushes: every change once, in order, to the last sequence")
        func pullWindows() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            var small = scene.server
            small.batchSize = 7
            let pusher = try await SyncClient(server: small)
            // The pullers hold a first change already: from there they follow the change stream (a
            // client with nothing starts from the typed tables instead).
            try await pusher.write { try $0.add(SyncItem(id: 1_000, title: "seed")) }
            try await pusher.sync.synchronize()
            var pullers: [(Int, SyncClient)] = []
            for batchSize in [1, 3, 50, 2_000] {
                var server = scene.server
                server.batchSize = batchSize
                let puller = try await SyncClient(server: server)
                try await puller.sync.pull()
                #expect(puller.sync.state.lastSequence == 1)
                pullers.append((batchSize, puller))
            }
            for round in 0..<5 {  // pushes of up to 7 changes: rows of 1 to 7 changes
                try await pusher.write { store in
                    for id in (round * 20)..<(round * 20 + 20) { try store.add(SyncItem(id: id, title: "r\(round)")) }
                }
                try await pusher.write { $0.objects(SyncItem.self).filter { $0.id == round * 20 }.first!.count = round }
                try await pusher.sync.synchronize()
            }
            let expected = try await pusher.items()
            #expect(expected.count == 101)
            let last = pusher.sync.state.lastSequence
            for (batchSize, puller) in pullers {
                try await puller.sync.pull()
                #expect(try await puller.items() == expected, "batch size \(batchSize)")
                #expect(puller.sync.state.lastSequence == last, "batch size \(batchSize)")
            }
        }

        @Test("a type without a primary key cannot be synced: .unsupportedType")
        func typeWithoutPrimaryKey() async throws {
            let fixture = Fixture([SyncItem.self, SyncOwner.self, Note.self])
            let server = SyncServer(username: "strata", database: "app")
            await #expect {
                _ = try await StoreSync(configuration: fixture.configuration, server: server, types: [Note.self])
            } throws: { error in
                if case .unsupportedType = error as? SyncError { return true }
                return false
            }
        }
    }

    /// A loopback port nobody listens on.
    func closedPort() throws -> Int {
        try PostgresCluster.freePort()
    }

    /// A value shared with callbacks.
    final class Box<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value { lock.withLock { stored } }
        func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    }
#endif
