#if CLI
    import Foundation
    import Strata
    import StrataTestSupport
    import Testing

    /// The `strata` command, run as a process on good, empty and damaged files.
    @Suite(.fixtureChecks, .offThePool) struct CLITests {
        struct Run {
            let status: Int32
            let stdout: String
            let stderr: String

            /// A failure says one line on stderr and nothing that looks like a crash or a trace.
            var isCleanFailure: Bool {
                status != 0 && stderr.split(separator: "\n").count == 1 && stderr.hasPrefix("strata: ")
                    && !stderr.contains("Fatal error") && !stderr.contains("Stack")
            }
        }

        static func strata(_ arguments: String...) throws -> Run {
            try strata(arguments)
        }

        static func strata(_ arguments: [String]) throws -> Run {
            let process = Process()
            process.executableURL = StressProcess.executable.deletingLastPathComponent().appendingPathComponent(
                "strata")
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // Read before waiting: a full pipe would block it.
            let stdout = output.fileHandleForReading.readDataToEndOfFile()
            let stderr = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }

        /// Two owners, three dogs, one object of every type (the store closes before the CLI runs).
        private func goodStore() throws -> Fixture {
            let fixture = Fixture([Person.self, Dog.self, AllTypes.self])
            let store = try fixture.open()
            try store.write {
                let ann = Person(id: 1, name: "Ann \"the first\"")
                ann.email = "ann@example.com"
                for name in ["Rex", "Fido"] { ann.dogs.append(Dog(name: name, owner: ann)) }
                try store.add(ann)
                try store.add(Person(id: 2, name: "Bob"))
                try store.add(Dog(name: "Bella"))
                let all = AllTypes()
                all.key = "all"
                all.ints.append(contentsOf: [3, 1, 2])
                all.data = Data([1, 2, 3])
                all.link = ann
                try store.add(all)
            }
            return fixture
        }

        private func emptyStore() throws -> Fixture {
            let fixture = Fixture([Person.self, Dog.self])
            _ = try fixture.open()
            return fixture
        }

        // MARK: Good files

        @Test func statShowsSizeVersionsAndObjects() throws {
            let fixture = try goodStore()
            let run = try Self.strata("stat", fixture.path)
            #expect(run.status == 0)
            #expect(run.stderr.isEmpty)
            #expect(run.stdout.contains("objects:         AllTypes 1, Dog 3, Person 2"))
            #expect(run.stdout.contains("file size:"))
            #expect(run.stdout.contains("latest version:"))
            #expect(run.stdout.contains("readers:         none"))
        }

        @Test func statNamesTheProcessThatPinsAnOldVersion() throws {
            let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
            let store = try fixture.open()
            try store.write { try store.add(ProcessEntry()) }
            let reader = try StressProcess(["hold-reader", fixture.path])
            defer {
                reader.kill()
                reader.wait()
            }
            #expect(reader.readLine() == "ready")
            for id in 1...3 {
                let entry = ProcessEntry()
                entry.id = id
                try store.write { try store.add(entry) }
            }
            let run = try Self.strata("stat", fixture.path)
            #expect(run.status == 0)
            let line = try #require(run.stdout.split(separator: "\n").first { $0.contains("process \(reader.pid) ") })
            #expect(line.contains("(strata-stress)"))
            #expect(line.contains("3 versions behind: pins the pages freed since version"))
            #expect(run.stdout.contains("oldest pinned version"))
        }

        @Test func schemaListsTypesKeysIndexesAndLinks() throws {
            let fixture = try goodStore()
            let run = try Self.strata("schema", fixture.path)
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("schema version 0, 3 types"))
            #expect(run.stdout.contains("Person (primary key id)"))
            let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            #expect(lines.contains("name String indexed"))
            #expect(lines.contains("dogs List<Dog> links to Dog"))
            #expect(lines.contains("owner Person? links to Person"))
        }

        @Test("query prints what the string language finds, with arguments, clauses and typed errors")
        func queryFindsObjects() throws {
            let fixture = try goodStore()
            let run = try Self.strata(
                "query", fixture.path, "Person", "name BEGINSWITH[c] $0 OR dogs.@count > 1 SORT(id DESC)", "--arg", "b")
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
            #expect(json.map { $0["id"] as? Int } == [2, 1])
            let dogs = try Self.strata(
                "query", fixture.path, "Dog", "owner.id == 1 SORT(name ASC)", "--format", "table")
            #expect(dogs.status == 0)
            #expect(dogs.stdout.contains("Dog: 2 objects"))
            #expect(dogs.stdout.range(of: "Fido")!.lowerBound < dogs.stdout.range(of: "Rex")!.lowerBound)
            let limited = try Self.strata("query", fixture.path, "Dog", "TRUEPREDICATE", "--limit", "1")
            #expect((try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [Any])?.count == 1)
            let wrong = try Self.strata("query", fixture.path, "Person", "agee > 3")
            #expect(wrong.status != 0)
            #expect(wrong.stderr.contains("Person has no property \"agee\""))
            let unknown = try Self.strata("query", fixture.path, "Cat", "TRUEPREDICATE")
            #expect(unknown.status != 0)
            #expect(unknown.stderr.contains("has no type Cat"))
        }

        @Test("query answers TEXT from the full-text index; schema shows the index")
        func queryFindsWordsOfText() throws {
            let fixture = Fixture([Article.self, Memo.self])
            do {
                let store = try Store(configuration: fixture.configuration)
                try store.write {
                    for (id, body) in ["Swift on Linux", "SQLite and Swift", "Objects in Swift"].enumerated() {
                        let article = Article()
                        article.id = id + 1
                        article.body = body
                        try store.add(article)
                    }
                }
            }
            let run = try Self.strata("query", fixture.path, "Article", "body TEXT $0", "--arg", "swift -sqlite")
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
            #expect(json.map { $0["id"] as? Int } == [1, 3])
            let schema = try Self.strata("schema", fixture.path)
            #expect(schema.stdout.contains("full-text indexed"))
            let wrong = try Self.strata("query", fixture.path, "Article", "body TEXT '\"open'")
            #expect(wrong.status != 0)
            #expect(wrong.stderr.contains("not closed"))
        }

        @Test func dumpAsJSONIsValidAndHoldsTheValues() throws {
            let fixture = try goodStore()
            let run = try Self.strata("dump", fixture.path)
            #expect(run.status == 0)
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [[String: Any]]])
            #expect(Set(json.keys) == ["Person", "Dog", "AllTypes"])
            let people = try #require(json["Person"])
            #expect(people.map { $0["id"] as? Int } == [1, 2])
            #expect(people[0]["name"] as? String == "Ann \"the first\"")
            #expect(people[1]["email"] is NSNull)
            #expect((people[0]["dogs"] as? [String])?.count == 2)
            let all = try #require(json["AllTypes"]?.first)
            #expect(all["ints"] as? [Int] == [3, 1, 2])
            #expect(all["data"] as? String == Data([1, 2, 3]).base64EncodedString())
            #expect(all["link"] as? String == "1")
            #expect(json["Dog"]?.count == 3)

            let dogs = try Self.strata("dump", fixture.path, "--type", "Dog")
            let onlyDogs = try #require(
                try JSONSerialization.jsonObject(with: Data(dogs.stdout.utf8)) as? [String: Any])
            #expect(Array(onlyDogs.keys) == ["Dog"])
            // Dates carry their zone (they lacked the Z): ISO 8601 in UTC, with milliseconds.
            #expect(all["date"] as? String == "2001-01-01T00:00:00.000Z")
            #expect(all["indexedDate"] as? String == "2001-01-01T00:00:00.000Z")
        }

        @Test("dump and schema show Maps as objects, sets as arrays, ObjectId as hex, Decimal128 as a number")
        func dumpOfRealmModelTypes() throws {
            let fixture = Fixture([Contact.self, Ledger.self])
            do {
                let store = try fixture.open()
                try store.write {
                    let contact = Contact(name: "a")
                    contact.id = try ObjectId(string: "0123456789abcdef01234567")
                    contact.phones["work"] = "2"
                    contact.phones["home"] = "1"
                    contact.scores["none"] = .some(nil)
                    contact.tags.insert(objectsIn: ["b", "a"])
                    contact.pets["rex"] = Dog(name: "Rex")
                    try store.add(contact)
                    try store.add(Ledger(amount: "-1.50"))
                }
            }
            let run = try Self.strata("dump", fixture.path, "--type", "Contact")
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [[String: Any]]])
            let contact = try #require(json["Contact"]?.first)
            #expect(contact["id"] as? String == "0123456789abcdef01234567")
            #expect(contact["phones"] as? [String: String] == ["home": "1", "work": "2"])
            #expect((contact["scores"] as? [String: Any])?["none"] is NSNull)
            #expect(contact["tags"] as? [String] == ["a", "b"])
            #expect((contact["pets"] as? [String: Any])?["rex"] is String)
            let ledger = try Self.strata("dump", fixture.path, "--type", "Ledger")
            #expect(ledger.stdout.contains("\"amount\": -1.50"))
            let table = try Self.strata("dump", fixture.path, "--type", "Contact", "--format", "table")
            #expect(table.stdout.contains("[home: \"1\", work: \"2\"]"), "\(table.stdout)")
            let schema = try Self.strata("schema", fixture.path)
            let lines = schema.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            #expect(lines.contains("phones Map<String, String>"), "\(schema.stdout)")
            #expect(lines.contains("friends MutableSet<Contact> links to Contact"))
            #expect(lines.contains("pets Map<String, Dog?> links to Dog"))
        }

        @Test("dump shows embedded objects inside their owner and a mixed value's link as its key")
        func dumpOfEmbeddedAndMixedLinks() throws {
            let fixture = Fixture([Resident.self, Setting.self, Dog.self])
            do {
                let store = try fixture.open()
                try store.write {
                    let resident = Resident(id: 1)
                    let home = Address("Oslo", street: "Storgata 1")
                    home.position = Position()
                    home.position?.latitude = 59.9
                    resident.address = home
                    resident.previous.append(Address("Bergen"))
                    resident.byLabel["work"] = Address("Trondheim")
                    try store.add(resident)
                    let dog = Dog(name: "Rex")
                    try store.add(dog)
                    let setting = Setting("pet", .object(dog))
                    setting.history.append(.list([.int(1), .object(dog)]))
                    try store.add(setting)
                    let gone = Dog(name: "Gone")
                    try store.add(gone)
                    try store.add(Setting("lost", .object(gone)))
                    try store.delete(gone)
                }
            }
            let run = try Self.strata("dump", fixture.path)
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [[String: Any]]])
            #expect(json["Address"] == nil, "embedded types listed on their own")
            #expect(json["Position"] == nil, "embedded types listed on their own")
            let resident = try #require(json["Resident"]?.first)
            let address = try #require(resident["address"] as? [String: Any])
            #expect(address["city"] as? String == "Oslo")
            #expect(address["street"] as? String == "Storgata 1")
            #expect((address["position"] as? [String: Any])?["latitude"] as? Double == 59.9)
            #expect((resident["previous"] as? [[String: Any]])?.first?["city"] as? String == "Bergen")
            #expect(
                ((resident["byLabel"] as? [String: Any])?["work"] as? [String: Any])?["city"] as? String == "Trondheim")
            let dogKey = try #require(json["Dog"]?.first?["id"] as? String)
            let settings = try #require(json["Setting"])
            let pet = try #require(settings.first { $0["name"] as? String == "pet" })
            #expect(pet["value"] as? String == dogKey)
            #expect(((pet["history"] as? [Any])?.first as? [Any])?.last as? String == dogKey)
            #expect(settings.first { $0["name"] as? String == "lost" }?["value"] is NSNull)
            // Named with --type, an embedded type is listed (with its row ids).
            let addresses = try Self.strata("dump", fixture.path, "--type", "Address")
            #expect(addresses.stdout.contains("Bergen"), "\(addresses.stdout)")
            let table = try Self.strata("dump", fixture.path, "--type", "Resident", "--format", "table")
            #expect(table.stdout.contains("Address { street: \"Storgata 1\", city: "), "\(table.stdout)")
        }

        @Test func dumpStopsAtTheLimit() throws {
            let fixture = try goodStore()
            let json = try Self.strata("dump", fixture.path, "--type", "Dog", "--limit", "2")
            let dogs = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: [[String: Any]]])
            #expect(dogs["Dog"]?.count == 2)
            let table = try Self.strata("dump", fixture.path, "--type", "Person", "--format", "table", "--limit", "1")
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "Person: 1 objects")
            #expect(lines.count == 4)
            #expect(try Self.strata("dump", fixture.path, "--limit", "-1").status == 64)  // a usage error
        }

        @Test func dumpAsTablePrintsBeforeItHasReadEveryObject() throws {
            let fixture = Fixture([Note.self])
            do {
                let store = try fixture.open()
                try store.write {
                    for index in 0..<300 {
                        try store.add(Note(index == 250 ? "a note much longer than the others" : "n\(index)"))
                    }
                }
            }
            let run = try Self.strata("dump", fixture.path, "--format", "table")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines[0] == "Note: 300 objects")
            // The widths come from the first rows, printed before the rest is read (it read all 300 first,
            // which kept 100k objects waiting 5.9 s for the first line): row 250 is wider than its column.
            #expect(lines[2] == "------")  // "n199", quoted
            #expect(lines.contains("\"a note much longer than the others\""))
        }

        @Test func dumpAsTableAlignsColumns() throws {
            let fixture = try goodStore()
            let run = try Self.strata("dump", fixture.path, "--type", "Person", "--format", "table")
            #expect(run.status == 0)
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines[0] == "Person: 2 objects")
            #expect(lines[1].hasPrefix("id  name"))
            #expect(lines[2].hasPrefix("--  ----"))
            #expect(lines[3].hasPrefix("1   \"Ann \"the first\"\""))
            #expect(lines[3].contains("[Dog("))
        }

        @Test("verify lists the orphans of owning links, and still exits 0: they are not damage")
        func verifyListsOrphans() throws {
            let fixture = Fixture([Order.self])
            do {
                let store = try fixture.open()
                let order = Order(id: 1)
                order.lines.append(objectsIn: [OrderLine("kept"), OrderLine("dropped")])
                try store.write { try store.add(order) }
                #expect(try Self.strata("verify", fixture.path).stdout.contains("orphan") == false)
                try store.write { _ = order.lines.removeLast() }  // dropped, not deleted
            }
            let run = try Self.strata("verify", fixture.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("orphan (no owning link holds it): OrderLine[2]"), "\(run.stdout)")
        }

        @Test func verifySaysOkAndDrawsProgressWhenAsked() throws {
            let fixture = try goodStore()
            let quiet = try Self.strata("verify", fixture.path)
            #expect(quiet.status == 0)
            #expect(quiet.stdout.hasPrefix("ok: "))
            #expect(quiet.stdout.contains("3 types, 6 objects"))
            #expect(quiet.stderr.isEmpty)  // not a terminal: no bar unless asked
            let withBar = try Self.strata("verify", fixture.path, "--progress", "always")
            #expect(withBar.status == 0)
            #expect(withBar.stderr.contains("verify [##############################] 100%  6/6 rows"))
        }

        @Test func compactToANewFileAndInPlace() throws {
            let fixture = Fixture([Person.self, Dog.self])
            do {
                let store = try fixture.open()
                try store.write {
                    for id in 0..<3_000 { try store.add(Person(id: id, name: String(repeating: "n", count: 300))) }
                }
                try store.write { try store.delete(store.objects(Person.self).where { $0.id >= 50 }) }
            }
            let copy = fixture.directory.appendingPathComponent("copy.strata").path
            let toCopy = try Self.strata("compact", fixture.path, "--to", copy, "--progress", "always")
            #expect(toCopy.status == 0)
            #expect(toCopy.stdout.hasPrefix("compacted: \(copy):"))
            #expect(toCopy.stderr.contains("100%"))
            #expect(try Self.strata("verify", copy).status == 0)
            #expect(try DynamicStore(path: copy).count(ofType: "Person") == 50)

            let again = try Self.strata("compact", fixture.path, "--to", copy)
            #expect(again.isCleanFailure)  // the target exists: nothing overwritten
            #expect(again.status == 2)

            let before = fileSize(atPath: fixture.path)
            let inPlace = try Self.strata("compact", fixture.path)
            #expect(inPlace.status == 0)
            #expect(fileSize(atPath: fixture.path) * 4 < before)
            let verified = try Self.strata("verify", fixture.path)
            #expect(verified.stdout.contains("50 objects"))
        }

        #if Encryption
            @Test("every command takes --key-file for an encrypted file; without it, or with another, one line")
            func everyCommandOnAnEncryptedFile() throws {
                let key = Data((0..<64).map { UInt8(($0 * 5 + 1) % 256) })
                let fixture = Fixture([Person.self, Dog.self]) { $0.encryptionKey = key }
                do {
                    let store = try fixture.open()
                    try store.write {
                        for id in 0..<300 { try store.add(Person(id: id, name: "secret \(id)")) }
                        try store.delete(store.objects(Person.self).where { $0.id >= 100 })
                    }
                }
                let raw = fixture.directory.appendingPathComponent("key.bin").path
                let hex = fixture.directory.appendingPathComponent("key.hex").path
                _ = FileManager.default.createFile(atPath: raw, contents: key)
                _ = FileManager.default.createFile(
                    atPath: hex, contents: Data((key.map { String(format: "%02x", $0) }.joined() + "\n").utf8))
                let copy = fixture.directory.appendingPathComponent("copy.strata").path
                let runs: [[String]] = [
                    ["stat", fixture.path], ["schema", fixture.path], ["dump", fixture.path, "--limit", "3"],
                    ["query", fixture.path, "Person", "name == 'secret 7'"], ["verify", fixture.path],
                    ["compact", fixture.path, "--to", copy], ["compact", fixture.path],
                    ["salvage", fixture.path, "--to", fixture.directory.appendingPathComponent("saved.strata").path],
                ]
                for (index, arguments) in runs.enumerated() {
                    let keyFile = index % 2 == 0 ? raw : hex
                    let run = try Self.strata(arguments + ["--key-file", keyFile])
                    #expect(run.status == 0, "\(arguments): \(run.stderr)")
                    let without = try Self.strata(arguments)
                    #expect(without.isCleanFailure, "\(arguments) without a key: \(without.stderr)")
                    #expect(without.stderr.contains("encryptionKey"), "\(without.stderr)")
                }
                let found = try Self.strata("query", fixture.path, "Person", "name == 'secret 7'", "--key-file", raw)
                #expect(found.stdout.contains("secret 7"))
                #expect(try DynamicStore(path: copy, encryptionKey: key).count(ofType: "Person") == 100)
                let saved = fixture.directory.appendingPathComponent("saved.strata").path
                #expect(try DynamicStore(path: saved, encryptionKey: key).count(ofType: "Person") == 100)
                let wrong = fixture.directory.appendingPathComponent("wrong.bin").path
                _ = FileManager.default.createFile(atPath: wrong, contents: Data(repeating: 9, count: 64))
                let wrongRun = try Self.strata("stat", fixture.path, "--key-file", wrong)
                #expect(wrongRun.isCleanFailure && wrongRun.stderr.contains("does not open"), "\(wrongRun.stderr)")
                _ = FileManager.default.createFile(atPath: wrong, contents: Data(repeating: 9, count: 10))
                #expect(try Self.strata("stat", fixture.path, "--key-file", wrong).isCleanFailure)
                let file = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
                #expect(file.range(of: Data("secret 7".utf8)) == nil)
            }
        #endif

        @Test func compactInPlaceRefusesAFileOpenInAnotherProcess() throws {
            let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
            _ = try fixture.open()
            let reader = try StressProcess(["hold-reader", fixture.path])
            defer {
                reader.kill()
                reader.wait()
            }
            #expect(reader.readLine() == "ready")
            let bytes = fixture.fileBytes()
            let run = try Self.strata("compact", fixture.path)
            #expect(run.isCleanFailure)
            #expect(run.status == 2)
            #expect(run.stderr.contains("open in another process"))
            #expect(fixture.fileBytes() == bytes)
        }

        @Test("every command works on a file another process grows, one commit after another")
        func commandsOnAGrowingFile() throws {
            let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
            let writer = try StressProcess(["grow", fixture.path])
            defer {
                writer.kill()
                writer.wait()
            }
            #expect(writer.readLine() == "ack 1")
            var failures: [String] = []
            for round in 0..<50 {
                for command in [["stat"], ["verify"], ["dump", "--limit", "10"], ["schema"]] {
                    let run = try Self.strata([command[0], fixture.path] + command.dropFirst())
                    if run.status != 0 { failures.append("round \(round) \(command[0]): \(run.stderr)") }
                }
            }
            let inPlace = try Self.strata("compact", fixture.path)
            #expect(inPlace.status == 2)
            #expect(inPlace.stderr.contains("open in another process"), "\(inPlace.stderr)")
            #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(3))")
            #expect(writer.isRunning)  // it grew the file all along
        }

        // MARK: Empty files

        @Test func anEmptyStoreWorksWithEveryCommand() throws {
            let fixture = try emptyStore()
            #expect(try Self.strata("stat", fixture.path).stdout.contains("objects:         Dog 0, Person 0"))
            #expect(try Self.strata("schema", fixture.path).stdout.contains("Dog (primary key id)"))
            let dump = try Self.strata("dump", fixture.path)
            #expect(dump.status == 0)
            #expect(dump.stdout == "{\n  \"Dog\": [],\n  \"Person\": []\n}\n")
            #expect(try Self.strata("verify", fixture.path).stdout.contains("0 objects"))
            #expect(try Self.strata("compact", fixture.path).status == 0)
        }

        // MARK: Bad files

        @Test func aZeroByteOrForeignFileFailsEveryCommandWithOneLine() throws {
            let fixture = Fixture()
            _ = FileManager.default.createFile(atPath: fixture.path, contents: Data())
            for command in ["stat", "schema", "dump", "verify", "compact"] {
                let run = try Self.strata(command, fixture.path)
                #expect(run.isCleanFailure, "\(command): \(run.stderr)")
                #expect(run.status == 1, "\(command)")
                #expect(run.stderr.contains("empty (0 bytes)"))
            }
            try Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).write(
                to: URL(fileURLWithPath: fixture.path))
            for command in ["stat", "schema", "dump", "verify", "compact"] {
                let run = try Self.strata(command, fixture.path)
                #expect(run.isCleanFailure, "\(command): \(run.stderr)")
                #expect(run.status == 1, "\(command)")
            }
        }

        @Test func aDamagedRowFailsVerifyAndDumpButNotStat() throws {
            let fixture = try goodStore()
            do {
                let store = try fixture.open()
                let key = RawAccess.keys(of: Person.self, in: store)[0]
                try RawAccess.rewriteRow(of: Person.self, key: key, in: store) { $0[1] = 0x7F }  // column count
            }
            let verify = try Self.strata("verify", fixture.path)
            #expect(verify.isCleanFailure)
            #expect(verify.status == 1)
            #expect(verify.stderr.contains("damaged: Person[1]"))
            #expect(verify.stdout.isEmpty)
            let dump = try Self.strata("dump", fixture.path, "--type", "Person")
            #expect(dump.status == 1)
            #expect(dump.stderr.contains("Person[1]"))
            #expect(try Self.strata("stat", fixture.path).status == 0)  // stat decodes no rows
            #expect(try Self.strata("dump", fixture.path, "--type", "Dog").status == 0)
        }

        @Test("salvage copies a damaged file's intact rows to a new file and names what was lost (exit 1)")
        func salvageADamagedFile() throws {
            let fixture = try goodStore()
            let copy = fixture.directory.appendingPathComponent("copy.strata").path
            let intact = try Self.strata("salvage", fixture.path, "--to", copy)
            #expect(intact.status == 0, "\(intact.stderr)")
            #expect(intact.stdout.contains("Person: 2 saved"), "\(intact.stdout)")
            #expect(try Self.strata("verify", copy).status == 0)
            var bytes = fixture.fileBytes()
            let at = try #require(bytes.range(of: Data("Bob".utf8))).lowerBound
            bytes[at] ^= 0x20  // "bob"
            let damaged = fixture.directory.appendingPathComponent("damaged.strata").path
            try bytes.write(to: URL(fileURLWithPath: damaged))
            #expect(try Self.strata("verify", damaged).status == 1)
            let recovered = fixture.directory.appendingPathComponent("recovered.strata").path
            let run = try Self.strata("salvage", damaged, "--to", recovered)
            #expect(run.status == 1)
            #expect(run.stdout.contains("Person: 1 saved, 1 lost (2)"), "\(run.stdout)")
            #expect(try Self.strata("verify", recovered).status == 0)
            let again = try Self.strata("salvage", damaged, "--to", recovered)
            #expect(again.status == 2, "the destination exists: \(again.stderr)")
        }

        @Test func missingPathsAndBadArgumentsFailWithoutATrace() throws {
            let fixture = Fixture()
            for command in ["stat", "schema", "dump", "verify", "compact"] {
                let run = try Self.strata(command, fixture.path)
                #expect(run.isCleanFailure, "\(command): \(run.stderr)")
                #expect(run.status == 2)
                #expect(run.stderr.contains("No such file or directory"))
            }
            #expect(!FileManager.default.fileExists(atPath: fixture.path))  // nothing created
            let good = try goodStore()
            let unknownType = try Self.strata("dump", good.path, "--type", "Cat")
            #expect(unknownType.isCleanFailure)
            #expect(unknownType.stderr.contains("has no type Cat; it has AllTypes, Dog, Person"))
            #expect(try Self.strata("dump", good.path, "--format", "xml").status == 64)
            #expect(try Self.strata("verify").status == 64)
        }
    }

    private func fileSize(atPath path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
#endif
