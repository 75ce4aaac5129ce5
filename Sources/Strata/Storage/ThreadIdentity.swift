#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The identity of an OS thread, comparable across threads (a `pthread_t`, made `Hashable`).
@usableFromInline
struct ThreadIdentity: Hashable, Sendable {
    @usableFromInline let raw: UInt

    @inlinable
    static var current: ThreadIdentity {
        #if canImport(Darwin)
            ThreadIdentity(raw: UInt(bitPattern: pthread_self()))
        #else
            ThreadIdentity(raw: UInt(pthread_self()))
        #endif
    }

    @usableFromInline
    init(raw: UInt) { self.raw = raw }
}
