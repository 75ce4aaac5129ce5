#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// `withUnsafeBytes` of the standard library is `rethrows`, which erases a typed error to `any Error`.
// These keep the closure's error type.

extension Array where Element == UInt8 {
    @inlinable
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        return try result.get()
    }
}

extension Array where Element == Float {
    /// The floats' bytes (a vector being compared), keeping the closure's error type.
    @inlinable
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        return try result.get()
    }
}

@inlinable
func withBytes<T, R, E: Error>(of value: T, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
    var value = value
    let result: Result<R, E> = Swift.withUnsafeBytes(of: &value) { raw in
        Result { () throws(E) -> R in try body(raw) }
    }
    return try result.get()
}

extension UnsafeRawBufferPointer {
    /// Whether `other` holds the same bytes (one `memcmp`, not a loop over elements).
    @inlinable
    func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}
