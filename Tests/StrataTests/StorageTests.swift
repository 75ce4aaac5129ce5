import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct StorageTests {
    @Test func lmdbErrorsHaveNamesAndLMDBsText() {
        #expect(LMDBError.mapFull.description.contains("MDB_MAP_FULL"))
        #expect(LMDBError.noSpace.description.contains("No space left"))
        #expect(LMDBError(code: -30792) == .mapFull)
        let caught: any Error = LMDBError.readersFull
        switch caught {
        case LMDBError.readersFull: break
        default: Issue.record("LMDBError ~= did not match")
        }
    }

    @Test func aFailedCallPoisonsTheTransactionAndNothingIsStored() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { LMDBFaults.clear() }
        try store.beginWrite()
        try store.add(Person(id: 1))
        LMDBFaults.inject(.mapFull, into: .put)
        #expect(throws: StoreError.mapFull) { try store.add(Person(id: 2)) }
        // The transaction is poisoned: every later change fails with the first failure...
        #expect(throws: StoreError.mapFull) { try store.add(Person(id: 3)) }
        // ...and the commit aborts instead of storing the half-done write.
        #expect(throws: StoreError.mapFull) { try store.commitWrite() }
        #expect(!store.isInWriteTransaction)
        #expect(store.objects(Person.self).isEmpty)
        try store.write { try store.add(Person(id: 4)) }  // the store stays usable
        #expect(store.objects(Person.self).map(\.id) == [4])
    }

    @Test func diskFullAtCommitIsATypedErrorAndTheStoreRecovers() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { LMDBFaults.clear() }
        LMDBFaults.inject(.noSpace, into: .commit)
        #expect(throws: StoreError.storage(.noSpace)) { try store.write { try store.add(Person(id: 1)) } }
        #expect(store.objects(Person.self).isEmpty)
        try store.write { try store.add(Person(id: 1)) }  // space is back
        #expect(store.objects(Person.self).count == 1)
    }

    @Test func readersFullWhenOpeningIsATypedError() throws {
        let fixture = Fixture()
        defer { LMDBFaults.clear() }
        LMDBFaults.inject(.readersFull, into: .beginTransaction, times: 10)
        #expect(throws: StoreError.storage(.readersFull)) { try fixture.open() }
        #expect(fixture.isClosed)
    }

    @Test(.offThePool) func twoHundredThousandObjectsInOneWriteOnADefaultStore() throws {
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let name = String(repeating: "n", count: 40)
        try store.write {
            for id in 0..<200_000 {
                try store.add(Item(id: id, score: Double(id), name: name))
            }
        }
        let items = store.objects(Item.self)
        #expect(items.count == 200_000)
        #expect(store.object(ofType: Item.self, forPrimaryKey: 199_999)?.score == 199_999)
    }

    @Test func writePastTheMaximumSizeFailsWithMapFullAndKeepsWhatWasThere() throws {
        let fixture = Fixture([Blob.self]) { $0.maximumSize = 64 << 20 }
        let store = try fixture.open()
        let megabyte = 1 << 20
        for id in 0..<24 {
            try store.write { try store.add(Blob(id: id, bytes: megabyte)) }
        }
        #expect(throws: StoreError.mapFull) {
            try store.write { try store.add(Blob(id: 100, bytes: 128 * megabyte)) }
        }
        #expect(throws: StoreError.mapFull) {
            try store.write {
                for id in 200..<328 { try store.add(Blob(id: id, bytes: megabyte)) }
            }
        }
        let blobs = store.objects(Blob.self)
        #expect(blobs.map(\.id) == Array(0..<24))
        #expect(blobs.allSatisfy { $0.payload == Data(repeating: UInt8($0.id), count: megabyte) })
        try store.write { try store.add(Blob(id: 24, bytes: 1024)) }  // still usable
        try store.verify()
    }

    @Test func tooSmallMaximumSizeIsRejected() {
        let fixture = Fixture { $0.maximumSize = 1000 }
        #expect { try fixture.open() } throws: { isCase($0, .invalidArgument("")) }
    }

    @Test func unusableLocationsAreFileAccessErrors() throws {
        let fixture = Fixture()
        // A path below a regular file, and a directory where the file should be: fail as root too.
        let file = fixture.directory.appendingPathComponent("plain")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data([1])))
        let belowFile = Store.Configuration(fileURL: file.appendingPathComponent("x.strata"), objectTypes: [Note.self])
        #expect { try Store(configuration: belowFile) } throws: { isCase($0, .fileAccess(path: "", code: 0)) }
        let missing = Store.Configuration(
            fileURL: fixture.directory.appendingPathComponent("no/such/dir/x.strata"), objectTypes: [Note.self])
        #expect { try Store(configuration: missing) } throws: { isCase($0, .fileAccess(path: "", code: 0)) }
        let directory = Store.Configuration(fileURL: fixture.directory, objectTypes: [Note.self])
        #expect { try Store(configuration: directory) } throws: { isCase($0, .fileAccess(path: "", code: 0)) }
        if getuid() != 0 {
            let locked = fixture.directory.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            chmod(locked.path, 0o500)
            defer { chmod(locked.path, 0o700) }
            let unwritable = Store.Configuration(
                fileURL: locked.appendingPathComponent("x.strata"), objectTypes: [Note.self])
            #expect { try Store(configuration: unwritable) } throws: { isCase($0, .fileAccess(path: "", code: 0)) }
        }
        #expect(EnvironmentRegistry.shared.isOpen(file.path + "/x.strata") == false)
    }

    @Test func aFileThatIsNotAStoreIsCorruptedNotACrash() throws {
        let fixture = Fixture()
        var random = SystemRandomNumberGenerator()
        let garbage = Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        try garbage.write(to: URL(fileURLWithPath: fixture.path))
        #expect {
            try fixture.open()
        } throws: { error in
            guard case .corrupted(let reason) = error as? StoreError else { return false }
            return reason.contains("not a Strata file")
        }
        #expect(fixture.fileBytes() == garbage)  // untouched
    }

    @Test func aFileWhoseLastPagesWereFreedUnwrittenOpens() throws {
        let fixture = Fixture([Person.self, Dog.self])
        do {
            let store = try fixture.open()
            try store.write {
                for id in 0..<3_000 { try store.add(Person(id: id, name: String(repeating: "n", count: 300))) }
            }
            try store.write { try store.delete(store.objects(Person.self).where { $0.id >= 50 }) }
        }
        // LMDB counts pages it allocated and freed within the last commit, and never wrote: the newest
        // meta page names a last page past the file's end (this was refused as "truncated").
        let bytes = [UInt8](fixture.fileBytes())
        let pageSize = Int(bytes.load(MetaPageLayout.pageSize, as: UInt32.self))
        let newest = [0, pageSize].max { a, b in
            bytes.load(a + MetaPageLayout.transactionID, as: UInt64.self)
                < bytes.load(b + MetaPageLayout.transactionID, as: UInt64.self)
        }!
        #expect(bytes.load(newest + MetaPageLayout.lastPage, as: UInt64.self) >= UInt64(bytes.count / pageSize))
        let store = try fixture.open()
        #expect(store.objects(Person.self).count == 50)
        try store.verify()
        #expect(try DynamicStore(path: fixture.path).count(ofType: "Person") == 50)
    }

    @Test func aTruncatedFileIsCorruptedNotSIGBUS() throws {
        let fixture = Fixture([Item.self])
        do {
            let store = try fixture.open()
            try store.write {
                try store.add(contentsOf: (0..<20_000).map { Item(id: $0, score: 1, name: "item \($0)") })
            }
        }
        let bytes = fixture.fileBytes()
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: fixture.path))
        #expect {
            try fixture.open()
        } throws: { error in
            guard case .corrupted(let reason) = error as? StoreError else { return false }
            return reason.contains("truncated")
        }
        #expect(fixture.isClosed)
    }
}
