/// The 64-bit FNV-1a hash of bytes: stable across processes (unlike `Hasher`) and cheap on short
/// values. For stable file names and for grouping short column values, never for security.
enum FNV1a {
    @inline(__always)
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
