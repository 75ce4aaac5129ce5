import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Realm's ObjectIdTests (RealmSwift/Tests/ObjectIdTests.swift), re-expressed, then ObjectId as a
/// stored value: primary key, index, optional, List, and damaged bytes.
@Suite("ObjectId", .fixtureChecks)
struct ObjectIdTests {
    let hex = "000123450000ffbeef91906c"
    let hexAfter = "000123450000ffbeef91906d"

    @Test(
        "Realm testObjectIdInitialization: the hex form round-trips; timestamp(machineId:processId:) keeps the second")
    func initialization() throws {
        let id = try ObjectId(string: hex)
        #expect(id.stringValue == hex)
        #expect(try ObjectId(string: hex.uppercased()) == id)
        let now = Date()
        let made = ObjectId(timestamp: now, machineId: 10, processId: 20)
        #expect(Int(made.timestamp.timeIntervalSince1970) == Int(now.timeIntervalSince1970))
        #expect(made.bytes[4...8] == [0, 0, 10, 0, 20])
    }

    @Test("Realm testObjectIdComparision, GreaterThan(OrEqualTo), LessThan(OrEqualTo): byte order")
    func comparison() throws {
        let id = try ObjectId(string: hex)
        let later = try ObjectId(string: hexAfter)
        let same = try ObjectId(string: hex)
        #expect(id != later)
        #expect(id == same)
        #expect(later > id)
        #expect(!(id > same))
        #expect(later >= id)
        #expect(id >= same)
        #expect(id < later)
        #expect(!(id < same))
        #expect(id <= later)
        #expect(id <= same)
        #expect(Set([id, same, later]).count == 2)
    }

    @Test("generate(): the time now, this process's random part, a count that increases")
    func generate() {
        let before = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let ids = (0..<1_000).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == 1_000)
        #expect(ids.allSatisfy { $0.timestamp >= before && $0.timestamp <= Date() })
        #expect(Set(ids.map { $0.bytes[4..<9] }).count == 1)
        let counts = ids.map { $0.bytes[9..<12].reduce(0) { $0 << 8 | Int($1) } }
        // Increasing (modulo the 24-bit wrap); other tests running at once take counts in between.
        #expect(zip(counts, counts.dropFirst()).allSatisfy { (1..<0x80_0000).contains(($1 - $0) & 0xFF_FFFF) })
    }

    @Test(
        "bad text and bad byte counts are invalidArgument",
        arguments: ["", "xyz", "000123450000ffbeef91906", "000123450000ffbeef91906g", "000123450000ffbeef91906c0"])
    func badText(text: String) {
        #expect { try ObjectId(string: text) } throws: { isCase($0, .invalidArgument("")) }
        #expect(ObjectId(text) == nil)
    }

    @Test("Codable: the hex string")
    func codable() throws {
        let id = try ObjectId(string: hex)
        let data = try JSONEncoder().encode([id])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(hex)\"]")
        #expect(try JSONDecoder().decode([ObjectId].self, from: data) == [id])
    }

    @Test("a primary key: found, duplicates refused naming the id, order of the table is id order")
    func primaryKey() throws {
        let fixture = Fixture([Ledger.self])
        let store = try fixture.open()
        let ids = (0..<20).map { _ in ObjectId.generate() }
        try store.write {
            for id in ids.shuffled() {
                let ledger = Ledger(amount: 1)
                ledger.id = id
                try store.add(ledger)
            }
        }
        #expect(store.object(ofType: Ledger.self, forPrimaryKey: ids[3])?.id == ids[3])
        #expect(store.object(ofType: Ledger.self, forPrimaryKey: ObjectId.generate()) == nil)
        #expect(store.objects(Ledger.self).map(\.id) == ids.sorted())
        let duplicate = Ledger(amount: 2)
        duplicate.id = ids[0]
        do {
            try store.write { try store.add(duplicate, update: .error) }
            Issue.record("a duplicate ObjectId key was added")
        } catch {
            #expect("\(error)".contains(ids[0].stringValue), "\(error)")
        }
    }

    @Test("indexed and optional: equality, in and ranges through the index agree with a scan")
    func indexedQueries() throws {
        let fixture = Fixture([Ledger.self])
        let store = try fixture.open()
        let references = (0..<10).map { _ in ObjectId.generate() }.sorted()
        try store.write {
            for (index, reference) in references.enumerated() {
                let ledger = Ledger(amount: Decimal128(index))
                ledger.reference = index == 0 ? nil : reference
                ledger.related.append(objectsIn: references.prefix(index))
                try store.add(ledger)
            }
        }
        let all = store.objects(Ledger.self)
        #expect(all.where { $0.reference == references[4] }.map(\.amount) == [4])
        #expect(all.where { $0.reference == nil }.map(\.amount) == [0])
        #expect(Set(all.where { $0.reference.in([references[2], references[7]]) }.map(\.amount)) == [2, 7])
        #expect(all.where { $0.reference >= references[8] }.count == 2)
        #expect(all.where { $0.related.contains(references[8]) }.map(\.amount) == [9])
        #expect("\(all.where { $0.reference == references[4] }.queryPlan)".contains("index"))
        #expect(all.sorted(by: \.reference, ascending: false).first?.reference == references[9])
    }

    @Test("a damaged ObjectId column (11 bytes) is corrupted when decoded, never a trap")
    func damagedBytes() {
        let eleven = [UInt8](repeating: 7, count: 11)
        let outcomes = eleven.withUnsafeBytes { raw -> (decode: Bool, key: Bool) in
            let decode = (try? ObjectId._strataDecodeValue(raw, in: _DecodeContext(owner: nil, column: 0))) == nil
            let key = (try? RowKey(stored: raw, kind: .objectId)) == nil
            return (decode, key)
        }
        #expect(outcomes.decode)
        #expect(outcomes.key)
    }
}
