import Foundation

/// The demo's output: numbered steps, indented lines, and waits that keep the main run loop turning
/// (the reactive layer delivers on the main queue, which nothing drains in a plain executable).
enum Transcript {
    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }

    static func step(_ title: String) {
        print("\n== \(title)")
    }

    static func say(_ line: String) {
        print("   \(line)")
    }

    /// Runs the main run loop until `condition` holds.
    ///
    /// - Throws: `TimedOut` after `timeout` seconds.
    static func wait(for what: String, timeout: TimeInterval = 20, until condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw TimedOut(what: what) }
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
        }
    }

    /// Runs `body` on a thread of its own and waits for it (the main run loop stays still, so what
    /// the thread commits reaches main's observers afterwards, in order).
    static func onAnotherThread<R>(_ what: String, _ body: @escaping @Sendable () -> R) throws -> R {
        let box = ResultBox<R>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = body()
            box.lock.withLock { box.result = result }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + 20) == .success else { throw TimedOut(what: what) }
        return box.lock.withLock { box.result! }
    }
}

/// What a thread hands back: written once by the thread, read under the lock.
final class ResultBox<R>: @unchecked Sendable {
    var result: R?
    let lock = NSLock()
}
