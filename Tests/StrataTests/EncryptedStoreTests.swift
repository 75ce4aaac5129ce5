#if Encryption
    import Foundation
    import Testing

    @testable import Strata
    import StrataTestModels
    import StrataTestSupport

    /// A Store with an `encryptionKey`: the same seeded operations on it and on a plain Store give the
    /// same answers; none of the app's values is in its file; keys are checked at open.
    @Suite(.fixtureChecks) struct EncryptedStoreTests {
        static let key = Data((0..<64).map { UInt8(($0 * 7 + 3) % 256) })

        static func fixtures() -> (plain: Fixture, encrypted: Fixture) {
            let types: [Object.Type] = [Person.self, Dog.self, Note.self]
            return (Fixture(types), Fixture(types) { $0.encryptionKey = key })
        }

        static func marker(_ random: inout SplitMix64) -> String {
            "m\(random.next() % 1_000_000_000_000)z"
        }

        /// Seeded adds, updates and deletes, applied to both Stores alike; returns the markers written.
        static func apply(rounds: Int, seed: UInt64, to stores: [Store]) throws -> [String] {
            var markers: [String] = []
            for store in stores {
                var random = SplitMix64(state: seed)
                markers = []
                for _ in 0..<rounds {
                    try store.write {
                        for _ in 0..<20 {
                            let id = Int(random.next() % 400) - 100
                            switch random.next() % 6 {
                            case 0, 1, 2:
                                let name = marker(&random)
                                let person = Person(id: id, name: name, age: Int(random.next() % 90))
                                person.email = random.next() % 3 == 0 ? nil : marker(&random)
                                markers += [name] + (person.email.map { [$0] } ?? [])
                                try store.add(person, update: .modified)
                            case 3:
                                if let person = store.object(ofType: Person.self, forPrimaryKey: id) {
                                    let dog = Dog(name: marker(&random), owner: person)
                                    dog.id = UUID(
                                        uuid: (0..<16).reduce(into: [UInt8]()) { bytes, _ in
                                            bytes.append(UInt8(truncatingIfNeeded: random.next()))
                                        }.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
                                    markers.append(dog.name)
                                    try store.add(dog)
                                    person.dogs.append(dog)
                                }
                            case 4:
                                if let person = store.object(ofType: Person.self, forPrimaryKey: id) {
                                    try store.delete(person)
                                }
                            default:
                                let text = marker(&random)
                                markers.append(text)
                                try store.add(Note(text))
                            }
                        }
                    }
                }
            }
            return markers
        }

        /// What both Stores must answer alike (unsorted results compared as sets: an encrypted Store
        /// lists them in the order of its sealed keys).
        static func answers(_ store: Store, probes: [String]) -> [String] {
            let people = store.objects(Person.self)
            var lines: [String] = []
            lines.append(
                "count \(people.count) notes \(store.objects(Note.self).count) dogs \(store.objects(Dog.self).count)")
            lines.append(
                "by id "
                    + people.sorted(by: \.id).map {
                        "\($0.id):\($0.name):\($0.age):\($0.email ?? "-"):\($0.dogs.count)"
                    }.joined(separator: ","))
            lines.append("by name " + people.sorted(by: \.name).map { "\($0.id)" }.joined(separator: ","))
            lines.append(
                "by name desc "
                    + people.sorted(by: \.name, ascending: false).prefix(7).map { "\($0.id)" }.joined(separator: ","))
            lines.append(
                "id range "
                    + people.where { $0.id > 50 && $0.id <= 180 }.sorted(by: \.id).map { "\($0.id)" }.joined(
                        separator: ","))
            lines.append(
                "id range unsorted "
                    + people.where { $0.id >= 0 && $0.id < 100 }.map { $0.id }.sorted().map(String.init).joined(
                        separator: ","))
            lines.append("first ids " + people.sorted(by: \.id).prefix(5).map { "\($0.id)" }.joined(separator: ","))
            lines.append(
                "last ids "
                    + people.sorted(by: \.id, ascending: false).prefix(5).map { "\($0.id)" }.joined(separator: ","))
            lines.append(
                "ages " + people.where { $0.age > 30 }.map { $0.id }.sorted().map(String.init).joined(separator: ","))
            lines.append(
                "names range "
                    + people.where { $0.name > "m5" }.map { $0.id }.sorted().map(String.init).joined(separator: ","))
            lines.append(
                "name prefix "
                    + people.where { $0.name.starts(with: "m1") }.map { $0.id }.sorted().map(String.init).joined(
                        separator: ","))
            for probe in probes {
                lines.append(
                    "name \(probe) "
                        + people.where { $0.name == probe }.map { "\($0.id)" }.sorted().joined(separator: ","))
            }
            lines.append("notes " + store.objects(Note.self).map(\.text).sorted().joined(separator: ","))
            lines.append(
                "dogs "
                    + store.objects(Dog.self).map { "\($0.name):\($0.owner?.id ?? -1):\($0.walkers.count)" }.sorted()
                    .joined(separator: ","))
            lines.append("sum \(people.sum(of: \.age)) max \(people.max(of: \.age) ?? -1)")
            for id in [-100, 0, 7, 150, 299] {
                lines.append("pk \(id) \(store.object(ofType: Person.self, forPrimaryKey: id)?.name ?? "none")")
            }
            return lines
        }

        @Test func seededWritesAnswerAsOnAPlainStoreAndNoValueIsInTheFile() throws {
            let (plainFixture, encryptedFixture) = Self.fixtures()
            var markers: [String] = []
            var probes: [String] = []
            var expected: [String] = []
            do {
                let plain = try Store(configuration: plainFixture.configuration)
                let encrypted = try Store(configuration: encryptedFixture.configuration)
                markers = try Self.apply(rounds: 30, seed: 54, to: [plain, encrypted])
                probes = Array(markers.prefix(40))
                expected = Self.answers(plain, probes: probes)
                #expect(expected.count > 10)
                let got = Self.answers(encrypted, probes: probes)
                for (line, other) in zip(expected, got) where line != other {
                    Issue.record("plain: \(line.prefix(300))\nencrypted: \(other.prefix(300))")
                }
            }
            let path = encryptedFixture.configuration.fileURL!.path
            do {  // reopened with its key: the same answers (and the opening check walked every page)
                let reopened = try Store(configuration: encryptedFixture.configuration)
                #expect(Self.answers(reopened, probes: probes) == expected)
            }
            for file in [path, path + "-lock"] {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                let found = markers.filter { bytes.range(of: Data($0.utf8)) != nil }
                #expect(found.count == 0, "\(found.count) of \(markers.count) values in \(file)")
            }
            let plainBytes = try Data(contentsOf: plainFixture.configuration.fileURL!)
            #expect(markers.contains { plainBytes.range(of: Data($0.utf8)) != nil })  // the search finds clear values
        }

        @Test func aWrongOrMissingKeyOrAKeyForAPlainFileIsRefusedAtOpen() throws {
            let (plainFixture, encryptedFixture) = Self.fixtures()
            let path = encryptedFixture.configuration.fileURL!.path
            do {
                let store = try Store(configuration: encryptedFixture.configuration)
                try store.write { try store.add(Person(id: 1, name: "secret")) }
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            var configuration = encryptedFixture.configuration
            configuration.encryptionKey = nil
            #expect(throws: StoreError.encryption(path: path, .keyMissing)) { try Store(configuration: configuration) }
            configuration.encryptionKey = Data(Self.key.reversed())
            #expect(throws: StoreError.encryption(path: path, .wrongKey)) { try Store(configuration: configuration) }
            configuration.encryptionKey = Data(count: 32)
            #expect(throws: StoreError.encryption(path: path, .invalidKeyLength(32))) {
                try Store(configuration: configuration)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)  // nothing written

            var plainConfiguration = plainFixture.configuration
            do { _ = try Store(configuration: plainConfiguration) }
            plainConfiguration.encryptionKey = Self.key
            #expect(throws: StoreError.encryption(path: plainConfiguration.fileURL!.path, .fileNotEncrypted)) {
                try Store(configuration: plainConfiguration)
            }
            let store = try Store(configuration: encryptedFixture.configuration)
            #expect(store.object(ofType: Person.self, forPrimaryKey: 1)?.name == "secret")
        }

        /// Every change set an observer of an encrypted Store receives turns the old results into the
        /// new ones (deletions at old positions, insertions at new), unsorted, filtered and sorted alike.
        @Test(arguments: [false, true]) func changeSetsTurnTheOldResultsIntoTheNew(encrypted: Bool) throws {
            let fixture = encrypted ? Self.fixtures().encrypted : Self.fixtures().plain
            let store = try Store(configuration: fixture.configuration)
            let queries: [Results<Person>] = [
                store.objects(Person.self), store.objects(Person.self).where { $0.age > 30 },
                store.objects(Person.self).sorted(by: \.name),
            ]
            var seen: [[Int]] = Array(repeating: [], count: queries.count)
            var updates = 0
            var tokens: [NotificationToken] = []
            for (position, query) in queries.enumerated() {
                tokens.append(
                    try query.observe { change in
                        switch change {
                        case .initial(let results): seen[position] = results.map(\.id)
                        case .update(let results, let deletions, let insertions, let modifications):
                            updates += 1
                            let new = results.map(\.id)
                            var old = seen[position]
                            for index in deletions.sorted(by: >) where index < old.count { old.remove(at: index) }
                            var kept = new
                            for index in insertions.sorted(by: >) where index < kept.count { kept.remove(at: index) }
                            let consistent =
                                old == kept && deletions.allSatisfy { $0 < seen[position].count }
                                && (insertions + modifications).allSatisfy { $0 < new.count }
                            if encrypted, position < 2 {
                                // Unsorted results of an encrypted Store are in the order of the sealed keys
                                // (random per file), their change sets in the order of the keys' values
                                // (issue 54, open): the two agree only by chance.
                                withKnownIssue(isIntermittent: true) {
                                    if !consistent {
                                        Issue.record("query \(position): the change set does not turn old into new")
                                    }
                                }
                            } else {
                                #expect(consistent, "query \(position): the change set does not turn old into new")
                            }
                            seen[position] = new
                        case .error(let error): Issue.record("\(error)")
                        }
                    })
            }
            try store.refresh()
            var random = SplitMix64(state: 77)
            for _ in 0..<40 {
                try store.write {
                    for _ in 0..<5 {
                        let id = Int(random.next() % 60)
                        if random.next() % 3 == 0, let person = store.object(ofType: Person.self, forPrimaryKey: id) {
                            try store.delete(person)
                        } else {
                            try store.add(
                                Person(id: id, name: Self.marker(&random), age: Int(random.next() % 60)),
                                update: .modified)
                        }
                    }
                }
                try store.refresh()
                for (position, query) in queries.enumerated() {
                    #expect(seen[position] == query.map(\.id), "query \(position) after a write")
                }
            }
            #expect(updates > 60)
            for token in tokens { token.invalidate() }
        }
    }
#endif
