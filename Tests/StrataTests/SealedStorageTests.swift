#if Encryption
    import CLMDB
    import Foundation
    import Testing

    @testable import Strata
    import StrataTestSupport

    /// The storage layer of an encrypted file (`FileSealing` under every `LMDB` call): what goes in comes
    /// out, against a plain Swift model; none of it is in the file; what was moved or damaged is refused.
    @Suite(.offThePool) struct SealedStorageTests {
        let key = Data((0..<64).map { UInt8(255 - $0) })

        final class Directory {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("sealed-\(UUID().uuidString)")
            init() { try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
            deinit { try? FileManager.default.removeItem(at: url) }
            var file: String { url.appendingPathComponent("sealed.strata").path }
        }

        func environment(_ path: String, key: Data? = nil, sealedBytes: Bool = false) throws -> Environment {
            var options = EnvironmentOptions(mapSize: 1 << 30)
            options.checksEveryPage = false  // the page walk is a Store's; these are the storage layer's tests
            options.encryptionKey = sealedBytes ? nil : Array(key ?? self.key)
            options.readsSealedBytes = sealedBytes
            return try Environment(path: path, options: options)
        }

        /// The tables of the test: "rows", a table of one sealed value per sealed key (backlinks are; a
        /// type's rows are kept in blocks, SealedBlockTableTests), an index (sealed keys and duplicates),
        /// an outbox (keys in clear, in order).
        struct Tables {
            let rows: Table
            let index: Table
            let outbox: Table
        }

        func openTables(_ transaction: inout WriteTransaction) throws -> Tables {
            func open(_ name: String, _ flags: TableFlags) throws -> Table {
                Table(dbi: try transaction.openTable(named: name, flags: flags, create: true)!, flags: flags)
            }
            return Tables(
                rows: try open("backlinks.Note.owner", []), index: try open("index.Note.tag", .duplicates),
                outbox: try open("strata.outbox", []))
        }

        typealias StoredPair = (key: [UInt8], value: [UInt8])

        /// Writes `rows` to the rows table of a new encrypted file in `directory`, then hands its stored
        /// (sealed) pairs to `tamper` with an environment that reads and writes the file's bytes as they
        /// are, to put changed pairs back (`put(stored key, bytes)`).
        func writeThenTamper(
            _ directory: Directory, rows: [(key: [UInt8], value: [UInt8])], table: String = "backlinks.Note.owner",
            _ tamper: ([StoredPair], (_ key: [UInt8], _ value: [UInt8]) throws -> Void) throws -> Void
        ) throws {
            do {
                let environment = try self.environment(directory.file)
                var write = try WriteTransaction(environment)
                let written = Table(dbi: try write.openTable(named: table, flags: [], create: true)!, flags: [])
                for (key, value) in rows {
                    _ = try key.withBytes { k in try value.withBytes { v in try write.put(written, key: k, value: v) } }
                }
                try write.commit()
                environment.close()
            }
            let plain = try self.environment(directory.file, sealedBytes: true)
            var raw = try WriteTransaction(plain)
            let rowsTable = Table(dbi: try raw.openTable(named: table, flags: [], create: false)!, flags: [])
            let stored = try raw.pairs(rowsTable, after: nil, limit: rows.count + 1)
            try tamper(stored) { key, value in
                _ = try key.withBytes { k in try value.withBytes { v in try raw.put(rowsTable, key: k, value: v) } }
            }
            try raw.commit()
            plain.close()
        }

        static func marker(_ random: inout SplitMix64) -> [UInt8] {
            Array("m\(random.next() % 1_000_000_000_000)z".utf8)
        }

        /// Every run of the bytes "m", digits, "z" in `bytes`: a marker is in the file if and only if
        /// it is one of them (a marker is such a run, and runs cannot overlap).
        static func markerTokens(in bytes: Data) -> Set<[UInt8]> {
            var tokens = Set<[UInt8]>()
            bytes.withUnsafeBytes { (file: UnsafeRawBufferPointer) in
                var index = 0
                while index < file.count {
                    defer { index += 1 }
                    guard file[index] == UInt8(ascii: "m") else { continue }
                    var end = index + 1
                    while end < file.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(file[end]) { end += 1 }
                    if end > index + 1, end < file.count, file[end] == UInt8(ascii: "z") {
                        tokens.insert(Array(file[index...end]))
                    }
                }
            }
            return tokens
        }

        @Test func seededWritesReadBackAsAPlainModelAndNoMarkerIsInTheFile() throws {
            let directory = Directory()
            let environment = try environment(directory.file)
            var random = SplitMix64(state: 5_401)
            var rows: [[UInt8]: [UInt8]] = [:]
            var index: [[UInt8]: Set<[UInt8]>] = [:]
            var outbox: [[UInt8]: [UInt8]] = [:]
            var markers: [[UInt8]] = []
            var tables: Tables?
            for round in 0..<40 {
                var write = try WriteTransaction(environment)
                if tables == nil { tables = try openTables(&write) }
                let t = tables!
                for step in 0..<60 {
                    let choice = random.next() % 10
                    let existing = rows.keys.sorted(by: { $0.lexicographicallyPrecedes($1) })
                    switch choice {
                    case 0...4:  // a new or replaced row
                        let key =
                            choice == 4 && !existing.isEmpty
                            ? existing[Int(random.next() % UInt64(existing.count))] : Self.marker(&random)
                        let marker = Self.marker(&random)
                        let value = marker + Array(repeating: UInt8(ascii: "."), count: Int(random.next() % 200))
                        markers += [key, marker]
                        _ = try key.withBytes { k in
                            try value.withBytes { v in try write.put(t.rows, key: k, value: v) }
                        }
                        rows[key] = value
                    case 5 where !existing.isEmpty:  // a deleted row
                        let key = existing[Int(random.next() % UInt64(existing.count))]
                        #expect(try key.withBytes { try write.delete(t.rows, key: $0) })
                        rows[key] = nil
                    case 6, 7:  // an index entry
                        let tag = Array("tag\(random.next() % 20)".utf8)
                        let row = Self.marker(&random)
                        markers.append(row)
                        _ = try tag.withBytes { k in try row.withBytes { v in try write.put(t.index, key: k, value: v) }
                        }
                        index[tag, default: []].insert(row)
                    case 8 where !index.isEmpty:  // an index entry removed, pair by pair
                        let tag = index.keys.sorted(by: { $0.lexicographicallyPrecedes($1) })[
                            Int(random.next() % UInt64(index.count))]
                        let row = index[tag]!.sorted(by: { $0.lexicographicallyPrecedes($1) }).first!
                        #expect(
                            try tag.withBytes { k in
                                try row.withBytes { v in try write.delete(t.index, key: k, value: v) }
                            })
                        index[tag]!.remove(row)
                        if index[tag]!.isEmpty { index[tag] = nil }
                    default:  // an outbox entry: a counter key, kept in order
                        var sequence = UInt64(round * 100 + step).bigEndian
                        let key = withUnsafeBytes(of: &sequence) { Array($0) }
                        let value = Self.marker(&random)
                        markers.append(value)
                        _ = try key.withBytes { k in
                            try value.withBytes { v in try write.put(t.outbox, key: k, value: v) }
                        }
                        outbox[key] = value
                    }
                }
                try write.commit()
                try check(environment, tables!, rows: rows, index: index, outbox: outbox)
            }
            #expect(rows.count > 300)
            environment.close()
            for file in [directory.file, directory.file + "-lock"] {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                let tokens = Self.markerTokens(in: bytes)
                let found = markers.filter(tokens.contains)
                #expect(found.count == 0, "\(found.count) of \(markers.count) markers in \(file)")
            }
        }

        func check(
            _ environment: Environment, _ t: Tables, rows: [[UInt8]: [UInt8]], index: [[UInt8]: Set<[UInt8]>],
            outbox: [[UInt8]: [UInt8]]
        ) throws {
            let read = try ReadTransaction(environment)
            for (key, value) in rows {
                #expect(try key.withBytes { try read.get(t.rows, key: $0).map(Array.init) } == value)
            }
            var walked: [[UInt8]: [UInt8]] = [:]
            var walkOrder: [[UInt8]] = []
            try read.withCursor(t.rows) { (cursor) throws(LMDBError) in
                _ = try cursor.walk(from: cursor.first()) { entry in
                    walked[Array(entry.key)] = Array(entry.value)
                    walkOrder.append(Array(entry.key))
                }
            }
            #expect(walked == rows)
            // Walked in the order of the keys' values, as a plain file's (SealedOrder), from either end
            // and from any key.
            let sortedKeys = rows.keys.sorted(by: { $0.lexicographicallyPrecedes($1) })
            #expect(walkOrder == sortedKeys)
            var backwards: [[UInt8]] = []
            try read.withCursor(t.rows) { (cursor) throws(LMDBError) in
                var entry = try cursor.last()
                while let current = entry {
                    backwards.append(Array(current.key))
                    entry = try cursor.previous()
                }
            }
            #expect(backwards == sortedKeys.reversed())
            if let probe = sortedKeys.dropFirst(sortedKeys.count / 2).first {
                var shorter = probe
                shorter.removeLast()  // sorts before the probe, after every key before it
                let found = try shorter.withBytes { k in
                    try read.withCursor(t.rows) { (cursor) throws(LMDBError) in
                        try cursor.seek(atLeast: k).map { Array($0.key) }
                    }
                }
                #expect(found == sortedKeys.first { !$0.lexicographicallyPrecedes(shorter) })
            }
            var entries: [[UInt8]: Set<[UInt8]>] = [:]
            try read.withCursor(t.index) { (cursor) throws(LMDBError) in
                _ = try cursor.walk(from: cursor.first()) { entry in
                    entries[Array(entry.key), default: []].insert(Array(entry.value))
                }
            }
            #expect(entries == index)
            for (tag, members) in index {  // found by equality, as queries find index entries
                let first = try tag.withBytes { k in
                    try read.withCursor(t.index) { (cursor) throws(LMDBError) in
                        try cursor.seek(atLeast: k).map { Array($0.key) }
                    }
                }
                #expect(first == tag)
                let member = members.first!
                let pair = try tag.withBytes { k in
                    try member.withBytes { v in
                        try read.withCursor(t.index) { (cursor) throws(LMDBError) in
                            try cursor.find(key: k, value: v).map { Array($0.value) }
                        }
                    }
                }
                #expect(pair == member)
            }
            var sequence: [[UInt8]] = []
            try read.withCursor(t.outbox) { (cursor) throws(LMDBError) in
                _ = try cursor.walk(from: cursor.first()) { entry in
                    sequence.append(Array(entry.key))
                    #expect(outbox[Array(entry.key)] == Array(entry.value))
                }
            }
            #expect(sequence == outbox.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }))  // in order
        }

        /// `stored`'s value with a bit flipped in its sealed bytes; with `forged`, its checksum (of the
        /// stored key and the changed sealed bytes) made again, as one who knows the layout would.
        static func tampered(_ stored: (key: [UInt8], value: [UInt8]), forged: Bool) -> [UInt8] {
            var changed = stored.value
            changed[changed.count / 2] ^= 0x04
            guard forged else { return changed }
            let sealed = changed.count - FileSealing.checksumLength
            let checksum = stored.key.withUnsafeBytes { key in
                changed.withUnsafeBytes {
                    Checksum.rowSeal(key: key, row: UnsafeRawBufferPointer(rebasing: $0[..<sealed]))
                }
            }
            changed.replaceSubrange(sealed..., with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
            return changed
        }

        /// Opens the tampered file with its key. Not `forged`: the opening check must call it damaged
        /// (nil). `forged`: the check passes, and the reads of the 50 rows `key0`... of `table` refused
        /// as `.corrupted` are counted.
        func refusedReads(_ directory: Directory, table: String, forged: Bool) throws -> Int? {
            var options = EnvironmentOptions(mapSize: 1 << 30)
            options.encryptionKey = Array(key)
            guard forged else {
                let error = #expect(throws: StorageError.self, "a flipped bit is found by the opening check") {
                    try Environment(path: directory.file, options: options)
                }
                guard case .damaged(let what)? = error else {
                    Issue.record("the opening check should call the file damaged: \(String(describing: error))")
                    return nil
                }
                #expect(what.contains("checksum"), "\(what)")
                return nil
            }
            let checked = try Environment(path: directory.file, options: options)  // the check passes
            var refused = 0
            do {  // the transaction ends before the environment closes
                let read = try ReadTransaction(checked)
                let rows = Table(dbi: try read.openTable(named: table, flags: [])!, flags: [])
                for index in 0..<50 {
                    do {
                        _ = try Array("key\(index)".utf8).withBytes { try read.get(rows, key: $0) }
                    } catch {
                        #expect((error as? LMDBError) == LMDBError.corrupted)
                        refused += 1
                    }
                }
            }
            checked.close()
            return refused
        }

        static let tamperedRows = (0..<50).map { (Array("key\($0)".utf8), Array("the value of row \($0)".utf8)) }

        /// The opening check reads each stored value's checksum, not its seal: a flipped bit is found at
        /// open; bytes changed with the checksum made again (what anyone can do without the key) pass
        /// the check, and the read that opens them refuses them.
        @Test func theOpeningCheckFindsDamageAndEveryReadFindsForgery() throws {
            for forged in [false, true] {
                let directory = Directory()
                try writeThenTamper(directory, rows: Self.tamperedRows) { stored, put in
                    try put(stored[17].key, Self.tampered(stored[17], forged: forged))
                }
                let refused = try refusedReads(directory, table: "backlinks.Note.owner", forged: forged)
                if forged { #expect(refused == 1, "the forged value, and only it, is refused when read") }
            }
        }

        /// A type's rows are kept in sealed blocks: a flipped bit in a block is found by the opening check;
        /// with its checksum made again, the check passes and every read of the block's rows refuses it.
        @Test func theOpeningCheckFindsADamagedBlockAndEveryReadOfItsRowsRefusesAForgery() throws {
            for forged in [false, true] {
                let directory = Directory()
                try writeThenTamper(directory, rows: Self.tamperedRows, table: "type.Note") { stored, put in
                    #expect(stored.count == 1, "50 small rows share one block")
                    try put(stored[0].key, Self.tampered(stored[0], forged: forged))
                }
                let refused = try refusedReads(directory, table: "type.Note", forged: forged)
                if forged { #expect(refused == 50, "every row of the forged block is refused when read") }
            }
        }

        /// A key record of an earlier version (1: values without their checksum; 2: every key sealed by
        /// GCM-SIV; 3: rows one sealed value each; 4: short keys enciphered forwards), made by no
        /// release, is refused at open, not read as damage value by value.
        @Test(arguments: [UInt8(1), 2, 3, 4]) func aKeyRecordOfAnEarlierVersionIsRefused(version: UInt8) throws {
            let directory = Directory()
            try self.environment(directory.file).close()
            let plain = try self.environment(directory.file, sealedBytes: true)
            var raw = try WriteTransaction(plain)
            let meta = Table(
                dbi: try raw.openTable(named: StrataFormat.metaTable, flags: [], create: false)!, flags: [])
            let recordKey = Array(StrataFormat.encryptionKey.utf8)
            var record = try #require(try raw.pairs(meta, after: nil, limit: 100).first { $0.key == recordKey }).value
            #expect(record.first == 5)
            record[0] = version
            _ = try recordKey.withBytes { k in try record.withBytes { v in try raw.put(meta, key: k, value: v) } }
            try raw.commit()
            plain.close()
            #expect(throws: StorageError.encryption(path: directory.file, .wrongKey)) {
                try self.environment(directory.file)
            }
        }

        @Test func aValueMovedToAnotherKeyDamagedOrReadWithAnotherKeyIsRefused() throws {
            let directory = Directory()
            let keys = (0..<3).map { Array("key\($0)".utf8) }
            try writeThenTamper(directory, rows: keys.map { ($0, Array("value of \($0)".utf8)) }) { stored, put in
                // The stored pairs, as they are in the file.
                #expect(stored.count == 3)
                #expect(stored.allSatisfy { pair in !keys.contains(pair.key) })
                // The first pair's value under the second's key, and a bit flipped in the third's.
                try put(stored[1].key, stored[0].value)
                var flipped = stored[2].value
                flipped[flipped.count / 2] ^= 0x10
                try put(stored[2].key, flipped)
            }

            let environment = try self.environment(directory.file)
            var opened = 0
            var refused = 0
            do {
                let read = try ReadTransaction(environment)
                let rows = Table(dbi: try read.openTable(named: "backlinks.Note.owner", flags: [])!, flags: [])
                for key in keys {
                    do {
                        _ = try key.withBytes { try read.get(rows, key: $0) }
                        opened += 1
                    } catch {
                        #expect((error as? LMDBError) == LMDBError.corrupted)
                        refused += 1
                    }
                }
            }
            #expect(opened == 1)
            #expect(refused == 2)
            environment.close()

            // Another key opens nothing: the file's key record refuses it, before any read.
            #expect(throws: StorageError.encryption(path: directory.file, .wrongKey)) {
                try self.environment(directory.file, key: Data(repeating: 1, count: 64))
            }
        }
    }
#endif
