import Foundation
import StrataTestSupport
import Testing

@testable import Strata

final class SectionedRow: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var letter: String
    @Persisted var optLetter: String?
    @Persisted var small: Int
    @Persisted var optDouble: Double?
    @Persisted var flag: Bool
}

/// Sections by a stored property are read from its column, grouped without sorting the objects
/// (`ColumnSectionLayout`). Checked against the layout read from the sorted objects, on random rows.
@Suite(.fixtureChecks) struct ColumnSectionLayoutTests {
    /// Values chosen to collide: canonically equivalent strings (one key, bytes apart), 0 and -0.
    static let letters = ["A", "B", "é", "e\u{301}", "", "ab", "a"]
    static let doubles: [Double] = [0, -0.0, 1.5, -2, 7]

    static func filled(_ count: Int, seed: UInt64, in fixture: Fixture) throws -> Store {
        var random = SplitMix64(state: seed)
        let store = try fixture.open()
        try store.write {
            for id in 0..<count {
                let row = SectionedRow()
                row.id = Int.random(in: -1_000_000...1_000_000, using: &random) * 4 + id % 4
                row.letter = letters.randomElement(using: &random)!
                row.optLetter = Bool.random(using: &random) ? nil : letters.randomElement(using: &random)!
                row.small = Int.random(in: -3...3, using: &random)
                row.optDouble =
                    Int.random(in: 0..<4, using: &random) == 0 ? nil : doubles.randomElement(using: &random)!
                row.flag = Bool.random(using: &random)
                try store.add(row, update: .modified)
            }
        }
        return store
    }

    /// The layout and every cell's object, read from the column and from the objects.
    static func expectSame<Key: Hashable & _QueryComparable>(
        _ results: Results<SectionedRow>, _ keyPath: KeyPath<SectionedRow, Key>, ascending: Bool,
        _ note: String
    ) throws {
        let sorted = results.sorted(by: keyPath, ascending: ascending)
        let fromColumn = SectionedResults(results: sorted, keyPath: keyPath)
        let fromObjects = SectionedResults(results: sorted) { $0[keyPath: keyPath] }
        #expect(ColumnSectionLayout(sorted: sorted, by: keyPath) != nil, "\(note): read from the column")
        let (column, objects) = (fromColumn.layout(), fromObjects.layout())
        #expect(column.map(\.key) == objects.map(\.key), "\(note)")
        #expect(column.map(\.positions) == objects.map(\.positions), "\(note)")
        for (section, entry) in objects.enumerated() {
            #expect(fromColumn[section].map(\.id) == fromObjects[section].map(\.id), "\(note) section \(section)")
            #expect(fromColumn[section].count == entry.positions.count)
            // The iterators (accessors re-pointed) visit what the subscripts give.
            let bySubscript = (0..<entry.positions.count).map { fromObjects[section][$0].id }
            var (viaColumn, viaObjects): ([Int], [Int]) = ([], [])
            for row in fromColumn[section] { viaColumn.append(row.id) }
            for row in fromObjects[section] { viaObjects.append(row.id) }
            #expect(viaColumn == bySubscript && viaObjects == bySubscript, "\(note) section \(section)")
        }
    }

    @Test("random rows and conditions: the column's layout equals the objects', cells too, both directions")
    func randomLayoutsMatch() throws {
        let fixture = Fixture([SectionedRow.self])
        let store = try Self.filled(400, seed: 7, in: fixture)
        var random = SplitMix64(state: 11)
        let all = store.objects(SectionedRow.self)
        for round in 0..<120 {
            var results = all
            if Bool.random(using: &random) {
                let bound = Int.random(in: -3...3, using: &random)
                results = results.where { $0.small >= bound }
            }
            if Int.random(in: 0..<3, using: &random) == 0 { results = results.where { $0.flag } }
            let ascending = Bool.random(using: &random)
            let note = "round \(round) ascending \(ascending)"
            switch round % 5 {
            case 0: try Self.expectSame(results, \.letter, ascending: ascending, note + " letter")
            case 1: try Self.expectSame(results, \.optLetter, ascending: ascending, note + " optLetter")
            case 2: try Self.expectSame(results, \.small, ascending: ascending, note + " small")
            case 3: try Self.expectSame(results, \.optDouble, ascending: ascending, note + " optDouble")
            default: try Self.expectSame(results, \.flag, ascending: ascending, note + " flag")
            }
        }
    }

    @Test("a table walked in split ranges groups as one walk does; the public forms read the column")
    func splitWalkAndPublicForms() throws {
        let fixture = Fixture([SectionedRow.self])
        let store = try Self.filled(ScanSplit.minimumRows + 5_000, seed: 3, in: fixture)
        let all = store.objects(SectionedRow.self)
        try Self.expectSame(all, \.letter, ascending: true, "split")
        try Self.expectSame(all.where { $0.small > 0 }, \.optDouble, ascending: false, "split, a condition")
        let byLetter = all.sectioned(by: \.letter)
        #expect(byLetter.allKeys == ["", "A", "B", "a", "ab", "é"])  // "é" and "e\u{301}" one key
        let bySmall = all.sectioned(by: \.small, sortDescriptors: [SortKey(\.small, ascending: false)])
        #expect(bySmall.allKeys == [3, 2, 1, 0, -1, -2, -3])
        #expect(bySmall.map(\.count).reduce(0, +) == all.count)
    }

    @Test("the layout is read again after a write; other shapes read the objects")
    func liveAndOtherShapes() throws {
        let fixture = Fixture([SectionedRow.self])
        let store = try Self.filled(50, seed: 5, in: fixture)
        let sections = store.objects(SectionedRow.self).sectioned(by: \.letter)
        let before = sections.map(\.count)
        try store.write {
            let row = SectionedRow()
            row.id = 99_999_999
            row.letter = "Z"
            try store.add(row)
        }
        let z = try #require(sections.allKeys.firstIndex(of: "Z"))  // after "B", before "a": byte order
        #expect(sections.allKeys[z - 1] == "B" && sections.allKeys[z + 1] == "a")
        var expected = before
        expected.insert(1, at: z)
        #expect(sections.map(\.count) == expected)
        #expect(sections[z][0].id == 99_999_999)
        let all = store.objects(SectionedRow.self)
        // Sorted by two keys, or after a limit: the layout comes from the objects.
        #expect(
            ColumnSectionLayout(
                sorted: all.sorted(by: [SortKey(\.letter), SortKey(\.small)]), by: \SectionedRow.letter)
                == nil)
        #expect(ColumnSectionLayout(sorted: all.prefix(3).sorted(by: \.letter), by: \SectionedRow.letter) == nil)
    }

    @Test("a damaged row in the grouping walk is .corrupted naming it, in one walk and in split ranges")
    func aDamagedRowIsNamed() throws {
        for count in [300, ScanSplit.minimumRows + 2_000] {
            let fixture = Fixture([SectionedRow.self])
            let store = try Self.filled(count, seed: 8, in: fixture)
            let all = store.objects(SectionedRow.self)
            let damaged = all[all.count / 3].id
            let key = RawAccess.key(of: store.object(ofType: SectionedRow.self, forPrimaryKey: damaged)!)
            try RawAccess.rewriteStoredRow(of: SectionedRow.self, key: key, in: store) { $0[$0.count / 2] ^= 0x20 }
            let layout = try #require(ColumnSectionLayout(sorted: all.sorted(by: \.letter), by: \SectionedRow.letter))
            let matches = try #require(all.plan.matches)
            #expect {
                _ = try QueryEngine(core: all.core, binding: all.binding).readColumn(
                    layout.column, of: matches, into: ColumnGroups(order: .bytes, keyKind: all.binding.keyKind))
            } throws: { error in
                "\(error)".contains("SectionedRow[\(damaged)]")
            }
        }
    }

    @Test("sections by a column observed on another queue read that queue's Store")
    func observedElsewhere() throws {
        let fixture = Fixture([SectionedRow.self])
        let store = try Self.filled(50, seed: 5, in: fixture)
        let queue = DispatchQueue(label: "sections elsewhere")
        let (initial, updated) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let seen = ResultBox<[[String]]>()
        seen.value = []
        let token = try store.objects(SectionedRow.self).sectioned(by: \.letter).observe(on: queue) { change in
            switch change {
            case .initial(let sections):
                seen.value!.append(sections.allKeys)
                initial.signal()
            case .update(let sections, _, _, _, let inserted, _):
                seen.value!.append(sections.allKeys + ["inserted \(Array(inserted))"])
                updated.signal()
            case .error(let error):
                seen.value!.append(["\(error)"])
            }
        }
        #expect(initial.wait(timeout: .now() + 30) == .success)
        let keys = store.objects(SectionedRow.self).sectioned(by: \.letter).allKeys
        try store.write {
            let row = SectionedRow()
            row.id = 99_999_999
            row.letter = "Z"
            try store.add(row)
        }
        #expect(updated.wait(timeout: .now() + 30) == .success)
        queue.sync {}
        let z = keys.firstIndex { $0 > "Z" } ?? keys.count
        var after = keys
        after.insert("Z", at: z)
        #expect(seen.value == [keys, after + ["inserted [\(z)]"]])
        queue.sync { token.invalidate() }
    }
}
