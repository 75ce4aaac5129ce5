#if Encryption
    import Crypto
    import _CryptoExtras
    import Foundation

    /// Seals and opens what an encrypted file stores (Docs/Encryption.md), with keys derived from the
    /// app's 64-byte key and the file's salt (HKDF-SHA256):
    ///
    /// - a value: AES-256-GCM-SIV under a fresh nonce (`NonceSource`), the associated data binding it to
    ///   its table and to its stored key, so a value moved to another key or table fails to open;
    /// - a key (and a duplicate of an index): sealed alike each time, so LMDB still finds a key by
    ///   equality, and bound to its table. A key of at most 8 bytes (an integer primary key, the most
    ///   common) is one AES-256 block: the key, a pad made from its table's tag, and its length,
    ///   enciphered (encode-then-encipher: a pseudorandom permutation of unique blocks tells only
    ///   equality, and opening checks the pad's 7 to 15 bytes, so a damaged or moved key is refused).
    ///   A longer key is AES-256-GCM-SIV under one fixed nonce per file, its tag bound to the table.
    ///
    /// GCM-SIV is misuse resistant: were a nonce ever repeated, it would tell only that two values are
    /// equal, not their bytes (RFC 8452), which is also all that the deterministic keys tell by design.
    /// A short key costs one AES call (~60 ns) where GCM-SIV costs ~1.2 µs per call (Docs/Encryption.md).
    final class Sealer: Sendable {
        /// The length of the app's key, as Realm's.
        static let keyLength = 64
        /// What sealing adds to a value: its nonce and tag.
        static let valueOverhead = nonceLength + tagLength
        /// What sealing adds to a key longer than `shortKeyLength`: its tag (the nonce is the file's).
        static let keyOverhead = tagLength
        /// The longest key sealed as one block (a pad of at least 7 bytes and its length fill the rest).
        static let shortKeyLength = 8
        /// The stored length of a short key: one AES block, which no longer key's seal has (≥ 25 bytes).
        static let shortKeySealedLength = 16
        static let nonceLength = 12
        static let tagLength = 16
        static let saltLength = 32

        private let valueKey: SymmetricKey
        private let keyKey: SymmetricKey
        private let tableKey: SymmetricKey
        private let shortKeyKey: SymmetricKey
        private let keyNonce: AES.GCM._SIV.Nonce
        private let nonces = NonceSource()

        /// The keys of the file whose salt is `salt`.
        ///
        /// - Throws: `SealFailure` when `key` is not 64 bytes.
        init(key: Data, salt: [UInt8]) throws(SealFailure) {
            guard key.count == Self.keyLength else {
                throw SealFailure("an encryption key has \(Self.keyLength) bytes, not \(key.count)")
            }
            let master = SymmetricKey(data: key)
            func derive(_ purpose: String, bytes: Int = 32) -> SymmetricKey {
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: master, salt: salt, info: Array("strata 1 \(purpose)".utf8),
                    outputByteCount: bytes)
            }
            valueKey = derive("values")
            keyKey = derive("keys")
            tableKey = derive("tables")
            shortKeyKey = derive("short keys")
            keyNonce = derive("key nonce", bytes: Self.nonceLength).withUnsafeBytes {
                try! AES.GCM._SIV.Nonce(data: $0)  // 12 bytes: cannot fail
            }
        }

        /// The 8 bytes that stand for a table in the associated data (a keyed hash of its name, so the
        /// same key in two tables seals differently).
        func tableTag(_ name: String) -> UInt64 {
            let code = HMAC<SHA256>.authenticationCode(for: Array(name.utf8), using: tableKey)
            return code.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }

        // MARK: Values

        /// `value` sealed for `storedKey` (a key as stored: sealed itself, or a counter) in the table
        /// `table`: nonce, ciphertext, tag.
        func sealValue(_ value: UnsafeRawBufferPointer, table: UInt64, storedKey: UnsafeRawBufferPointer) -> Data {
            let nonce = nonces.next()
            return withAssociatedData(table: table, key: storedKey) { data in
                // Sealing fails only on a nonce of the wrong length, which `NonceSource` never makes.
                try! AES.GCM._SIV.seal(value, using: valueKey, nonce: nonce, authenticating: data).combined
            }
        }

        /// The value inside `sealed`, which must have been sealed for `storedKey` in `table`.
        ///
        /// - Throws: `SealFailure` when it was not: another key's value, another key, or a flipped bit.
        func openValue(_ sealed: UnsafeRawBufferPointer, table: UInt64, storedKey: UnsafeRawBufferPointer)
            throws(SealFailure) -> Data
        {
            guard sealed.count >= Self.valueOverhead else {
                throw SealFailure("a sealed value of \(sealed.count) bytes is shorter than its nonce and tag")
            }
            do {
                let box = try AES.GCM._SIV.SealedBox(combined: sealed)
                return try withAssociatedData(table: table, key: storedKey) { data in
                    try AES.GCM._SIV.open(box, using: valueKey, authenticating: data)
                }
            } catch {
                throw SealFailure(
                    "a sealed value does not open with its key and table: damaged, moved, or another key's")
            }
        }

        // MARK: Keys

        /// `key` sealed for `table`: the same bytes each time (so LMDB finds it). One enciphered block
        /// for a short key; ciphertext then tag for a longer one.
        func sealKey(_ key: UnsafeRawBufferPointer, table: UInt64) -> Data {
            if let (high, low) = sealShortKey(key, table: table) {
                return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Data($0) }
            }
            return withAssociatedData(table: table, key: nil) { data in
                let box = try! AES.GCM._SIV.seal(key, using: keyKey, nonce: keyNonce, authenticating: data)
                return box.combined.dropFirst(Self.nonceLength)
            }
        }

        /// A short key's sealed block (`sealKey`'s bytes) as two big-endian halves, made without an
        /// allocation (a bulk insert seals one per row); nil for a key longer than `shortKeyLength`.
        ///
        /// The block is enciphered with AES's inverse permutation (a permutation as good as AES's own
        /// for this, and the one of which one call does many blocks: `sealShortKeys`).
        func sealShortKey(_ key: UnsafeRawBufferPointer, table: UInt64) -> (UInt64, UInt64)? {
            guard key.count <= Self.shortKeyLength else { return nil }
            var block: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &block) { raw in
                Self.encodeShortKey(key, table: table, into: raw)
                var raw = raw  // the same bytes: permuted in place
                try! AES.inversePermute(&raw, key: shortKeyKey)  // a block of 16 bytes: cannot fail
            }
            return (UInt64(bigEndian: block.0), UInt64(bigEndian: block.1))
        }

        /// Many short keys sealed at once, as `sealShortKey` seals each (a bulk insert's keys at
        /// commit): one AES-CBC decryption of their blocks with a zero IV, whose output block i is the
        /// inverse permutation of block i XORed with block i - 1, which is then taken off. One key
        /// schedule and one pass for all, where `AES.permute` makes a key schedule per call.
        ///
        /// `keys` holds each key's bytes left-aligned in an integer (memory order) and its length.
        func sealShortKeys(_ keys: [(bytes: UInt64, length: UInt8)], table: UInt64) -> [(UInt64, UInt64)] {
            guard !keys.isEmpty else { return [] }
            let length = Self.shortKeySealedLength
            var blocks = Data(count: keys.count * length)
            blocks.withUnsafeMutableBytes { raw in
                for (index, key) in keys.enumerated() {
                    withUnsafeBytes(of: key.bytes) { bytes in
                        Self.encodeShortKey(
                            UnsafeRawBufferPointer(rebasing: bytes[0..<Int(key.length)]), table: table,
                            into: UnsafeMutableRawBufferPointer(
                                rebasing: raw[(index * length)..<((index + 1) * length)]))
                    }
                }
            }
            let zero = try! AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: length))  // 16 bytes: cannot fail
            let output = try! AES._CBC.decrypt(blocks, using: shortKeyKey, iv: zero, noPadding: true)
            return output.withUnsafeBytes { out in
                blocks.withUnsafeBytes { input in
                    (0..<keys.count).map { index in
                        let start = index * length
                        var high = out.loadUnaligned(fromByteOffset: start, as: UInt64.self)
                        var low = out.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)
                        if index > 0 {  // CBC XORs the previous input block in
                            high ^= input.loadUnaligned(fromByteOffset: start - length, as: UInt64.self)
                            low ^= input.loadUnaligned(fromByteOffset: start - length + 8, as: UInt64.self)
                        }
                        return (UInt64(bigEndian: high), UInt64(bigEndian: low))
                    }
                }
            }
        }

        /// The key inside `sealed` (`sealKey`'s bytes) of `table`.
        ///
        /// - Throws: `SealFailure` when it does not open.
        func openKey(_ sealed: UnsafeRawBufferPointer, table: UInt64) throws(SealFailure) -> Data {
            if sealed.count == Self.shortKeySealedLength { return try openShortKey(sealed, table: table) }
            guard sealed.count > Self.shortKeyLength + Self.keyOverhead else {
                throw SealFailure("a sealed key of \(sealed.count) bytes is neither one block nor a longer key's")
            }
            do {
                let box = try AES.GCM._SIV.SealedBox(
                    nonce: keyNonce, ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
                return try withAssociatedData(table: table, key: nil) { data in
                    try AES.GCM._SIV.open(box, using: keyKey, authenticating: data)
                }
            } catch {
                throw SealFailure("a sealed key does not open: damaged, or of another table or file")
            }
        }

        private func openShortKey(_ sealed: UnsafeRawBufferPointer, table: UInt64) throws(SealFailure) -> Data {
            try withUnsafeTemporaryAllocation(byteCount: Self.shortKeySealedLength, alignment: 16) {
                (block) throws(SealFailure) -> Data in
                block.copyMemory(from: sealed)
                var block = block  // the same bytes: permuted in place
                try! AES.permute(&block, key: shortKeyKey)  // 16 bytes: cannot fail
                let length = Int(block[Self.shortKeySealedLength - 1])
                guard length <= Self.shortKeyLength else {
                    throw SealFailure("a sealed key does not open: damaged, or of another table or file")
                }
                return try withUnsafeTemporaryAllocation(byteCount: Self.shortKeySealedLength, alignment: 16) {
                    (expected) throws(SealFailure) -> Data in
                    Self.encodeShortKey(
                        UnsafeRawBufferPointer(rebasing: block[0..<length]), table: table, into: expected)
                    guard expected.elementsEqual(block) else {
                        throw SealFailure("a sealed key does not open: damaged, or of another table or file")
                    }
                    return Data(block[0..<length])
                }
            }
        }

        /// A short key's block before it is enciphered: the key, then its table's pad (the tag, then its
        /// complement, as far as room is left), then the key's length.
        private static func encodeShortKey(
            _ key: UnsafeRawBufferPointer, table: UInt64, into block: UnsafeMutableRawBufferPointer
        ) {
            block.copyMemory(from: key)
            withUnsafeBytes(of: (table.littleEndian, (~table).littleEndian)) { pad in
                for index in key.count..<(shortKeySealedLength - 1) { block[index] = pad[index - key.count] }
            }
            block[shortKeySealedLength - 1] = UInt8(key.count)
        }

        private func withAssociatedData<R>(
            table: UInt64, key: UnsafeRawBufferPointer?, _ body: (UnsafeRawBufferPointer) throws -> R
        ) rethrows -> R {
            var data = [UInt8]()
            data.reserveCapacity(8 + (key?.count ?? 0))
            withUnsafeBytes(of: table.littleEndian) { data.append(contentsOf: $0) }
            if let key { data.append(contentsOf: key) }
            return try data.withUnsafeBytes(body)
        }
    }

    /// Nonces that never repeat under one key: 8 random bytes drawn when the source is made (each
    /// process, each opening of a file) followed by a 4-byte counter; a new random prefix is drawn
    /// before the counter wraps. Nothing is kept in the file, so neither a crash nor a rolled-back
    /// transaction can hand out a nonce again; two sources share a prefix with a probability of
    /// n²/2⁶⁵ for n openings (and GCM-SIV limits even that case to telling two equal values apart).
    final class NonceSource: Sendable {
        private let lock = NSLock()
        nonisolated(unsafe) private var prefix = UInt64.random(in: .min ... .max)  // under lock
        nonisolated(unsafe) private var counter: UInt32 = 0  // under lock

        func next() -> AES.GCM._SIV.Nonce {
            lock.lock()
            if counter == .max {
                prefix = UInt64.random(in: .min ... .max)
                counter = 0
            }
            counter += 1
            var bytes = (prefix.littleEndian, counter.littleEndian)
            lock.unlock()
            return withUnsafeBytes(of: &bytes) { raw in
                try! AES.GCM._SIV.Nonce(data: UnsafeRawBufferPointer(rebasing: raw[0..<Sealer.nonceLength]))
            }
        }
    }

    /// Why a sealed key or value did not open (damaged, moved, another file's or key's), or why a key
    /// cannot seal. The layers above say which table and object.
    struct SealFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
#endif
