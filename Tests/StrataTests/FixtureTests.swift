import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite("The test fixture checks what a test leaves behind", .fixtureChecks)
struct FixtureTests {
    @Test("this process's reader slot is read from the lock file while a Store holds a snapshot")
    func readerSlotInTheLockFile() throws {
        let fixture = Fixture([Person.self])
        let store = try fixture.open()
        #expect(store.objects(Person.self).isEmpty)  // reads: the snapshot holds a reader slot
        let readers = try #require(LockFile.readerProcesses(atPath: fixture.path + "-lock"))
        #expect(readers.contains(getpid()))
    }

    @Test("a Store kept open is reported; once it closes, nothing is")
    func aStoreKeptOpenIsReported() throws {
        let fixture = Fixture([Person.self])
        var store: Store? = try fixture.open()
        #expect(store?.objects(Person.self).isEmpty == true)
        let problems = fixture.teardownProblems(waitingUpTo: .milliseconds(20))
        #expect(problems.contains { $0.contains("still open") }, "\(problems)")
        store = nil
        #expect(fixture.teardownProblems().isEmpty)
        #expect(LockFile.readerProcesses(atPath: fixture.path + "-lock")?.contains(getpid()) == false)
    }

    @Test("a temporary file of Strata's left in the directory is reported")
    func aStrayTemporaryFileIsReported() throws {
        let fixture = Fixture([Person.self])
        let stray = fixture.directory.appendingPathComponent("test.strata.compacting")
        #expect(FileManager.default.createFile(atPath: stray.path, contents: Data()))
        #expect(fixture.teardownProblems().contains { $0.contains("test.strata.compacting") })
        try FileManager.default.removeItem(at: stray)
    }
}
