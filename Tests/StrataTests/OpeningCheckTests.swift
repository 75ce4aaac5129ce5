import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

/// Damage present when a file is opened is found by opening (`Store.OpeningCheck.full`), before any
/// object is handed out: a thrown `.corrupted`, never a crash nor a trap later.
@Suite("Opening checks every page and row", .serialized, .fixtureChecks, .offThePool)
struct OpeningCheckTests {
    private func closedStore() throws -> Fixture {
        let fixture = try Fixture.closedStoreOfPeople()
        #expect(fixture.isClosed)
        return fixture
    }

    /// Overwrites the file's bytes at `offset` and waits until its modification time shows it (the
    /// clock the file system stamps files with ticks every few milliseconds).
    private func damage(_ fixture: Fixture, at offset: Int, with bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: fixture.path)
        let before = try FileManager.default.attributesOfItem(atPath: fixture.path)[.modificationDate] as? Date
        var data = try Data(contentsOf: url)
        for (index, byte) in bytes.enumerated() { data[offset + index] = byte }
        for _ in 0..<10_000 {
            try data.write(to: url)
            let after = try FileManager.default.attributesOfItem(atPath: fixture.path)[.modificationDate] as? Date
            if after != before { return }
        }
        Issue.record("the file's modification time did not change")
    }

    /// The offset of the bytes `marker` in the file.
    private func offset(of marker: String, in fixture: Fixture) throws -> Int {
        let data = fixture.fileBytes()
        let range = try #require(data.range(of: Data(marker.utf8)))
        return range.lowerBound - data.startIndex
    }

    @Test("a flipped byte inside a row: opening throws .corrupted naming the table (it opened, then reads trapped)")
    func aDamagedRowIsFoundWhenOpening() throws {
        let fixture = try closedStore()
        let at = try offset(of: "person 321", in: fixture)
        try damage(fixture, at: at + 7, with: [UInt8(ascii: "9")])  // "person 921": a plausible value
        let error = try #require(throws: StoreError.self) { try fixture.open() }
        guard case .corrupted(let damage) = error else {
            Issue.record("expected .corrupted, got \(error)")
            return
        }
        #expect(damage.contains("type.Person"), "\(damage)")
        #expect(damage.contains("checksum"), "\(damage)")
        // The minimal check opens it: what `.full` exists for.
        var configuration = fixture.configuration
        configuration.openingCheck = .minimal
        let store = try Store(configuration: configuration)
        #expect(store.objects(Person.self).count == 600)
    }

    @Test("a damaged page number in a table's branch page: .corrupted when opening")
    func aDamagedBranchPageIsFoundWhenOpening() throws {
        let fixture = try closedStore()
        let bytes = fixture.fileBytes()
        let pageSize = 4096
        // Find a branch page (flags 0x01 at offset 10) of the rows' table and point its second child away.
        var branch: Int?
        for page in 2..<(bytes.count / pageSize) {
            let start = page * pageSize
            if bytes[start + 10] == 0x01, bytes[start + 11] == 0 {
                branch = start
                break
            }
        }
        let start = try #require(branch, "the store has a branch page")
        let secondNode = Int(bytes[start + 18]) | Int(bytes[start + 19]) << 8
        try damage(fixture, at: start + secondNode, with: [0xFF, 0x7F])  // the child's page number, low bits
        let error = try #require(throws: StoreError.self) { try fixture.open() }
        guard case .corrupted(let damage) = error else {
            Issue.record("expected .corrupted, got \(error)")
            return
        }
        #expect(damage.contains("page"), "\(damage)")
    }

    @Test("an unchanged file is checked once per process; a change from outside is checked again")
    func aFileIsCheckedOncePerVersion() throws {
        let fixture = try closedStore()
        let path = try EnvironmentRegistry.canonicalPath(fixture.path)
        let runs = { Environment.fullChecksRun.withLock { $0[path, default: 0] } }
        let first = runs()
        do { _ = try fixture.open() }
        #expect(runs() == first + 1)
        do { _ = try fixture.open() }  // closed in between, reopened unchanged
        #expect(runs() == first + 1)
        let at = try offset(of: "person 123", in: fixture)
        try damage(fixture, at: at + 7, with: [UInt8(ascii: "7")])
        #expect { try fixture.open() } throws: { isCase($0, .corrupted("")) }
        #expect(runs() == first + 2)
    }

    @Test("a file written since the check is checked again when reopened")
    func aWrittenFileIsCheckedAgain() throws {
        let fixture = try closedStore()
        let path = try EnvironmentRegistry.canonicalPath(fixture.path)
        let runs = { Environment.fullChecksRun.withLock { $0[path, default: 0] } }
        do {
            let store = try fixture.open()
            try store.write { try store.add(Person(id: 1_000, name: "new")) }
        }
        let before = runs()
        do { _ = try fixture.open() }
        #expect(runs() == before + 1)
    }
}
