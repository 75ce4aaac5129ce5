#if Encryption
    import Foundation

    /// A sealed key as a key table stores it, hashed and ordered as its bytes are (memcmp's order): a
    /// short key's one block as two integers, so that a transaction's thousands of pending keys hash
    /// and sort without comparing arrays byte by byte.
    enum SealedKey: Hashable, Comparable {
        case block(UInt64, UInt64)  // big-endian halves: their order is the bytes'
        case long([UInt8])

        init(_ sealed: Data) {
            if sealed.count == Sealer.shortKeySealedLength {
                self = sealed.withUnsafeBytes {
                    .block(
                        UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)),
                        UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                }
            } else {
                self = .long(Array(sealed))
            }
        }

        func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .block(let high, let low): withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { body($0) }
            case .long(let bytes): bytes.withUnsafeBytes { body($0) }
            }
        }

        static func < (a: SealedKey, b: SealedKey) -> Bool {
            if case .block(let ah, let al) = a, case .block(let bh, let bl) = b { return ah != bh ? ah < bh : al < bl }
            return a.withBytes { x in b.withBytes { SealedOrder.compare(x, $0) < 0 } }
        }
    }
#endif
