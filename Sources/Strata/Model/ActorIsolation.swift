import Foundation

/// Identifies the actor a Store is isolated to (`Store(configuration:actor:)`): its executor, which
/// runs the actor's code on whatever thread of the pool a job lands on.
@usableFromInline
final class ActorToken: Sendable {
    /// The first word of the actor's `UnownedSerialExecutor`: the executor object's identity.
    let executorIdentity: UInt
    /// The main actor also owns the main thread outside any task (a `DispatchQueue.main` block).
    let isMainActor: Bool

    init(executor: UnownedSerialExecutor, isMainActor: Bool) {
        executorIdentity = CurrentExecutor.identity(of: executor)
        self.isMainActor = isMainActor
    }

    /// Whether the calling code runs on the actor: its executor is the current one.
    @usableFromInline
    var isCurrent: Bool {
        let current = CurrentExecutor.identity()
        if current == executorIdentity { return true }
        return isMainActor && current == 0 && Thread.isMainThread
    }
}

/// The executor the calling code runs on, asked of the Swift runtime in a way that answers instead
/// of trapping: `swift_task_getCurrentExecutor` returns it (0 outside any actor, the generic one),
/// where `swift_task_isCurrentExecutor` and `assumeIsolated` stop the process with "Incorrect actor
/// executor assumption" when the answer is no.
enum CurrentExecutor {
    private typealias Get = @convention(thin) () -> UnownedSerialExecutor

    /// The runtime's entry point, found once; nil if this runtime lacks it (Stores isolated to an
    /// actor then cannot be opened: `Store(configuration:actor:)` throws).
    private static let entryPoint: Get? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_task_getCurrentExecutor") else {
            return nil
        }
        return unsafeBitCast(symbol, to: Get.self)
    }()

    static var isAvailable: Bool { entryPoint != nil }

    /// The identity of the current executor (0: none, the generic one).
    static func identity() -> UInt {
        guard let entryPoint else { return 0 }
        return identity(of: entryPoint())
    }

    static func identity(of executor: UnownedSerialExecutor) -> UInt {
        withUnsafeBytes(of: executor) { $0.load(as: UInt.self) }
    }
}
