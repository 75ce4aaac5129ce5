import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// LMDB opens whichever meta page names the larger transaction id. A damaged id must be reported,
/// never make LMDB open an older version of the data in silence.
@Suite(.fixtureChecks) struct MetaRollbackTests {
    /// A store with 50 objects, each added in a commit of its own.
    static func fiftyCommits(_ fixture: Fixture) throws {
        let store = try fixture.open()
        for id in 1...50 { try store.write { try store.add(Person(id: id, name: "p\(id)")) } }
    }

    static func transactionIDs(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        let pageSize = Int(bytes.load(MetaPageLayout.pageSize, as: UInt32.self))
        return (
            bytes.load(MetaPageLayout.transactionID, as: UInt64.self),
            bytes.load(pageSize + MetaPageLayout.transactionID, as: UInt64.self)
        )
    }

    @Test func theTwoMetaPagesNameConsecutiveTransactions() throws {
        let fixture = Fixture()
        try Self.fiftyCommits(fixture)
        let (page0, page1) = Self.transactionIDs([UInt8](fixture.fileBytes()))
        #expect(StoreFile.areConsecutiveMetaIDs(page0, page1))
        #expect(page0 % 2 == 0)
        #expect(page1 % 2 == 1)
    }

    @Test(arguments: [0, 1])
    func aFlippedBitInAMetaPagesTransactionIDIsCorruptedNotARollback(page: Int) throws {
        let fixture = Fixture()
        try Self.fiftyCommits(fixture)
        let original = [UInt8](fixture.fileBytes())
        let pageSize = Int(original.load(MetaPageLayout.pageSize, as: UInt32.self))
        let (page0, page1) = Self.transactionIDs(original)
        var refused = 0
        var undetectable: [Int] = []
        for bit in 0..<48 {
            var damaged = original
            damaged[page * pageSize + MetaPageLayout.transactionID + bit / 8] ^= UInt8(1 << (bit % 8))
            let (flipped0, flipped1) = Self.transactionIDs(damaged)
            try Data(damaged).write(to: URL(fileURLWithPath: fixture.path))
            do {
                let store = try fixture.open()
                // Opened: only a flip that leaves two consecutive ids of the right parity can; the
                // test names those (a meta page carries no checksum to tell them apart).
                #expect(StoreFile.areConsecutiveMetaIDs(flipped0, flipped1), "bit \(bit) opened")
                undetectable.append(bit)
                _ = store.objects(Person.self).count
            } catch {
                guard case .corrupted(let reason) = error else { throw error }
                #expect(reason.contains("meta pages name transactions"), "bit \(bit): \(reason)")
                #expect([UInt8](fixture.fileBytes()) == damaged, "bit \(bit): the file was changed")
                refused += 1
            }
        }
        // A flip passes only if it gives the other page's id ± 1 with its own page's parity (with the
        // ids here, none does); every other flip is refused.
        #expect(refused + undetectable.count == 48)
        #expect(undetectable.count <= 1, "undetectable flips: \(undetectable) of ids \(page0), \(page1)")
        // The store opens again once the page is whole.
        try Data(original).write(to: URL(fileURLWithPath: fixture.path))
        #expect(try fixture.open().objects(Person.self).count == 50)
    }

    @Test func aNewFileAndCopiesOfAStoreOpen() throws {
        let fixture = Fixture()
        _ = try fixture.open()  // created: one commit (Strata's format record)
        try Self.fiftyCommits(fixture)
        let store = try fixture.open()
        for compact in [false, true] {
            let copy = fixture.directory.appendingPathComponent("copy-\(compact).strata")
            try store.writeCopy(to: copy, compact: compact)
            let (page0, page1) = Self.transactionIDs([UInt8](try Data(contentsOf: copy)))
            #expect(StoreFile.areConsecutiveMetaIDs(page0, page1), "compact: \(compact), ids \(page0), \(page1)")
            var configuration = fixture.configuration
            configuration.fileURL = copy
            #expect(try Store(configuration: configuration).objects(Person.self).count == 50)
        }
    }
}
