#if Encryption
    import Foundation
    import Testing

    @testable import Strata
    import StrataTestModels
    import StrataTestSupport

    /// The kept images of an encrypted file's tables (`SealedImages`): walks, counts and reads by key
    /// answer from them while the table is unchanged, and never after a change — this process's commits
    /// (merged into the image, or dropping it), another snapshot's, or another process's.
    @Suite(.fixtureChecks, .offThePool) struct SealedImageTests {
        static let key = Data((0..<64).map { UInt8(($0 * 11 + 5) % 256) })

        /// What the Store should hold: a plain Swift model of the Persons.
        struct Model {
            var people: [Int: (name: String, age: Int)] = [:]

            func check(_ store: Store, _ random: inout SplitMix64, _ label: String) {
                let people = store.objects(Person.self)
                #expect(people.count == self.people.count, "\(label): count")
                var walked: [Int] = []
                var ages = 0
                for person in people {
                    walked.append(person.id)
                    ages += person.age
                    #expect(self.people[person.id]?.name == person.name, "\(label): name of \(person.id)")
                }
                #expect(walked == self.people.keys.sorted(), "\(label): walked in key order")
                #expect(ages == self.people.values.reduce(0) { $0 + $1.age }, "\(label): ages")
                for _ in 0..<20 {
                    let id = Int(random.next() % 3_000)
                    let found = store.object(ofType: Person.self, forPrimaryKey: id)
                    #expect(found?.age == self.people[id]?.age, "\(label): person \(id)")
                }
                let bound = Int(random.next() % 90)
                #expect(
                    people.where { $0.age > bound }.count == self.people.values.filter { $0.age > bound }.count,
                    "\(label): age above \(bound)")
                let low = Int(random.next() % 3_000)
                #expect(
                    people.where { $0.id >= low }.map(\.id) == self.people.keys.filter { $0 >= low }.sorted(),
                    "\(label): ids from \(low)")
                if let name = self.people.values.first?.name {
                    #expect(
                        people.where { $0.name == name }.count == self.people.values.filter { $0.name == name }.count,
                        "\(label): name \(name)")
                }
            }
        }

        /// Seeded commits of every size — one object to thousands (merged into the image, or too small
        /// beside the table and dropping it) — adds, updates, deletes, deleting all, setters during a walk
        /// inside a write; checked against the model after each commit, inside writes, and in frozen
        /// snapshots of earlier versions.
        @Test(arguments: [UInt64(1), 2, 3])
        func imagesAnswerAsAPlainModelAcrossCommits(seed: UInt64) throws {
            let fixture = Fixture([Person.self, Dog.self]) { $0.encryptionKey = Self.key }
            let store = try fixture.open()
            var random = SplitMix64(state: seed)
            var model = Model()
            var frozen: [(store: Store, model: Model)] = []
            for step in 0..<60 {
                let kind = random.next() % 10
                let size = [1, 3, 40, 900, 2_500][Int(random.next() % 5)]
                try store.write {
                    switch kind {
                    case 0...4:
                        for _ in 0..<size {
                            let id = Int(random.next() % 3_000)
                            let person = Person(id: id, name: "n\(random.next() % 50)", age: Int(random.next() % 90))
                            try store.add(person, update: .modified)
                            model.people[id] = (person.name, person.age)
                        }
                    case 5, 6:
                        for _ in 0..<size {
                            let id = Int(random.next() % 3_000)
                            if let person = store.object(ofType: Person.self, forPrimaryKey: id) {
                                try store.delete(person)
                                model.people[id] = nil
                            }
                        }
                    case 7:  // setters while walking the table inside the write
                        let bound = Int(random.next() % 90)
                        for person in store.objects(Person.self) where person.age < bound {
                            person.age += 1
                            model.people[person.id]?.age += 1
                        }
                    case 8:
                        if random.next() % 3 == 0 {
                            try store.deleteAll()
                            model.people = [:]
                        }
                    default:  // read inside the write, after changing
                        let id = Int(random.next() % 3_000)
                        try store.add(Person(id: id, name: "w", age: 7), update: .modified)
                        model.people[id] = ("w", 7)
                        model.check(store, &random, "inside write \(step)")
                    }
                }
                model.check(store, &random, "seed \(seed) step \(step)")
                if step % 10 == 3 { frozen.append((try store.freeze(), model)) }
            }
            for (index, (snapshot, old)) in frozen.enumerated() {
                old.check(snapshot, &random, "frozen \(index)")
            }
        }

        /// A write larger than the images' budget stops logging (its log would hold a copy of all it
        /// wrote): its commit keeps no image, and what it wrote reads back.
        @Test func aWriteLargerThanTheBudgetKeepsNoImage() throws {
            let fixture = Fixture([Person.self, Dog.self]) { $0.encryptionKey = Self.key }
            let store = try fixture.open()
            let images = try #require(store.core.environment.sealing).images
            images.budget = 50_000
            try store.write {
                for id in 0..<2_000 { try store.add(Person(id: id, name: "n\(id)", age: id % 90)) }
            }
            #expect(images.counts.kept == 0)
            #expect(images.counts.dropped == 1, "the 2,000 rows' log outgrew 50,000 bytes")
            #expect(store.objects(Person.self).map(\.id) == Array(0..<2_000))
            #expect(store.object(ofType: Person.self, forPrimaryKey: 1_234)?.name == "n1234")
            images.budget = 1 << 30
            try store.write { try store.add(Person(id: 5_000, name: "last", age: 1)) }
            for _ in store.objects(Person.self) {}  // a walk of the new version makes its image
            #expect(images.counts.kept >= 1)
            #expect(store.objects(Person.self).where { $0.age == 1 }.count == 24)
        }

        /// In a process that opened the file afresh (no image), reads by key make the table's image once
        /// they are a quarter of its entries; before and after, they answer as the model does.
        @Test func readsByKeyMakeTheImageOfAFreshlyOpenedFile() throws {
            let fixture = Fixture([Person.self, Dog.self]) { $0.encryptionKey = Self.key }
            do {
                let store = try fixture.open()
                try store.write {
                    for id in 0..<2_000 { try store.add(Person(id: id * 2, name: "n\(id)", age: id % 90)) }
                }
            }
            let store = try fixture.open()
            let images = try #require(store.core.environment.sealing).images
            #expect(images.counts.kept == 0, "a new environment: no image yet")
            var random = SplitMix64(state: 7)
            for read in 0..<1_000 {
                let id = Int(random.next() % 4_000)
                let found = store.object(ofType: Person.self, forPrimaryKey: id)
                #expect(found?.name == (id % 2 == 0 ? "n\(id / 2)" : nil), "read \(read): \(id)")
                // A quarter of the 2,000 rows (not of the blocks that hold them: about 10).
                if read == 450 { #expect(images.counts.kept == 0, "450 reads: not yet") }
            }
            #expect(images.counts.kept == 1, "the reads made the image")
        }

        /// Another process's commit that keeps the count and changes the values: the image made
        /// before it is not used after a refresh.
        @Test func anotherProcessCommitIsSeenOverAKeptImage() throws {
            let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self]) {
                $0.encryptionKey = Self.key
            }
            let store = try fixture.open()
            try store.write {
                for id in 0..<100 {
                    let entry = ProcessEntry()
                    entry.id = id
                    entry.writer = 5
                    try store.add(entry)
                }
            }
            #expect(store.objects(ProcessEntry.self).map(\.writer) == Array(repeating: 5, count: 100))
            let hex = Self.key.map { String(format: "%02x", $0) }.joined()
            for arguments in [["delete-range", fixture.path, "0", "100"], ["add-range", fixture.path, "0", "100"]] {
                let child = try StressProcess(arguments, environment: ["STRATA_RELIABILITY_KEY": hex])
                #expect(child.wait().status == 0)
            }
            try store.refresh()
            #expect(store.objects(ProcessEntry.self).map(\.writer) == Array(repeating: 0, count: 100))
            #expect(store.object(ofType: ProcessEntry.self, forPrimaryKey: 42)?.writer == 0)
        }
    }
#endif
