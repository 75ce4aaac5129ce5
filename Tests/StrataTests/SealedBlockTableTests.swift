#if Encryption
    import CLMDB
    import Foundation
    import Testing

    @testable import Strata
    import StrataTestSupport

    /// A table kept in sealed blocks (`SealedBlockTable`), on its own LMDB tables, against a plain Swift
    /// model: seeded puts, deletes and reads in write transactions, nested ones committed or aborted,
    /// outer ones committed or aborted; and what it must refuse.
    @Suite(.offThePool) struct SealedBlockTableTests {
        final class Fixture {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("blocks-\(UUID().uuidString)")
            let environment: Environment
            let table: SealedBlockTable

            init() throws {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                var options = EnvironmentOptions(mapSize: 1 << 30)
                options.checksEveryPage = false
                environment = try Environment(path: url.appendingPathComponent("blocks.strata").path, options: options)
                let txn = try WriteTransaction(environment)
                let blocks = try txn.openTable(named: "type.Item", flags: [], create: true)!
                let keys = try txn.openTable(named: "keys.type.Item", flags: [], create: true)!
                try txn.commit()
                let sealer = try Sealer(
                    key: Data((0..<64).map { UInt8($0 * 3) }), salt: [UInt8](repeating: 1, count: Sealer.saltLength))
                table = SealedBlockTable(
                    blocks: blocks, keys: keys, tag: sealer.tableTag("type.Item"), sealer: sealer)
            }

            deinit {
                environment.close()
                try? FileManager.default.removeItem(at: url)
            }

            /// The stored pairs of one of the two LMDB tables, as they are.
            func stored(_ dbi: MDB_dbi) throws -> [(key: [UInt8], value: [UInt8])] {
                var txn = try WriteTransaction(environment)
                let pairs = try txn.pairs(Table(dbi: dbi, flags: []), after: nil, limit: .max)
                txn.abort()
                return pairs
            }
        }

        typealias Model = [[UInt8]: [UInt8]]

        static func bytes(_ count: Int, _ random: inout SplitMix64) -> [UInt8] {
            (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }

        /// Compares every pair, and 20 reads by key (some missing), with `model`.
        static func expectSame(
            _ table: SealedBlockTable, _ txn: OpaquePointer, _ model: Model, _ random: inout SplitMix64
        )
            throws
        {
            let pairs = try table.pairs(txn).sorted { $0.key.lexicographicallyPrecedes($1.key) }
            let expected = model.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            #expect(pairs.count == expected.count)
            let sameKeys = pairs.map(\.key) == expected.map(\.key)
            let sameValues = pairs.map(\.value) == expected.map(\.value)
            #expect(sameKeys, "the keys differ from the model's")
            #expect(sameValues, "the values differ from the model's")
            let known = Array(model.keys)
            for _ in 0..<20 {
                let key =
                    known.isEmpty || random.next() % 4 == 0
                    ? bytes(1 + Int(random.next() % 12), &random) : known[Int(random.next() % UInt64(known.count))]
                let value = try key.withUnsafeBytes { try table.value(txn, key: $0) }
                #expect(value == model[key], "the value of a key of \(key.count) bytes")
            }
        }

        /// Random changes to `model` through `table` in `txn`.
        static func change(
            _ table: SealedBlockTable, _ txn: OpaquePointer, _ model: inout Model, count: Int,
            _ random: inout SplitMix64
        ) throws {
            // Half the new keys come in increasing order, above every other (a bulk insert's), the
            // rest anywhere.
            let runPrefix: [UInt8] = [0xFF, 0xFF]
            var next =
                model.keys.filter { $0.count == 8 && $0.starts(with: runPrefix) }
                .map { UInt64(bigEndian: $0.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }) & 0xFFFF_FFFF_FFFF }
                .max().map { $0 + 1 } ?? 0
            for _ in 0..<count {
                let known = Array(model.keys)
                let existing = !known.isEmpty && random.next() % 3 == 0
                let key: [UInt8]
                if existing {
                    key = known[Int(random.next() % UInt64(known.count))]
                } else if random.next() % 2 == 0 {
                    key = runPrefix + withUnsafeBytes(of: next.bigEndian) { Array($0.suffix(6)) }
                    next += 1 + random.next() % 3
                } else {
                    key = bytes(1 + Int(random.next() % 12), &random)
                }
                switch random.next() % 4 {
                case 0:
                    let removed = try key.withUnsafeBytes { try table.delete(txn, key: $0) }
                    #expect(removed == (model.removeValue(forKey: key) != nil))
                default:
                    // Mostly small rows, a few past a page, some past a block's target.
                    let length =
                        random.next() % 50 == 0 ? 20_000 : Int(random.next() % (random.next() % 8 == 0 ? 3_000 : 80))
                    let value = bytes(length, &random)
                    let noOverwrite = random.next() % 2 == 0
                    let put = try key.withUnsafeBytes { k in
                        try value.withUnsafeBytes { v in try table.put(txn, key: k, value: v, noOverwrite: noOverwrite)
                        }
                    }
                    let wasThere = model[key] != nil
                    #expect(put == !(noOverwrite && wasThere))
                    if put { model[key] = value }
                }
            }
        }

        @Test(arguments: [UInt64(1), 2, 3]) func seededChangesReadAsAPlainModel(seed: UInt64) throws {
            let fixture = try Fixture()
            let table = fixture.table
            var random = SplitMix64(state: seed)
            var committed = Model()
            for _ in 0..<40 {
                var model = committed
                let outer = try WriteTransaction(fixture.environment)
                try Self.change(table, outer.handle, &model, count: Int(random.next() % 300), &random)
                try Self.expectSame(table, outer.handle, model, &random)
                for _ in 0..<Int(random.next() % 3) {  // nested transactions, committed or aborted
                    let child = try WriteTransaction(nestedIn: outer.handle, of: fixture.environment)
                    table.nestedBegan(child.handle, in: outer.handle)
                    var childModel = model
                    try Self.change(table, child.handle, &childModel, count: Int(random.next() % 200), &random)
                    try Self.expectSame(table, child.handle, childModel, &random)
                    let handle = child.handle
                    if random.next() % 2 == 0 {
                        try child.commit()
                        table.ended(handle, committed: true)
                        model = childModel
                    } else {
                        child.abort()
                        table.ended(handle, committed: false)
                    }
                    try Self.expectSame(table, outer.handle, model, &random)
                }
                let handle = outer.handle
                if random.next() % 5 == 0 {
                    outer.abort()
                    table.ended(handle, committed: false)
                } else {
                    try table.prepare(handle)
                    try outer.commit()
                    committed = model
                }
                let reader = try WriteTransaction(fixture.environment)
                try Self.expectSame(table, reader.handle, committed, &random)
                reader.abort()
                table.ended(handle, committed: false)
            }
            // Nothing of a key or value is in the stored bytes: keys sealed, blocks sealed.
            let blocks = try fixture.stored(table.blocks)
            let keys = try fixture.stored(table.keys)
            #expect(keys.count == committed.count)
            let stored = (blocks + keys).flatMap { $0.key + $0.value }
            for (key, value) in committed.prefix(50) where key.count >= 6 && value.count >= 8 {
                #expect(Data(stored).firstRange(of: Data(key)) == nil)
                #expect(Data(stored).firstRange(of: Data(value.prefix(8))) == nil)
            }
            // Rows written together share blocks: far fewer blocks than rows.
            #expect(blocks.count * 4 < max(committed.count, 8))
        }

        @Test func aBulkInsertFillsBlocksInOrderAndReadsBack() throws {
            let fixture = try Fixture()
            let table = fixture.table
            var model = Model()
            let txn = try WriteTransaction(fixture.environment)
            for id in 0..<20_000 {
                let key = withUnsafeBytes(of: UInt64(id).bigEndian) { Array($0) }
                let value = Array("row \(id) of the bulk insert".utf8)
                let put = try key.withUnsafeBytes { k in
                    try value.withUnsafeBytes { try table.put(txn.handle, key: k, value: $0, noOverwrite: true) }
                }
                #expect(put)
                model[key] = value
            }
            try table.prepare(txn.handle)
            try txn.commit()
            let blocks = try fixture.stored(table.blocks)
            #expect(
                blocks.map { SealedBlockTable.number($0.key.withUnsafeBytes { $0 }) } == Array(0..<UInt64(blocks.count))
            )
            #expect(blocks.count < 20_000 * 40 / (SealedBlockTable.targetBytes / 2))
            var random = SplitMix64(state: 9)
            let reader = try WriteTransaction(fixture.environment)
            try Self.expectSame(table, reader.handle, model, &random)
            reader.abort()
        }

        /// Deletes give space back: blocks left under a quarter full move their rows to the open block.
        @Test func blocksEmptiedByDeletesAreMergedAway() throws {
            let fixture = try Fixture()
            let table = fixture.table
            var model = Model()
            let key = { (id: Int) in withUnsafeBytes(of: UInt64(id).bigEndian) { Array($0) } }
            var write = try WriteTransaction(fixture.environment)
            for id in 0..<20_000 {
                let value = Array("row \(id) before the deletes".utf8)
                _ = try key(id).withUnsafeBytes { k in
                    try value.withUnsafeBytes { try table.put(write.handle, key: k, value: $0, noOverwrite: true) }
                }
                model[key(id)] = value
            }
            try table.prepare(write.handle)
            try write.commit()
            let before = try fixture.stored(table.blocks).count
            write = try WriteTransaction(fixture.environment)
            var random = SplitMix64(state: 4)
            for id in 0..<20_000 where random.next() % 10 != 0 {  // 90% deleted, all over
                #expect(try key(id).withUnsafeBytes { try table.delete(write.handle, key: $0) })
                model[key(id)] = nil
            }
            try table.prepare(write.handle)
            try write.commit()
            let after = try fixture.stored(table.blocks).count
            #expect(after * 4 < before, "\(before) blocks before the deletes, \(after) after")
            #expect(try fixture.stored(table.keys).count == model.count)
            let reader = try WriteTransaction(fixture.environment)
            try Self.expectSame(table, reader.handle, model, &random)
            reader.abort()
        }

        @Test func aDamagedBlockOrAKeyEntryMovedToAnotherBlockIsRefused() throws {
            let fixture = try Fixture()
            let table = fixture.table
            let txn = try WriteTransaction(fixture.environment)
            let big = [UInt8](repeating: 7, count: SealedBlockTable.targetBytes - 100)
            for id in 0..<3 {
                let key = withUnsafeBytes(of: UInt64(id + 1)) { Array($0) }
                _ = try key.withUnsafeBytes { k in
                    try big.withUnsafeBytes { try table.put(txn.handle, key: k, value: $0, noOverwrite: true) }
                }
            }
            try table.prepare(txn.handle)
            try txn.commit()
            let blocks = try fixture.stored(table.blocks)
            let keys = try fixture.stored(table.keys)
            #expect(blocks.count == 3)  // one each: they do not fit two to a block
            // A key entry naming another block (its checksum made again): the block does not hold the key.
            var tamper = try WriteTransaction(fixture.environment)
            let moved = keys[0].key.withUnsafeBytes { k in
                let number = SealedBlockTable.number(keys[0].value.withUnsafeBytes { $0 }) == 0 ? UInt64(1) : 0
                return SealedBlockTable.withKeyEntry(number, storedKey: k) { Array($0) }
            }
            _ = try keys[0].key.withBytes { k in
                try moved.withBytes { try tamper.put(Table(dbi: table.keys, flags: []), key: k, value: $0) }
            }
            try tamper.commit()
            let reader = try WriteTransaction(fixture.environment)
            var failures = 0
            for id in 0..<3 {
                let key = withUnsafeBytes(of: UInt64(id + 1)) { Array($0) }
                do { _ = try key.withUnsafeBytes { try table.value(reader.handle, key: $0) } } catch { failures += 1 }
            }
            reader.abort()
            #expect(failures == 1)
            // A flipped bit in a block: its rows do not read.
            var flip = try WriteTransaction(fixture.environment)
            var damaged = blocks[2].value
            damaged[damaged.count / 2] ^= 0x04
            _ = try blocks[2].key.withBytes { k in
                try damaged.withBytes { try flip.put(Table(dbi: table.blocks, flags: []), key: k, value: $0) }
            }
            try flip.commit()
            let again = try WriteTransaction(fixture.environment)
            #expect(throws: LMDBError.self) { try table.pairs(again.handle) }
            again.abort()
        }
    }
#endif
