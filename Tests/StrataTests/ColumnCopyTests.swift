import Dispatch
import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

/// Columns copied in memory for repeated first pages (`ColumnCopies`, `ChangeStamps`): a copy gives
/// the page the rows give, for every numeric type and direction; any commit that changes the table
/// (this Store, another Store, another process, a commit group) stops its use at once, and one that
/// changes another table does not; a write sees its own changes; an older snapshot keeps its own
/// answer; the memory limit holds.
@Suite(.fixtureChecks) struct ColumnCopyTests {
    /// The ids of the first `limit` Items by score (ties in id order), read as an app reads them.
    static func page(_ store: Store, limit: Int = 3, ascending: Bool = true) -> [Int] {
        Array(store.objects(Item.self).sorted(by: \.score, ascending: ascending).prefix(limit)).map(\.id)
    }

    /// A Store of 100 Items scored `id % 10`.
    static func items(in fixture: Fixture) throws -> Store {
        let store = try Store(configuration: fixture.configuration)
        try store.write {
            for id in 0..<100 { try store.add(Item(id: id, score: Double(id % 10), name: "i\(id)")) }
        }
        return store
    }

    static func stamp(_ store: Store, _ type: Object.Type) throws -> ChangeStamp {
        try #require(try QueryEngine<Object>(core: store.core, binding: store.core.binding(for: type)).changeStamp())
    }

    @Test(arguments: [true, false])
    func aCopyGivesThePagesTheRowsGive(ascending: Bool) throws {
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self])
        let store = try CollectedRowsTests.filled(in: fixture)
        let all = store.objects(AllTypes.self)
        let objects = Array(all)
        let copies = store.core.shared.columnCopies
        var made = 0
        func check(
            _ sorted: (Bool) -> Results<AllTypes>, _ value: (AllTypes) -> Double?, _ name: String
        ) {
            let expected = CollectedRowsTests.reference(objects, value, ascending: ascending, <)
            for limit in [1, 7, 69, 70, 71, 200, CollectedRowsTests.count, CollectedRowsTests.count + 5] {
                // The first query walks the rows, the second copies the column, the third reads the copy.
                for round in 0..<3 {
                    let page = Array(sorted(ascending).prefix(limit)).map(\.key)
                    let differs = page != Array(expected.prefix(limit))
                    #expect(!differs, "\(name), first \(limit), round \(round): \(page.prefix(8)) …")
                }
                if limit == 1 {
                    made += 1
                    #expect(copies.usage.count == made, "\(name) copied on its second query")
                }
            }
        }
        check({ all.sorted(by: \.optDouble, ascending: $0) }, { $0.optDouble }, "optDouble")
        check({ all.sorted(by: \.double, ascending: $0) }, { $0.double }, "double")
        check({ all.sorted(by: \.optInt, ascending: $0) }, { $0.optInt.map(Double.init) }, "optInt")
        check({ all.sorted(by: \.int, ascending: $0) }, { Double($0.int) }, "int")
        check({ all.sorted(by: \.int8, ascending: $0) }, { Double($0.int8) }, "int8")
        check({ all.sorted(by: \.uint64, ascending: $0) }, { Double($0.uint64) }, "uint64")
        check({ all.sorted(by: \.float, ascending: $0) }, { Double($0.float) }, "float")
        check({ all.sorted(by: \.optFloat, ascending: $0) }, { $0.optFloat.map(Double.init) }, "optFloat")
        check({ all.sorted(by: \.date, ascending: $0) }, { $0.date.timeIntervalSinceReferenceDate }, "date")
        check({ all.sorted(by: \.optDate, ascending: $0) }, { $0.optDate?.timeIntervalSinceReferenceDate }, "optDate")
        check({ all.sorted(by: \.optBool, ascending: $0) }, { $0.optBool.map { $0 ? 1 : 0 } }, "optBool")
    }

    @Test func everyCommitThatChangesTheTableStopsTheCopyAtOnce() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.items(in: fixture)
        let copies = store.core.shared.columnCopies
        #expect(Self.page(store) == [0, 10, 20])
        #expect(Self.page(store) == [0, 10, 20])
        #expect(copies.usage.count == 1)
        let diagnostics = try store.diagnostics()
        #expect(diagnostics.columnCopies.count == 1)
        #expect(diagnostics.columnCopies.bytes >= 100 * 8)
        #expect(diagnostics.description.contains("column copies: 1,"))
        // A value changed in place: no row added or removed.
        try store.write { store.object(ofType: Item.self, forPrimaryKey: 55)!.score = -1 }
        #expect(Self.page(store) == [55, 0, 10])
        #expect(Self.page(store) == [55, 0, 10])
        #expect(Self.page(store) == [55, 0, 10])
        // Another Store of the file, on another thread.
        try ScanSplitTests.onAnotherThread { [configuration = fixture.configuration] in
            let other = try Store(configuration: configuration)
            try other.write { other.object(ofType: Item.self, forPrimaryKey: 66)!.score = -2 }
        }
        try store.refresh()
        #expect(Self.page(store) == [66, 55, 0])
        #expect(Self.page(store) == [66, 55, 0])
        // Deleted rows.
        try store.write { try store.delete(store.objects(Item.self).where { $0.id == 66 || $0.id == 0 }) }
        #expect(Self.page(store) == [55, 10, 20])
        #expect(Self.page(store, limit: 2, ascending: false) == [9, 19])
        // Inside a write, its own changes; the commit's stamp after.
        try store.write {
            store.object(ofType: Item.self, forPrimaryKey: 77)!.score = -3
            #expect(Self.page(store) == [77, 55, 10])
            #expect(Self.page(store) == [77, 55, 10])
            try store.add(Item(id: 1_000, score: -4, name: "new"))
            #expect(Self.page(store) == [1_000, 77, 55])
        }
        #expect(Self.page(store) == [1_000, 77, 55])
        #expect(Self.page(store) == [1_000, 77, 55])
        // A write that fails changes nothing: the copy made after it stays right.
        #expect {
            try store.write {
                store.object(ofType: Item.self, forPrimaryKey: 88)!.score = -5
                throw StoreError.invalidArgument("refused")
            }
        } throws: { isCase($0, .invalidArgument("")) }
        #expect(Self.page(store) == [1_000, 77, 55])
    }

    @Test func aCommitToAnotherTableKeepsTheCopy() throws {
        let fixture = Fixture([Item.self, Town.self])
        let store = try Self.items(in: fixture)
        let before = try Self.stamp(store, Item.self)
        let towns = try Self.stamp(store, Town.self)
        try store.write { try store.add(Town(name: "Ely", population: 1)) }
        #expect(try Self.stamp(store, Item.self) == before)
        #expect(try Self.stamp(store, Town.self) != towns)
        try store.write { store.object(ofType: Item.self, forPrimaryKey: 1)!.name = "renamed" }
        let after = try Self.stamp(store, Item.self)
        #expect(after.table == before.table + 1)
        #expect(before.precedes(after))
        #expect(!after.precedes(before))
    }

    @Test func readersOnOtherThreadsSeeTheirOwnVersionWhileAWriterCommits() throws {
        let fixture = Fixture([Item.self])
        let store = try Self.items(in: fixture)
        let configuration = fixture.configuration
        let problems = Locked<[String]>([])
        let readers = DispatchGroup()
        for _ in 0..<3 {
            readers.enter()
            Thread {
                defer { readers.leave() }
                do {
                    let mine = try Store(configuration: configuration)
                    for _ in 0..<40 {
                        try mine.refresh()
                        // The first page as the objects of this version give it (ties in id order).
                        let scored: [(id: Int, score: Double)] = mine.objects(Item.self).map { ($0.id, $0.score) }
                        let ordered = scored.sorted { lhs, rhs in
                            lhs.score != rhs.score ? lhs.score < rhs.score : lhs.id < rhs.id
                        }
                        let expected = ordered.prefix(3).map(\.id)
                        for _ in 0..<3 where Self.page(mine) != expected {
                            problems.withLock { $0.append("\(Self.page(mine)) instead of \(expected)") }
                        }
                    }
                } catch {
                    problems.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        for commit in 1...40 {
            try store.write { store.object(ofType: Item.self, forPrimaryKey: commit % 100)!.score = -Double(commit) }
        }
        readers.wait()
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(5) })")
    }

    /// A change no stamp counted (a writer of a Strata before stamps): a page whose rows are gone
    /// drops the copy and walks the rows instead of failing.
    @Test func aCopyNamingARowThatIsGoneIsDropped() throws {
        let fixture = Fixture([Item.self])
        let store = try Self.items(in: fixture)
        let copies = store.core.shared.columnCopies
        #expect(Self.page(store) == [0, 10, 20])
        #expect(Self.page(store) == [0, 10, 20])
        #expect(copies.usage.count == 1)
        let stamp = try Self.stamp(store, Item.self)
        try store.write {
            try store.delete(store.object(ofType: Item.self, forPrimaryKey: 0)!)
            // Set back by one: the commit counts it up to the stamp the copy was made at.
            let key = ChangeStamps.key(ofTable: TableName.objects("Item"))
            try StoreError.mapping { () throws(LMDBError) in
                try key.withBytes { (key) throws(LMDBError) in
                    try withBytes(of: (stamp.table - 1).littleEndian) { (value) throws(LMDBError) in
                        _ = try store.core.session!.put(.main, key: key, value: value)
                    }
                }
            }
        }
        #expect(try Self.stamp(store, Item.self) == stamp)
        #expect(Self.page(store) == [10, 20, 30])
        #expect(copies.usage.count == 0)
        // Asked twice more: copied again, by the second walk.
        #expect(Self.page(store) == [10, 20, 30])
        #expect(Self.page(store) == [10, 20, 30])
        #expect(copies.usage.count == 1)
        #expect(Self.page(store) == [10, 20, 30])
    }

    /// A stamp of the wrong size (damage, or a writer that knows another format): no copy is trusted
    /// while it lasts; the next commit that changes the table counts on from 0.
    @Test func aDamagedStampTurnsCopiesOffForItsTable() throws {
        let fixture = Fixture([Item.self])
        let store = try Self.items(in: fixture)
        let key = ChangeStamps.key(ofTable: TableName.objects("Item"))
        try store.write {
            try StoreError.mapping { () throws(LMDBError) in
                try key.withBytes { (key) throws(LMDBError) in
                    _ = try [UInt8]([1, 2, 3]).withBytes { (value) throws(LMDBError) in
                        try store.core.session!.put(.main, key: key, value: value)
                    }
                }
            }
        }
        #expect(
            try QueryEngine<Object>(core: store.core, binding: store.core.binding(for: Item.self)).changeStamp() == nil)
        for _ in 0..<3 { #expect(Self.page(store) == [0, 10, 20]) }
        #expect(store.core.shared.columnCopies.usage.count == 0)
        try store.write { store.object(ofType: Item.self, forPrimaryKey: 30)!.score = -1 }
        #expect(try Self.stamp(store, Item.self).table == 1)
        for _ in 0..<3 { #expect(Self.page(store) == [30, 0, 10]) }
        #expect(store.core.shared.columnCopies.usage.count == 1)
    }

    #if DEBUG
        /// A stamp that cannot be stored (the map is full) fails the commit whole: neither the row
        /// nor the stamp is stored.
        @Test func aStampThatCannotBeStoredAbortsItsCommit() throws {
            let fixture = Fixture([Item.self])
            let store = try Self.items(in: fixture)
            let before = try Self.stamp(store, Item.self)
            let table = try store.core.binding(for: Item.self).table
            var transaction = try WriteTransaction(store.core.environment)
            _ = try [UInt8](repeating: 0xFF, count: 9).withBytes { (key) throws(LMDBError) in
                try [UInt8]([1, 2, 3]).withBytes { (value) throws(LMDBError) in
                    try transaction.put(table, key: key, value: value)
                }
            }
            LMDBFaults.inject(.mapFull, into: .put)  // the next put: the stamp's
            defer { LMDBFaults.clear() }
            do {
                try transaction.commit()
                Issue.record("the commit stored a row without its stamp")
            } catch {
                #expect(error == .mapFull)
            }
            try store.refresh()
            #expect(try Self.stamp(store, Item.self) == before)
            #expect(store.objects(Item.self).count == 100)
        }
    #endif

    @Test func anOlderSnapshotKeepsItsOwnAnswer() throws {
        let fixture = Fixture([Item.self])
        let store = try Self.items(in: fixture)
        let frozen = try store.freeze()
        #expect(Self.page(frozen) == [0, 10, 20])
        #expect(Self.page(frozen) == [0, 10, 20])
        try store.write { store.object(ofType: Item.self, forPrimaryKey: 42)!.score = -1 }
        #expect(Self.page(store) == [42, 0, 10])
        #expect(Self.page(store) == [42, 0, 10])
        #expect(Self.page(frozen) == [0, 10, 20])
        #expect(Self.page(frozen) == [0, 10, 20])
        #expect(Self.page(store) == [42, 0, 10])
    }

    @Test func theMemoryLimitHolds() throws {
        let off = Fixture([Item.self]) { $0.columnCopyLimit = 0 }
        let store = try Self.items(in: off)
        for _ in 0..<3 { #expect(Self.page(store) == [0, 10, 20]) }
        #expect(store.core.shared.columnCopies.usage.count == 0)

        // Room for one copy and a half: a copy of another column pushes the least used out.
        let measured = Fixture([AllTypes.self, Person.self, Dog.self])
        let sized = try CollectedRowsTests.filled(in: measured)
        for _ in 0..<2 { _ = Array(sized.objects(AllTypes.self).sorted(by: \.double).prefix(5)) }
        let oneCopy = sized.core.shared.columnCopies.usage.bytes
        #expect(oneCopy >= CollectedRowsTests.count * 8)
        let limit = oneCopy + oneCopy / 2
        let fixture = Fixture([AllTypes.self, Person.self, Dog.self]) { $0.columnCopyLimit = limit }
        let types = try CollectedRowsTests.filled(in: fixture)
        let copies = types.core.shared.columnCopies
        let all = types.objects(AllTypes.self)
        let binding = try types.core.binding(for: AllTypes.self)
        let stamp = try Self.stamp(types, AllTypes.self)
        func isKept(_ name: String) throws -> Bool {
            let property = try #require(binding.schema.properties.firstIndex { $0.name == name })
            let (column, _) = try #require(binding.numericColumn(ofProperty: property))
            let id = ColumnCopies.Column(table: binding.name, column: column, type: binding.columnTypes[column])
            return copies.copy(of: id, at: stamp) != nil
        }
        for _ in 0..<2 { _ = Array(all.sorted(by: \.double).prefix(5)) }
        #expect(try isKept("double"))
        _ = Array(all.sorted(by: \.int).prefix(5))
        #expect(try isKept("double"), "a column walked once is not copied")
        _ = Array(all.sorted(by: \.int).prefix(5))
        #expect(try isKept("int"), "the least used copy made room")
        #expect(try !isKept("double"), "the least used copy made room")
        #expect(copies.usage.count == 1)
        #expect(copies.usage.bytes <= limit)
        let byInt = CollectedRowsTests.reference(Array(all), { $0.int }, ascending: true, <).prefix(5)
        #expect(Array(all.sorted(by: \.int).prefix(5)).map(\.key) == Array(byInt))
        // A table too large for the limit is not copied.
        let tight = Fixture([AllTypes.self, Person.self, Dog.self]) { $0.columnCopyLimit = 1_000 }
        let small = try CollectedRowsTests.filled(in: tight)
        for _ in 0..<3 { _ = Array(small.objects(AllTypes.self).sorted(by: \.double).prefix(5)) }
        #expect(small.core.shared.columnCopies.usage.count == 0)
    }

    @Test func aChangeToATableNotYetKnownStampsEveryTable() {
        let stamps = ChangeStamps()
        let meta = Table(dbi: 2, flags: [])
        let rows = Table(dbi: 3, flags: [])
        let index = Table(dbi: 4, flags: .duplicates)
        stamps.update(from: [
            StrataFormat.metaTable: meta, TableName.objects("Item"): rows, TableName.index("Item", "name"): index,
        ])
        #expect(stamps.keys(forChanged: [3, 4, 2]) == [ChangeStamps.key(ofTable: TableName.objects("Item"))])
        #expect(stamps.keys(forChanged: [4, 2, Table.main.dbi]).isEmpty)
        #expect(stamps.keys(forChanged: [9]) == [ChangeStamps.anyKey])
        #expect(ChangeStamps().keys(forChanged: [3]) == [ChangeStamps.anyKey], "a table not published yet")
    }

    @Test func aStampSortsRightAfterItsTableAndOpensAsNoTable() throws {
        let name = TableName.objects("Item")
        let key = ChangeStamps.key(ofTable: name)
        #expect(Array(name.utf8).lexicographicallyPrecedes(key))
        #expect(key.lexicographicallyPrecedes(Array(TableName.objects("Item0").utf8)))
        #expect(key.lexicographicallyPrecedes(Array(TableName.objects("ItemA").utf8)))
        // A compacted copy keeps the stamps as plain values, and counts on from them.
        let fixture = Fixture([Item.self])
        let store = try Self.items(in: fixture)
        try store.write { store.object(ofType: Item.self, forPrimaryKey: 1)!.score = 7 }
        let before = try Self.stamp(store, Item.self)
        let copy = fixture.directory.appendingPathComponent("compact.strata")
        try store.writeCopy(to: copy, compact: true)
        var configuration = fixture.configuration
        configuration.fileURL = copy
        let copied = try Store(configuration: configuration)
        #expect(try Self.stamp(copied, Item.self) == before)
        try copied.write { copied.object(ofType: Item.self, forPrimaryKey: 1)!.score = 8 }
        #expect(try before.precedes(Self.stamp(copied, Item.self)))
        #expect(Self.page(copied) == [0, 10, 20])
    }
}

@Suite("Column copies and other processes", .serialized, .fixtureChecks, .offThePool)
struct ColumnCopyProcessTests {
    @Test func anotherProcessCommitStopsTheCopy() throws {
        let fixture = Fixture([CrashEntry.self, CrashCounter.self, ProcessEntry.self])
        let store = try fixture.open()
        try store.write {
            for id in 0..<50 {
                let entry = ProcessEntry()
                entry.id = id
                entry.writer = 1
                try store.add(entry)
            }
        }
        func page() -> [Int] {
            Array(store.objects(ProcessEntry.self).sorted(by: \.writer).prefix(3)).map(\.id)
        }
        #expect(page() == [0, 1, 2])
        #expect(page() == [0, 1, 2])
        #expect(store.core.shared.columnCopies.usage.count == 1)
        let writer = try StressProcess(["add-range", fixture.path, "-10", "5"])  // writer -10: first now
        let (status, stderr) = writer.wait()
        #expect(status == 0, "\(stderr)")
        try store.refresh()
        #expect(page() == [-10, -9, -8])
        #expect(page() == [-10, -9, -8])
    }
}
