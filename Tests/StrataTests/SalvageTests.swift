import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Salvaging a damaged file", .serialized, .fixtureChecks, .offThePool)
struct SalvageTests {
    private func closedStore() throws -> Fixture { try Fixture.closedStoreOfPeople() }

    /// Runs `strata-stress salvage` on `damaged` into `recovered`: its first line, exit status and stderr.
    static func salvageInHelper(_ damaged: String, to recovered: String) throws -> (
        line: String, status: Int32, stderr: String
    ) {
        let helper = try StressProcess(["salvage", damaged, recovered])
        let line = helper.remainingLines().first ?? ""
        let (status, stderr) = helper.wait()
        return (line, status, stderr)
    }

    private func salvaged(_ fixture: Fixture, _ bytes: Data) throws -> (SalvageReport, Store) {
        let damaged = fixture.directory.appendingPathComponent("damaged.strata")
        try bytes.write(to: damaged)
        let report = try Store.salvage(from: damaged, to: URL(fileURLWithPath: fixture.path))
        let store = try fixture.open()
        try store.verify()
        return (report, store)
    }

    @Test("an intact file is salvaged whole: every object, link and index")
    func anIntactFileIsSalvagedWhole() throws {
        let fixture = try closedStore()
        let bytes = fixture.fileBytes()
        try FileManager.default.removeItem(atPath: fixture.path)
        let (report, store) = try salvaged(fixture, bytes)
        #expect(report.isComplete)
        #expect(report.types.map(\.typeName).sorted() == ["Dog", "Person"])
        #expect(report.savedRows == 660)
        #expect(store.objects(Person.self).count == 600)
        #expect(store.objects(Person.self).where { $0.name == "person 321" }.first?.age == 321 % 90)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 11)?.ownedDogs.first?.name == "dog 1")
    }

    @Test("a damaged row is the only one lost; links to it are cleared; the new file verifies")
    func aDamagedRowIsLostAlone() throws {
        let fixture = try closedStore()
        var bytes = fixture.fileBytes()
        let at = try #require(bytes.range(of: Data("person 321".utf8))).lowerBound
        bytes[at + 8] ^= 0x01
        try FileManager.default.removeItem(atPath: fixture.path)
        let (report, store) = try salvaged(fixture, bytes)
        let people = try #require(report.types.first { $0.typeName == "Person" })
        #expect(people.saved == 599)
        #expect(people.lostKeys == ["321"])
        #expect(people.lostRanges.isEmpty)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 321) == nil)
        #expect(store.objects(Dog.self).where { $0.name == "dog 32" }.first?.owner == nil)  // owned by 321
        #expect(store.objects(Dog.self).where { $0.name == "dog 31" }.first?.owner?.id == 311)
        #expect(!report.isComplete)
    }

    @Test("a damaged branch page loses the rows under it, reported as a range of keys; the rest is saved")
    func aDamagedBranchPageLosesItsRange() throws {
        let fixture = try closedStore()
        var bytes = fixture.fileBytes()
        // A leaf page of the people table, named by a branch page: zero it.
        let pageSize = 4096
        let at = try #require(bytes.range(of: Data("person 300".utf8))).lowerBound
        let page = at / pageSize
        bytes.replaceSubrange((page * pageSize)..<((page + 1) * pageSize), with: Data(count: pageSize))
        try FileManager.default.removeItem(atPath: fixture.path)
        let (report, store) = try salvaged(fixture, bytes)
        let people = try #require(report.types.first { $0.typeName == "Person" })
        #expect(people.lostRanges.count == 1, "\(people.lostRanges)")
        #expect(people.saved > 400)
        #expect(people.saved < 600)
        #expect(store.object(ofType: Person.self, forPrimaryKey: 300) == nil)
        for person in store.objects(Person.self) { #expect(person.name == "person \(person.id)") }
    }

    @Test("a damaged branch page: the rows of the leaves under it are found on their own pages and saved")
    func aDamagedBranchPageKeepsTheRowsUnderIt() throws {
        let fixture = try closedStore()
        var bytes = fixture.fileBytes()
        // The people's root: a branch page whose separators are 8-byte keys (row ids of Int keys).
        let pageSize = 4096
        var root: Int?
        for page in 2..<(bytes.count / pageSize) {
            let start = page * pageSize
            let lower = Int(bytes[start + 12]) | Int(bytes[start + 13]) << 8
            guard bytes[start + 10] == 0x01, bytes[start + 11] == 0, lower >= 20 else { continue }
            let second = Int(bytes[start + 18]) | Int(bytes[start + 19]) << 8
            if Int(bytes[start + second + 6]) == 8 {
                root = page
                break
            }
        }
        let page = try #require(root, "the people's table has a branch page")
        bytes.replaceSubrange((page * pageSize)..<((page + 1) * pageSize), with: Data(count: pageSize))
        try FileManager.default.removeItem(atPath: fixture.path)
        let (report, store) = try salvaged(fixture, bytes)
        let people = try #require(report.types.first { $0.typeName == "Person" })
        #expect(people.lostRanges.count == 1, "\(people.lostRanges)")
        #expect(people.lostKeys.isEmpty)
        #expect(people.saved == 600, "the leaves under the branch are intact")
        for person in store.objects(Person.self) { #expect(person.name == "person \(person.id)") }
        #expect(store.object(ofType: Person.self, forPrimaryKey: 11)?.ownedDogs.first?.name == "dog 1")
    }

    @Test("the destination must be a new file")
    func theDestinationMustBeNew() throws {
        let fixture = try closedStore()
        let other = fixture.directory.appendingPathComponent("other.strata")
        try fixture.fileBytes().write(to: other)
        #expect { try Store.salvage(from: other, to: URL(fileURLWithPath: fixture.path)) } throws: {
            isCase($0, .invalidArgument(""))
        }
        #expect(try Data(contentsOf: other) == fixture.fileBytes())
    }

    @Test("meta pages naming an impossible last page: salvage fails typed or goes on, never allocates by the claim")
    func anImpossibleLastPage() throws {
        let fixture = try closedStore()
        var bytes = fixture.fileBytes()
        for page in 0..<2 {  // both meta pages: 2^39 pages (it crashed asking for 48 GiB)
            let offset = page * 4096 + MetaPageLayout.lastPage
            bytes.replaceSubrange(
                offset..<(offset + 8), with: withUnsafeBytes(of: (UInt64(1) << 39).littleEndian) { Data($0) })
        }
        let damaged = fixture.directory.appendingPathComponent("damaged.strata").path
        let recovered = fixture.directory.appendingPathComponent("recovered.strata").path
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let (line, status, stderr) = try Self.salvageInHelper(damaged, to: recovered)
        #expect(status == 0, "\(stderr.prefix(300))")
        #expect(line.hasPrefix("salvaged 660") || line.hasPrefix("error: "), "\(line)")
    }

    @Test("the meta-page damage of the soak's trial 389 (an integer conversion trapped): salvage and open go on")
    func soakTrial389() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let good = try FileDamageTests.goodFile(fixture)
        var random = SplitMix64(state: 31)  // as everyKindOfDamage draws them, meta pages first
        var bytes = good.bytes
        for _ in 0...389 {
            bytes = good.bytes
            DamageKind.metaPages.apply(&bytes, &random)
        }
        let damaged = fixture.directory.appendingPathComponent("damaged.strata").path
        let recovered = fixture.directory.appendingPathComponent("recovered.strata").path
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let (line, status, stderr) = try Self.salvageInHelper(damaged, to: recovered)
        #expect(status == 0, "\(stderr.prefix(300))")
        #expect(line.hasPrefix("salvaged") || line.hasPrefix("error: "), "\(line)")
        var outcomes = FileDamageTests.Outcomes()
        try FileDamageTests.check(bytes, in: fixture.directory, trial: 389, expected: good, outcomes: &outcomes)
        #expect(outcomes.failures == [])
    }

    static var trials: Int { max(10, FileDamageTests.trials / 5) }

    @Test("every kind of damage: salvage writes a file that verifies, with exactly the values written, or fails typed")
    func everyKindOfDamage() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let good = try FileDamageTests.goodFile(fixture)
        var random = SplitMix64(state: 31)
        var summary: [String] = []
        for kind in DamageKind.allCases {
            var (salvagedFiles, refused, savedRows, lostRows) = (0, 0, 0, 0)
            for trial in 0..<Self.trials {
                var bytes = good.bytes
                kind.apply(&bytes, &random)
                let damaged = fixture.directory.appendingPathComponent("damaged.strata").path
                let recovered = fixture.directory.appendingPathComponent("recovered-\(trial).strata").path
                try bytes.write(to: URL(fileURLWithPath: damaged))
                let (line, status, stderr) = try Self.salvageInHelper(damaged, to: recovered)
                try #require(status == 0, "\(kind) trial \(trial): the helper crashed: \(stderr.prefix(300))")
                defer { for file in [damaged, recovered, recovered + "-lock"] { unlink(file) } }
                guard line.hasPrefix("salvaged") else {
                    #expect(line.hasPrefix("error: "), "\(line)")
                    refused += 1
                    continue
                }
                salvagedFiles += 1
                // The new file opens, verifies, and holds only values as they were written.
                let store = try Store(configuration: reliabilityConfiguration(path: recovered))
                try store.verify()
                for entry in store.objects(CrashEntry.self) {
                    #expect(
                        entry.payload == CrashEntry.payload(for: entry.id), "\(kind) trial \(trial): entry \(entry.id)")
                    #expect(entry.batch == entry.id / CrashEntry.perBatch)
                }
                let parts = line.split(separator: " ")
                savedRows += Int(parts[1]) ?? 0
                lostRows += Int(parts[3]) ?? 0
            }
            summary.append(
                "\(kind): \(salvagedFiles) salvaged (\(savedRows) rows saved, \(lostRows) lost), \(refused) refused")
        }
        print("salvage: " + summary.joined(separator: "; "))
    }
}
