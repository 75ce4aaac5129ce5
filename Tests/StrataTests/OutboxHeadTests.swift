import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@_spi(StrataSync) @testable import Strata

/// The outbox's head as stored in the unnamed table (nil: none), and how many records the meta table
/// holds, read in one snapshot.
private func outboxParts(_ store: Store) throws -> (head: [UInt8]?, metaRecords: Int) {
    let reader = try ReadTransaction(store.core.environment)
    let head = try OutboxHead.key.withBytes { (key) throws(LMDBError) in try reader.get(.main, key: key).map(Array.init)
    }
    let meta = try #require(store.core.outbox.meta)
    let metaRecords = try reader.withCursor(meta) { (cursor) throws(LMDBError) in
        var count = 0
        let first = try ChangeCapture.entryKey(0).withBytes { (key) throws(LMDBError) in try cursor.seek(atLeast: key) }
        _ = try cursor.walk(from: first, while: { ChangeCapture.sequence(ofKey: $0) != nil }) { (_) throws(Never) in
            count += 1
        }
        return count
    }
    return (head, metaRecords)
}

@Suite("The outbox's head (its newest records, in the page every commit writes)", .fixtureChecks)
struct OutboxHeadTests {
    @Test("one-object writes fill the head, which moves its records to the meta table in blocks; all read in order")
    func headMovesToMetaTable() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.captureChanges(of: [Person.self])
        for id in 1...300 { try store.write { try store.add(Person(id: id, name: "p\(id)")) } }
        let parts = try outboxParts(store)
        let head = try #require(parts.head)
        #expect(head.count <= OutboxHead.capacity)
        #expect(parts.metaRecords > 1, "moved in blocks: \(parts.metaRecords)")
        #expect(parts.metaRecords < 20, "moved in blocks: \(parts.metaRecords)")

        let changes = try store.capturedChanges()
        #expect(changes.count == 300)
        #expect(changes.map(\.key) == (try (1...300).map { try personKey($0, in: store) }))
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        #expect(
            try store.capturedChanges(after: changes[149].sequence, limit: 10).map(\.sequence)
                == changes[150..<160].map(\.sequence))

        // Through a record in the middle of the first block of the meta table, then through one of the head.
        let inMeta = changes[20].sequence
        try store.removeCapturedChanges(through: inMeta)
        #expect(try store.capturedChanges().map(\.sequence) == changes.map(\.sequence).filter { $0 > inMeta })
        let inHead = changes[290].sequence
        try store.removeCapturedChanges(through: inHead)
        #expect(try store.capturedChanges().map(\.sequence) == changes[291...].map(\.sequence))

        try store.removeCapturedChanges(through: changes[299].sequence)
        try store.write { try store.add(Person(id: 301)) }
        let later = try store.capturedChanges()
        #expect(later.count == 1, "never reused")
        #expect(later[0].sequence > changes[299].sequence, "never reused")
    }

    @Test("a commit too big for the head goes to the meta table, ordered between the head's records")
    func bigCommitKeepsOrder() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.captureChanges(of: [Person.self])
        for id in 1...3 { try store.write { try store.add(Person(id: id)) } }
        try store.write { for id in 100..<300 { try store.add(Person(id: id)) } }
        for id in 4...6 { try store.write { try store.add(Person(id: id)) } }
        #expect(try outboxParts(store).metaRecords == 2, "the three before, as one block, and the big one")

        let changes = try store.capturedChanges()
        let keys = { (ids: [Int]) in try ids.map { try personKey($0, in: store) } }
        #expect(changes.count == 206)
        #expect(changes.prefix(3).map(\.key) == (try keys(Array(1...3))))
        #expect(Set(changes[3..<203].map(\.key)) == Set(try keys(Array(100..<300))), "one commit: in any order")
        #expect(changes.suffix(3).map(\.key) == (try keys(Array(4...6))))
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.sequence <= $1.sequence })
        #expect(Set(changes.map(\.sequence)).count == 7, "one sequence per commit")
        let big = changes[3].sequence
        #expect(try store.capturedChanges(after: changes[2].sequence, limit: 1).count == 200, "whole commits")
        try store.removeCapturedChanges(through: big)
        #expect(try store.capturedChanges().map(\.key) == (try keys(Array(4...6))))
    }

    @Test("a damaged head is a typed error; the write that met it stores nothing, the head is untouched")
    func damagedHead() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.captureChanges(of: [Person.self])
        try store.write { try store.add(Person(id: 1)) }
        let damaged: [UInt8] = [OutboxHead.version, 1, 2, 3, 4, 5, 6, 7, 8, 0xFF, 0xFF]  // a record's header cut short
        var transaction: WriteTransaction? = try WriteTransaction(store.core.environment)
        try OutboxHead.key.withBytes { (key) throws(LMDBError) in
            try damaged.withBytes { (value) throws(LMDBError) in _ = try transaction!.put(.main, key: key, value: value)
            }
        }
        try transaction.take()!.commit()

        #expect { try store.capturedChanges() } throws: { isCase($0, .corrupted("")) }
        do {
            try store.write { try store.add(Person(id: 2)) }
            Issue.record("a write over a damaged head committed")
        } catch StoreError.corrupted {
        } catch {
            Issue.record("expected .corrupted, got \(error)")
        }
        #expect(store.object(ofType: Person.self, forPrimaryKey: 2) == nil)
        #expect(try outboxParts(store).head == damaged)
        try store.write { try store.add(Dog(name: "Rex")) }  // a type it does not capture writes on
    }

    @Test("a compacted copy keeps the outbox, head and blocks, and its sequences go on increasing")
    func compactedCopyKeepsOutbox() throws {
        let fixture = Fixture()
        let copyURL = fixture.directory.appendingPathComponent("copy.strata")
        do {
            let store = try fixture.open()
            try store.captureChanges(of: [Person.self])
            for id in 1...100 { try store.write { try store.add(Person(id: id)) } }
            try store.writeCopy(to: copyURL, compact: true)
        }
        var configuration = fixture.configuration
        configuration.fileURL = copyURL
        let copy = try Store(configuration: configuration)
        let before = try copy.capturedChanges()
        #expect(before.count == 100)
        #expect(before.map(\.key) == (try (1...100).map { try personKey($0, in: copy) }))
        for id in 101...150 { try copy.write { try copy.add(Person(id: id)) } }
        let after = try copy.capturedChanges()
        #expect(after.count == 150)
        #expect(zip(after, after.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "after the copy's restart too")
    }

    @Test("a damaged block in the meta table is a typed error for readers and for the removal, which removes nothing")
    func damagedBlock() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.captureChanges(of: [Person.self])
        for id in 1...100 { try store.write { try store.add(Person(id: id)) } }
        let changes = try store.capturedChanges()
        // The first block, cut inside its second record.
        let meta = try #require(store.core.outbox.meta)
        let firstKey = ChangeCapture.entryKey(changes[0].sequence)
        var transaction: WriteTransaction? = try WriteTransaction(store.core.environment)
        let block = try firstKey.withBytes { (key) throws(LMDBError) in
            try transaction!.get(meta, key: key).map(Array.init)
        }
        #expect(block?.first == OutboxHead.version, "the first records were moved as a block")
        let cut = Array((block ?? []).prefix(OutboxHead.headerSize + OutboxHead.entryHeaderSize + 30))
        try firstKey.withBytes { (key) throws(LMDBError) in
            try cut.withBytes { (value) throws(LMDBError) in _ = try transaction!.put(meta, key: key, value: value) }
        }
        try transaction.take()!.commit()

        #expect { try store.capturedChanges() } throws: { isCase($0, .corrupted("")) }
        do {
            try store.removeCapturedChanges(through: changes[5].sequence)
            Issue.record("a removal through a damaged block committed")
        } catch StoreError.corrupted {
        } catch {
            Issue.record("expected .corrupted, got \(error)")
        }
        let reader = try ReadTransaction(store.core.environment)
        let kept = try firstKey.withBytes { (key) throws(LMDBError) in try reader.get(meta, key: key).map(Array.init) }
        #expect(kept == cut, "the removal left the block as it was")
        let after = changes[60].sequence  // past the damaged block: the rest still reads
        #expect(try store.capturedChanges(after: after).map(\.sequence) == changes[61...].map(\.sequence))
    }
}
