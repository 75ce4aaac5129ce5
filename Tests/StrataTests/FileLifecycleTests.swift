import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks) struct FileLifecycleTests {
    /// 300 blobs of 8 KiB, then all but 10 deleted: most of the file is free pages.
    private func mostlyFreeFile() throws -> Fixture {
        let fixture = Fixture([Blob.self])
        let store = try fixture.open()
        try store.write { try store.add(contentsOf: (0..<300).map { Blob(id: $0, bytes: 8192) }) }
        try store.write { try store.delete(store.objects(Blob.self).where { $0.id >= 10 }) }
        return fixture
    }

    @Test func writeCopyMakesAStoreOfItsOwnAndCompacts() throws {
        let fixture = try mostlyFreeFile()
        let store = try fixture.open()
        let plain = fixture.directory.appendingPathComponent("plain.strata")
        let compacted = fixture.directory.appendingPathComponent("compacted.strata")
        try store.writeCopy(to: plain)
        try store.writeCopy(to: compacted, compact: true)
        let plainSize = try FileManager.default.attributesOfItem(atPath: plain.path)[.size] as! Int
        let compactedSize = try FileManager.default.attributesOfItem(atPath: compacted.path)[.size] as! Int
        #expect(compactedSize * 4 < plainSize, "compacted \(compactedSize), plain \(plainSize)")
        for url in [plain, compacted] {
            let copy = try Store(configuration: Store.Configuration(fileURL: url, objectTypes: [Blob.self]))
            #expect(copy.objects(Blob.self).map(\.id) == Array(0..<10))
            #expect(copy.objects(Blob.self).allSatisfy { $0.payload.count == 8192 })
            try copy.verify()
        }
    }

    @Test func writeCopyInsideAWriteCopiesItsChanges() throws {
        // As Realm's writeCopy(toFile:): the copy holds what the open write changed, the file does not.
        let fixture = try mostlyFreeFile()
        let store = try fixture.open()
        let copyURL = fixture.directory.appendingPathComponent("in-write.strata")
        try store.beginWrite()
        try store.add(Blob(id: 500, bytes: 100))
        try store.delete(store.objects(Blob.self).where { $0.id < 5 })
        try store.writeCopy(to: copyURL)
        // the copy exists now
        #expect { try store.writeCopy(to: copyURL) } throws: { isCase($0, .fileAccess(path: "", code: EEXIST)) }
        try store.cancelWrite()
        #expect(store.objects(Blob.self).map(\.id) == Array(0..<10))
        let copy = try Store(configuration: Store.Configuration(fileURL: copyURL, objectTypes: [Blob.self]))
        #expect(copy.objects(Blob.self).map(\.id) == Array(5..<10) + [500])
        #expect(copy.object(ofType: Blob.self, forPrimaryKey: 500)?.payload.count == 100)
        try copy.verify()
        try copy.write { try copy.add(Blob(id: 501, bytes: 10)) }
        #expect(copy.objects(Blob.self).count == 7)
    }

    @Test func writeCopyInsideAWriteKeepsTypesTheStoreDoesNotList() throws {
        let fixture = Fixture([Blob.self, Note.self])
        do {
            let both = try fixture.open()
            try both.write {
                try both.add(Blob(id: 1, bytes: 10))
                let note = Note()
                note.text = "kept"
                try both.add(note)
            }
        }
        // A Store of Blob alone: Note's tables are in the file, unknown to this process.
        let blobsOnly = try Store(
            configuration: Store.Configuration(fileURL: fixture.configuration.fileURL!, objectTypes: [Blob.self]))
        let copyURL = fixture.directory.appendingPathComponent("partial.strata")
        try blobsOnly.write {
            try blobsOnly.add(Blob(id: 2, bytes: 20))
            try blobsOnly.writeCopy(to: copyURL)
        }
        let copy = try Store(configuration: Store.Configuration(fileURL: copyURL, objectTypes: [Blob.self, Note.self]))
        #expect(copy.objects(Blob.self).map(\.id) == [1, 2])
        #expect(copy.objects(Note.self).map(\.text) == ["kept"])
        try copy.verify()
    }

    @Test func writeCopyRefusesAnExistingFile() throws {
        let fixture = try mostlyFreeFile()
        let store = try fixture.open()
        let target = fixture.directory.appendingPathComponent("copy.strata")
        try Data("keep me".utf8).write(to: target)
        #expect { try store.writeCopy(to: target) } throws: { isCase($0, .fileAccess(path: "", code: 0)) }
        #expect(try Data(contentsOf: target) == Data("keep me".utf8))
        #expect { try store.writeCopy(to: URL(string: "https://example.com/x")!) } throws: {
            isCase($0, .invalidArgument(""))
        }
    }

    @Test func shouldCompactOnLaunchCompactsOnlyWhenAskedAndFirstOpened() throws {
        let fixture = try mostlyFreeFile()
        let before = fixture.fileBytes().count
        let asked = ResultBox<(Int, Int)>()
        var declining = fixture.configuration
        declining.shouldCompactOnLaunch = { total, used in
            asked.value = (total, used)
            return false
        }
        do { _ = try Store(configuration: declining) }
        #expect(fixture.fileBytes().count == before)
        let (askedTotal, askedUsed) = try #require(asked.value)
        #expect(askedTotal == before)
        #expect(askedUsed < askedTotal / 4)
        var compacting = fixture.configuration
        compacting.shouldCompactOnLaunch = { _, _ in true }
        let held = try fixture.open()  // already open in the process: not asked, not compacted
        do { _ = try Store(configuration: compacting) }
        #expect(fixture.fileBytes().count == before)
        _ = held
    }

    @Test func compactingOnLaunchKeepsEveryObject() throws {
        let fixture = try mostlyFreeFile()
        let before = fixture.fileBytes().count
        var compacting = fixture.configuration
        compacting.shouldCompactOnLaunch = { total, used in used < total / 2 }
        let store = try Store(configuration: compacting)
        #expect(fixture.fileBytes().count * 4 < before)
        #expect(store.objects(Blob.self).map(\.id) == Array(0..<10))
        try store.verify()
        try store.write { try store.add(Blob(id: 99, bytes: 10)) }
        #expect(store.objects(Blob.self).count == 11)
    }
}

@Suite("Files a killed process left behind", .fixtureChecks)
struct AbandonedFileTests {
    /// A process id no process has (beyond Linux's largest pid_max).
    private let deadProcess: Int32 = 0x7FFF_FFF0

    @Test("opening a file removes the half-made copies of processes that died making it")
    func halfMadeFilesOfDeadProcessesAreRemoved() throws {
        let fixture = Fixture([Person.self])
        let abandoned = ["test.strata.creating-\(deadProcess)", "test.strata.creating-\(deadProcess)-lock"]
        let live = ["test.strata.creating-1", "test.strata.creating-1-lock"]  // init never dies
        for name in abandoned + live {
            #expect(
                FileManager.default.createFile(
                    atPath: fixture.directory.appendingPathComponent(name).path, contents: Data()))
        }
        let store = try fixture.open()
        #expect(store.objects(Person.self).isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        for name in abandoned { #expect(!names.contains(name)) }
        for name in live { #expect(names.contains(name), "another process's file in the making stays") }
        for name in live { try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent(name)) }
    }
}
