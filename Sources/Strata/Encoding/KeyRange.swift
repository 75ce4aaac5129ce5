/// Inclusive bounds on the encoded keys of a table (nil: unbounded).
struct KeyRange {
    var lower: [UInt8]?
    var upper: [UInt8]?

    func admits(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let upper else { return true }
        return !upper.lexicographicallyPrecedes(key)
    }
}
