#if Sync
    import Foundation
    @_spi(StrataSync) @testable import Strata
    import StrataSync
    import StrataTestSupport
    import Testing

    /// Objects' images on the server (`_strata_image`, what a new or re-bootstrapped client starts
    /// from) always equal what the typed columns hold: an update patches the image with the
    /// properties it sets (a Map's keys too), as it patches the columns.
    @Suite("StrataSync's object images", .serialized, .offThePool, .fixtureChecks)
    struct ImageTests {
        /// The server's SyncModelKinds as columns: id, balance and phones (sorted `key=value`).
        static func serverKinds(_ scene: SyncScene) throws -> [String] {
            let text = try scene.cluster.psql(
                "SELECT id, balance::text, phones::text FROM strata.\"SyncModelKinds\" ORDER BY id",
                database: scene.database)
            return try text.split(separator: "\n").map { line in
                let fields = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
                let phones = try JSONSerialization.jsonObject(with: Data(fields[2].utf8)) as? [String: String] ?? [:]
                return Self.describe(id: fields[0], balance: fields[1], phones: phones)
            }
        }

        static func describe(id: String, balance: String, phones: [String: String]) -> String {
            "\(id) \(balance) \(phones.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        }

        static let describeKinds: @Sendable (Store) -> [String] = { store in
            store.objects(SyncModelKinds.self).sorted(by: \.id).map { kinds in
                describe(
                    id: kinds.id.stringValue, balance: "\(kinds.balance)",
                    phones: Dictionary(uniqueKeysWithValues: kinds.phones.map { ($0.key, $0.value) }))
            }
        }

        /// A client that starts from the server's images (a new file: `StoreSync.bootstrap`).
        static func bootstrapped(_ scene: SyncScene, types: [Object.Type]) async throws -> SyncClient {
            let client = try await SyncClient(
                server: scene.server, fixture: Fixture([SyncItem.self, SyncOwner.self, SyncModelKinds.self]),
                types: types)
            try await client.sync.synchronize()
            return client
        }

        @Test("two clients change different properties of one object before pulling: a third starts with both")
        func threeClients() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let fixture = { Fixture([SyncItem.self, SyncOwner.self, SyncModelKinds.self]) }
            let types: [Object.Type] = [SyncItem.self, SyncOwner.self, SyncModelKinds.self]
            let laptop = try await SyncClient(server: scene.server, fixture: fixture(), types: types)
            let phone = try await SyncClient(server: scene.server, fixture: fixture(), types: types)
            let id = try ObjectId(string: "65a1b2c3d4e5f60718293a4b")
            try await laptop.write { store in
                try store.add(SyncItem(id: 1, title: "draft", count: 1))
                let kinds = SyncModelKinds()
                kinds.id = id
                kinds.phones["home"] = "1"
                try store.add(kinds)
            }
            try await laptop.sync.synchronize()
            try await phone.sync.synchronize()
            // Both offline: the laptop sets the title and a phone number, the phone the count and another.
            try await laptop.write { store in
                store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.title = "final"
                store.object(ofType: SyncModelKinds.self, forPrimaryKey: id)!.phones["work"] = "laptop"
            }
            try await phone.write { store in
                store.object(ofType: SyncItem.self, forPrimaryKey: 1)!.count = 2
                store.object(ofType: SyncModelKinds.self, forPrimaryKey: id)!.phones["home"] = "phone"
            }
            try await laptop.sync.push()
            try await phone.sync.push()  // has not pulled the laptop's change
            #expect(try scene.serverItems().map(\.description) == ["1:final:2:nil:nil"])
            let third = try await Self.bootstrapped(scene, types: types)
            #expect(try await third.items().map(\.description) == ["1:final:2:nil:nil"])
            #expect(try await third.read(Self.describeKinds) == (try Self.serverKinds(scene)))
            #expect(
                try await third.read(Self.describeKinds) == ["\(id.stringValue) 0 [\"home=phone\", \"work=laptop\"]"])
        }

        /// Seeded random property edits on three clients that push and pull at random moments; after
        /// every few pushes a new client starts from the images, and must hold exactly the columns.
        @Test(
            "random concurrent property edits on three clients: a bootstrap always equals the server",
            arguments: [11, 12, 13])
        func randomEdits(seed: UInt64) async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let types: [Object.Type] = [SyncItem.self, SyncOwner.self, SyncModelKinds.self]
            var clients: [SyncClient] = []
            for _ in 0..<3 {
                clients.append(
                    try await SyncClient(
                        server: scene.server, fixture: Fixture([SyncItem.self, SyncOwner.self, SyncModelKinds.self]),
                        types: types))
            }
            let ids = try (0..<3).map { try ObjectId(string: String(repeating: "0", count: 23) + "\($0)") }
            try await clients[0].write { store in
                for id in 1...3 { try store.add(SyncItem(id: id, title: "t\(id)", count: id)) }
                for id in ids {
                    let kinds = SyncModelKinds()
                    kinds.id = id
                    kinds.phones["a"] = "0"
                    try store.add(kinds)
                }
            }
            try await clients[0].sync.synchronize()
            for client in clients.dropFirst() { try await client.sync.synchronize() }
            var random = SplitMix64(state: seed)
            var checks = 0
            for round in 0..<150 {
                let client = clients[Int.random(in: 0..<3, using: &random)]
                let item = Int.random(in: 1...3, using: &random)
                let kindsID = ids[Int.random(in: 0..<3, using: &random)]
                let value = Int.random(in: 0..<1000, using: &random)
                let edit = Int.random(in: 0..<6, using: &random)
                let key = ["a", "b", "c"][Int.random(in: 0..<3, using: &random)]
                try await client.write { store in
                    let object = store.object(ofType: SyncItem.self, forPrimaryKey: item)!
                    let kinds = store.object(ofType: SyncModelKinds.self, forPrimaryKey: kindsID)!
                    switch edit {
                    case 0: object.title = "r\(round)-\(value)"
                    case 1: object.count = value
                    case 2: object.note = value.isMultiple(of: 3) ? nil : "n\(value)"
                    case 3: kinds.phones[key] = "\(value)"
                    case 4: kinds.phones[key] = nil
                    default: kinds.balance = Decimal128(value)
                    }
                }
                switch Int.random(in: 0..<4, using: &random) {
                case 0: try await client.sync.push()
                case 1: try await client.sync.synchronize()
                default: break  // stays offline for now
                }
                if round % 30 == 29 {
                    for client in clients { try await client.sync.push() }
                    let fresh = try await Self.bootstrapped(scene, types: types)
                    let items = try await fresh.items()
                    let kinds = try await fresh.read(Self.describeKinds)
                    #expect(items == (try scene.serverItems()), "round \(round) (seed \(seed)): items")
                    #expect(kinds == (try Self.serverKinds(scene)), "round \(round) (seed \(seed)): maps")
                    checks += 1
                }
            }
            #expect(checks == 5)
        }

        @Test("a server made before images were patched gets the functions from the next client that connects")
        func olderServer() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let first = try await SyncClient(server: scene.server)
            try await first.write { try $0.add(SyncItem(id: 1, title: "one", count: 1)) }
            try await first.sync.synchronize()
            _ = try scene.cluster.psql("DROP FUNCTION strata.patched_image(bytea, bytea)", database: scene.database)
            let second = try await SyncClient(server: scene.server)
            try await second.sync.synchronize()
            try await second.write { $0.object(ofType: SyncItem.self, forPrimaryKey: 1)!.count = 2 }
            try await second.sync.synchronize()
            let fresh = try await Self.bootstrapped(scene, types: [SyncItem.self, SyncOwner.self])
            #expect(try await fresh.items().map(\.description) == ["1:one:2:nil:nil"])
        }

        // MARK: The server's function against the client's

        /// A random payload of properties "p0"…"p4": values, nulls, whole Maps, or (`patches`) Map patches.
        static func payload(_ random: inout SplitMix64, patches: Bool, maps: Set<String>) -> [UInt8] {
            var writer = ChangePayload.Writer(capacity: 64)
            let names = ["p0", "p1", "p2", "p3", "p4"].filter { _ in patches ? Bool.random(using: &random) : true }
            for name in names.shuffled(using: &random) {
                if maps.contains(name) {
                    let keys = ["a", "b", "é", "ab", "B"].filter { _ in Bool.random(using: &random) }
                    if patches {
                        let changes: [(key: String, change: MapPatch.Change)] = keys.map { key in
                            switch Int.random(in: 0..<3, using: &random) {
                            case 0: (key, .removed)
                            case 1: (key, .set(nil))
                            default: (key, .set(Array("v\(Int.random(in: 0..<9, using: &random))".utf8)))
                            }
                        }
                        writer.append(name: name, value: MapPatch.encode(changes), isMapPatch: true)
                    } else {
                        var entries: [String: [UInt8]?] = [:]
                        for key in keys { entries[key] = Bool.random(using: &random) ? Array(key.utf8) : .some(nil) }
                        writer.append(name: name, value: MapFormat.column(entries))
                    }
                } else {
                    let value: [UInt8]? =
                        Int.random(in: 0..<4, using: &random) == 0
                        ? nil
                        : (0..<Int.random(in: 0..<6, using: &random)).map { _ in
                            UInt8.random(in: 0...255, using: &random)
                        }
                    writer.append(name: name, value: value)
                }
            }
            return writer.finish()
        }

        @Test("strata.patched_image gives what ChangePayload.patched gives, for 400 random images and updates")
        func serverFunctionAgainstTheReference() async throws {
            let scene = try SyncScene()
            defer { scene.stop() }
            let client = try await SyncClient(server: scene.server)
            try await client.sync.synchronize()  // makes the server's tables and functions
            var random = SplitMix64(state: 42)
            var cases: [(image: [UInt8], patch: [UInt8], expected: [UInt8])] = []
            for _ in 0..<400 {
                let maps = Set(["p1", "p3"].filter { _ in Bool.random(using: &random) })
                let image = Self.payload(&random, patches: false, maps: maps)
                let patch = Self.payload(&random, patches: true, maps: maps)
                cases.append((image, patch, try ChangePayload.patched(image, with: patch, baseIsImage: true)))
            }
            func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
            let values = cases.enumerated().map {
                "(\($0.offset), '\(hex($0.element.image))', '\(hex($0.element.patch))')"
            }
            let output = try scene.cluster.psql(
                """
                SELECT encode(strata.patched_image(decode(i, 'hex'), decode(p, 'hex')), 'hex')
                FROM (VALUES \(values.joined(separator: ", "))) AS c(n, i, p) ORDER BY n
                """, database: scene.database)
            let results = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            try #require(results.count >= cases.count)
            for (index, item) in cases.enumerated() {
                #expect(
                    results[index] == hex(item.expected),
                    "case \(index): image \(hex(item.image)), patch \(hex(item.patch))")
            }
        }
    }
#endif
