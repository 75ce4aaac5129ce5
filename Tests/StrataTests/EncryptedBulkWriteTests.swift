#if Encryption
    import Foundation
    import Testing

    @testable import Strata
    import StrataTestModels
    import StrataTestSupport

    /// Writes large enough to fill many sealed blocks in one transaction (blocks sealed before the
    /// commit), with updates and deletes of their rows afterwards in the same transaction: an
    /// encrypted Store reads afterwards (walks through the commit's image, reads by key, counts, and
    /// again after reopening) what a plain Store given the same operations reads.
    @Suite(.fixtureChecks, .offThePool) struct EncryptedBulkWriteTests {
        static func snapshot(_ store: Store) -> [String] {
            let walked = store.objects(Person.self).map { "\($0.id) \($0.name) \($0.age)" }.sorted()
            let sorted = store.objects(Person.self).sorted(by: \.id, ascending: true).map {
                "\($0.id) \($0.name) \($0.age)"
            }
            return walked + ["--"] + Array(sorted) + ["count \(store.objects(Person.self).count)"]
        }

        /// Records the first line where `got` differs from `expected` (not the whole snapshots).
        static func expectSame(_ got: [String], _ expected: [String], _ what: String) {
            guard got != expected else { return }
            let index =
                (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
            let line = { (lines: [String]) in index < lines.count ? lines[index] : "(end)" }
            Issue.record("\(what): line \(index): \(line(got)), expected \(line(expected))")
        }

        @Test(arguments: [UInt64(1), 2, 3]) func bulkWritesWithLaterChangesReadAsOnAPlainStore(seed: UInt64)
            throws
        {
            let types: [Object.Type] = [Person.self, Dog.self]
            let plainFixture = Fixture(types)
            let encryptedFixture = Fixture(types) { $0.encryptionKey = EncryptedStoreTests.key }
            let plain = try Store(configuration: plainFixture.configuration)
            let encrypted = try Store(configuration: encryptedFixture.configuration)
            var probes = SplitMix64(state: seed + 100)
            for round in 0..<4 {
                let base = round * 3_000
                for store in [plain, encrypted] {
                    var random = SplitMix64(state: seed &* 1_000 &+ UInt64(round))
                    try store.write {
                        // New rows in increasing order (a bulk insert), past many blocks...
                        for id in base..<(base + 2_000 + Int(random.next() % 1_000)) {
                            let name = "person \(id) " + String(repeating: "x", count: Int(random.next() % 60))
                            try store.add(Person(id: id, name: name, age: Int(random.next() % 90)))
                        }
                        // ...then changes anywhere: deletes and updates of rows in blocks sealed already.
                        for _ in 0..<400 {
                            let id = Int(random.next() % UInt64(base + 3_000))
                            guard let person = store.object(ofType: Person.self, forPrimaryKey: id) else { continue }
                            if random.next() % 2 == 0 {
                                try store.delete(person)
                            } else {
                                person.age = Int(random.next() % 90)
                                person.name += " changed"
                            }
                        }
                        // ...and some rows added again, out of order.
                        for _ in 0..<50 {
                            let id = Int(random.next() % UInt64(base + 3_000))
                            try store.add(Person(id: id, name: "again \(id)"), update: .modified)
                        }
                    }
                }
                Self.expectSame(Self.snapshot(encrypted), Self.snapshot(plain), "after write \(round)")
                for _ in 0..<200 {
                    let id = Int(probes.next() % UInt64(base + 3_100))
                    #expect(
                        encrypted.object(ofType: Person.self, forPrimaryKey: id)?.name
                            == plain.object(ofType: Person.self, forPrimaryKey: id)?.name)
                }
            }
            let expected = Self.snapshot(plain)
            #expect(expected.count > 4_000)
            let reopened = try Store(configuration: encryptedFixture.configuration)
            Self.expectSame(Self.snapshot(reopened), expected, "reopened")
        }
    }
#endif
