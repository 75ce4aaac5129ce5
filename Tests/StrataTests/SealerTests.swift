#if Encryption
    import Foundation
    import Testing

    @testable import Strata
    import StrataTestSupport

    /// The sealing of an encrypted file's keys and values (Sealer), against what it must refuse.
    @Suite struct SealerTests {
        let key = Data((0..<64).map { UInt8($0) })
        let salt = [UInt8](repeating: 7, count: Sealer.saltLength)

        @Test func aValueOpensOnlyWithItsTableKeyAndFileKey() throws {
            let sealer = try Sealer(key: key, salt: salt)
            let other = try Sealer(key: Data(key.reversed()), salt: salt)
            let otherSalt = try Sealer(key: key, salt: [UInt8](repeating: 8, count: Sealer.saltLength))
            let people = sealer.tableTag("type.Person")
            let dogs = sealer.tableTag("type.Dog")
            #expect(people != dogs)
            let value = Array("a marker the app stored".utf8)
            let storedKey: [UInt8] = [1, 2, 3]
            let sealed = value.withUnsafeBytes { v in
                storedKey.withUnsafeBytes { sealer.sealValue(v, table: people, storedKey: $0) }
            }
            #expect(sealed.count == value.count + Sealer.valueOverhead)
            #expect(sealed.firstRange(of: Data(value)) == nil)
            func opens(_ sealer: Sealer, _ sealed: Data, table: UInt64, key: [UInt8]) -> [UInt8]? {
                sealed.withUnsafeBytes { s in
                    key.withUnsafeBytes { k in (try? sealer.openValue(s, table: table, storedKey: k)).map(Array.init) }
                }
            }
            #expect(opens(sealer, sealed, table: people, key: storedKey) == value)
            #expect(opens(sealer, sealed, table: dogs, key: storedKey) == nil)  // moved to another table
            #expect(opens(sealer, sealed, table: people, key: [1, 2, 4]) == nil)  // moved to another key
            #expect(opens(other, sealed, table: people, key: storedKey) == nil)  // another app key
            #expect(opens(otherSalt, sealed, table: people, key: storedKey) == nil)  // another file
            for bit in 0..<(sealed.count * 8) {  // every flipped bit is refused
                var flipped = sealed
                flipped[bit / 8] ^= UInt8(1 << (bit % 8))
                #expect(opens(sealer, flipped, table: people, key: storedKey) == nil)
            }
            #expect(opens(sealer, sealed.prefix(Sealer.valueOverhead - 1), table: people, key: storedKey) == nil)
        }

        @Test func valuesSealDifferentlyEachTimeAndKeysAlike() throws {
            let sealer = try Sealer(key: key, salt: salt)
            let table = sealer.tableTag("type.Person")
            let value: [UInt8] = Array("same".utf8)
            let seals = (0..<1000).map { _ in
                value.withUnsafeBytes { v in
                    [UInt8]().withUnsafeBytes { sealer.sealValue(v, table: table, storedKey: $0) }
                }
            }
            #expect(Set(seals.map { $0.prefix(Sealer.nonceLength) }).count == 1000)  // no nonce twice
            #expect(Set(seals).count == 1000)
            let sealedKeys = (0..<3).map { _ in value.withUnsafeBytes { sealer.sealKey($0, table: table) } }
            #expect(Set(sealedKeys).count == 1)
            #expect(sealedKeys[0].count == Sealer.shortKeySealedLength)
            let otherTable = value.withUnsafeBytes { sealer.sealKey($0, table: sealer.tableTag("type.Dog")) }
            #expect(otherTable != sealedKeys[0])
            let opened = try sealedKeys[0].withUnsafeBytes { try sealer.openKey($0, table: table) }
            #expect(Array(opened) == value)
            #expect((try? sealedKeys[0].withUnsafeBytes { try sealer.openKey($0, table: sealer.tableTag("x")) }) == nil)
        }

        @Test func seededKeysAndValuesRoundTrip() throws {
            var random = SplitMix64(state: 54)
            let sealer = try Sealer(key: key, salt: salt)
            for round in 0..<300 {
                let table = sealer.tableTag("t\(round % 7)")
                let plainKey = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let value = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let sealedKey = plainKey.withUnsafeBytes { sealer.sealKey($0, table: table) }
                let sealed = value.withUnsafeBytes { v in
                    sealedKey.withUnsafeBytes { sealer.sealValue(v, table: table, storedKey: $0) }
                }
                #expect(try Array(sealedKey.withUnsafeBytes { try sealer.openKey($0, table: table) }) == plainKey)
                #expect(
                    try Array(
                        sealed.withUnsafeBytes { s in
                            try sealedKey.withUnsafeBytes { try sealer.openValue(s, table: table, storedKey: $0) }
                        }) == value)
            }
        }

        /// Keys of at most 8 bytes (an integer primary key) are one enciphered block: the key, the
        /// table's pad and the length. A flipped bit, another table's or another file's key is refused.
        /// Many short keys sealed in one call (a bulk insert's, at commit) seal as each alone does, and
        /// open; in any number, of every length, equal keys included.
        @Test func shortKeysSealedTogetherSealAsEachAlone() throws {
            let sealer = try Sealer(key: key, salt: salt)
            let table = sealer.tableTag("type.Person")
            var random = SplitMix64(state: 21)
            for count in [1, 2, 3, 17, 1_000] {
                var keys: [(bytes: UInt64, length: UInt8)] = []
                for index in 0..<count {
                    // Some equal neighbours: a block the CBC chain meets twice in a row.
                    if index % 7 == 3, let previous = keys.last {
                        keys.append(previous)
                        continue
                    }
                    let length = UInt8(random.next() % UInt64(Sealer.shortKeyLength + 1))
                    let mask: UInt64 = length == 8 ? .max : (1 << (8 * UInt64(length))) - 1
                    keys.append((random.next() & mask, length))
                }
                let together = sealer.sealShortKeys(keys, table: table)
                #expect(together.count == count)
                for (key, sealed) in zip(keys, together) {
                    let alone = withUnsafeBytes(of: key.bytes) {
                        sealer.sealShortKey(UnsafeRawBufferPointer(rebasing: $0[0..<Int(key.length)]), table: table)
                    }
                    #expect(alone.map { [$0.0, $0.1] } == [sealed.0, sealed.1])
                    let stored = withUnsafeBytes(of: (sealed.0.bigEndian, sealed.1.bigEndian)) { Data($0) }
                    let opened = stored.withUnsafeBytes { try? sealer.openKey($0, table: table) }
                    let plain = withUnsafeBytes(of: key.bytes) { Data($0.prefix(Int(key.length))) }
                    #expect(opened == plain)
                }
            }
        }

        @Test func shortKeysAreOneBlockThatOnlyTheirTableOpens() throws {
            let sealer = try Sealer(key: key, salt: salt)
            let otherFile = try Sealer(key: key, salt: [UInt8](repeating: 8, count: Sealer.saltLength))
            let people = sealer.tableTag("type.Person")
            let dogs = sealer.tableTag("type.Dog")
            func opens(_ sealer: Sealer, _ sealed: Data, _ table: UInt64) -> [UInt8]? {
                sealed.withUnsafeBytes { (try? sealer.openKey($0, table: table)).map(Array.init) }
            }
            var random = SplitMix64(state: 8)
            var seen = Set<Data>()
            var plains = Set<[UInt8]>()
            for length in 0...Sealer.shortKeyLength {
                for _ in 0..<20 {
                    let plain = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    let sealed = plain.withUnsafeBytes { sealer.sealKey($0, table: people) }
                    #expect(sealed.count == Sealer.shortKeySealedLength)
                    #expect(plain.withUnsafeBytes { sealer.sealKey($0, table: people) } == sealed)
                    if length >= 4 { #expect(sealed.firstRange(of: Data(plain)) == nil) }
                    #expect(opens(sealer, sealed, people) == plain)
                    #expect(opens(sealer, sealed, dogs) == nil)
                    #expect(opens(otherFile, sealed, people) == nil)
                    #expect(plain.withUnsafeBytes { sealer.sealKey($0, table: dogs) } != sealed)
                    for bit in 0..<(sealed.count * 8) {
                        var flipped = sealed
                        flipped[bit / 8] ^= UInt8(1 << (bit % 8))
                        #expect(opens(sealer, flipped, people) == nil)
                    }
                    seen.insert(sealed)
                    plains.insert(plain)
                }
            }
            #expect(seen.count == plains.count)  // distinct keys seal apart, equal ones alike
            // A longer key is sealed by GCM-SIV, at a length no short key has.
            let long = [UInt8](repeating: 9, count: Sealer.shortKeyLength + 1)
            let sealedLong = long.withUnsafeBytes { sealer.sealKey($0, table: people) }
            #expect(sealedLong.count == long.count + Sealer.keyOverhead)
            #expect(opens(sealer, sealedLong, people) == long)
            // A stored key cut short or grown is neither: refused, whatever its length.
            let short = try #require(seen.first)
            for length in 0..<(sealedLong.count + 8) where length != short.count && length != sealedLong.count {
                let bytes = Data((short + sealedLong + short).prefix(length))
                #expect(opens(sealer, bytes, people) == nil, "a stored key of \(length) bytes")
            }
        }

        @Test func aKeyOfAnotherLengthIsRefused() {
            for length in [0, 32, 63, 65] {
                #expect(throws: SealFailure.self) { try Sealer(key: Data(count: length), salt: salt) }
            }
        }
    }
#endif
