/// Stored text back into Strings.
///
/// `String(validating:as:)` walks the bytes through the generic transcoding path (about four times
/// the cost of `String(decoding:as:)` for a short value). ASCII bytes are valid UTF-8 by definition,
/// so for them `String(decoding:as:)` can repair nothing and gives the same String; only text with
/// other bytes takes the validating path.
enum UTF8Text {
    /// The String spelled by `bytes`, or nil when they are not valid UTF-8.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are valid UTF-8 (without building a String for ASCII text).
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if base.load(fromByteOffset: index, as: UInt8.self) & 0x80 != 0 { return false }
            index += 1
        }
        return true
    }
}
