import Foundation
import StrataTestSupport
import Testing

@testable import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// `Store.deleteFiles(for:)`: the file and its lock file go while no one has them open; while a Store,
/// a frozen snapshot or another process has the file open, nothing is deleted and the call throws
/// `.fileAccess` with `EBUSY`.
@Suite(.fixtureChecks) struct DeleteFilesTests {
    private static func addEntries(_ fixture: Fixture, count: Int) throws {
        let store = try fixture.open()
        try store.write {
            for id in 0..<count {
                let entry = ProcessEntry()
                entry.id = id
                try store.add(entry)
            }
        }
    }

    private static func isBusy(_ error: any Error) -> Bool {
        if case .fileAccess(_, let code)? = error as? StoreError { return code == EBUSY }
        return false
    }

    private static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func aClosedFileAndItsLockFileAreDeletedAndTheNextOpenIsEmpty() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        try Self.addEntries(fixture, count: 50)
        #expect(!EnvironmentRegistry.shared.isOpen(fixture.path))
        #expect(Self.exists(fixture.path) && Self.exists(fixture.path + "-lock"))
        // What an in-place compaction a crash interrupted leaves beside the file.
        #expect(FileManager.default.createFile(atPath: fixture.path + ".compacting", contents: Data([1, 2, 3])))

        #expect(try Store.deleteFiles(for: fixture.configuration))
        for file in [fixture.path, fixture.path + "-lock", fixture.path + ".compacting"] {
            #expect(!Self.exists(file), "\(file) is left")
        }
        #expect(try Store.deleteFiles(for: fixture.configuration) == false, "nothing left to delete")
        let store = try fixture.open()
        #expect(store.objects(ProcessEntry.self).isEmpty)
    }

    @Test func noFileOrNoDirectoryIsNothingToDelete() throws {
        let fixture = Fixture([ProcessEntry.self])
        #expect(try Store.deleteFiles(for: fixture.configuration) == false)
        #expect(!Self.exists(fixture.path + "-lock"), "no lock file made to be deleted")
        var elsewhere = fixture.configuration
        elsewhere.fileURL = fixture.directory.appendingPathComponent("missing/deeper/file.strata")
        #expect(try Store.deleteFiles(for: elsewhere) == false)
        let inMemory = Store.Configuration(
            inMemoryIdentifier: "delete-files-\(UUID())", objectTypes: [ProcessEntry.self])
        #expect(try Store.deleteFiles(for: inMemory) == false)
    }

    @Test func aFileOpenInThisProcessIsBusyAndKeepsItsObjects() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        try Self.addEntries(fixture, count: 20)
        do {
            let store = try fixture.open()
            #expect { try Store.deleteFiles(for: fixture.configuration) } throws: { Self.isBusy($0) }
            #expect(store.objects(ProcessEntry.self).count == 20)
        }
        // A frozen snapshot alone keeps the file open.
        let frozen = try fixture.open().freeze()
        #expect("a frozen snapshot's file was deleted") { try Store.deleteFiles(for: fixture.configuration) } throws: {
            Self.isBusy($0)
        }
        #expect(frozen.objects(ProcessEntry.self).count == 20)
        #expect(Self.exists(fixture.path) && Self.exists(fixture.path + "-lock"))
    }

    @Test func anInMemoryStoreIsBusyWhileOpen() throws {
        var configuration = Store.Configuration(
            inMemoryIdentifier: "delete-files-\(UUID())", objectTypes: [ProcessEntry.self])
        configuration.encryptionKey = reliabilityEncryptionKey
        let store = try Store(configuration: configuration)
        try store.write { try store.add(ProcessEntry()) }
        #expect("an open in-memory store's file was deleted") { try Store.deleteFiles(for: configuration) } throws: {
            Self.isBusy($0)
        }
        #expect(store.objects(ProcessEntry.self).count == 1)
    }

    @Test func aFileAnotherProcessHasOpenIsBusyUntilItExits() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        try Self.addEntries(fixture, count: 30)
        #expect(!EnvironmentRegistry.shared.isOpen(fixture.path))
        let other = try StressProcess(["hold-reader", fixture.path])
        #expect(other.readLine() == "ready")
        #expect("a file another process has open was deleted") {
            try Store.deleteFiles(for: reliabilityConfiguration(path: fixture.path))
        } throws: { Self.isBusy($0) }
        #expect(Self.exists(fixture.path) && Self.exists(fixture.path + "-lock"))
        do {
            let store = try fixture.open()
            #expect(store.objects(ProcessEntry.self).count == 30)
        }
        other.kill()
        other.wait()
        #expect(!EnvironmentRegistry.shared.isOpen(fixture.path))
        #expect(try Store.deleteFiles(for: reliabilityConfiguration(path: fixture.path)))
        #expect(!Self.exists(fixture.path))
    }
}
