import Foundation

/// A value guarded by a lock: `Mutex`'s `withLock`, over `NSLock`.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with futex system calls that ThreadSanitizer
/// cannot see, so every access it guards is reported as a race, and the concurrency tests must run
/// under ThreadSanitizer with zero reports. `NSLock` is a pthread mutex, which it understands.
final class Locked<State> {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// Shared between threads only when what it guards may be (as NIO's `NIOLockedValueBox`): `state` is
/// only touched under `lock`.
extension Locked: @unchecked Sendable where State: Sendable {}
