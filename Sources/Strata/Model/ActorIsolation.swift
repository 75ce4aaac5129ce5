import Foundation

/// Identifies the actor a Store is isolated to (`Store(configuration:actor:)`): its executor, which
/// runs the actor's code on whatever thread of the pool a job lands on.
@usableFromInline
final class ActorToken: Sendable {
    let executor: UnownedSerialExecutor
    /// The main actor also owns the main thread outside any task (a `DispatchQueue.main` block).
    let isMainActor: Bool

    init(executor: UnownedSerialExecutor, isMainActor: Bool) {
        self.executor = executor
        self.isMainActor = isMainActor
    }

    /// Whether the calling code runs on the actor.
    @usableFromInline
    var isCurrent: Bool {
        (isMainActor && Thread.isMainThread) || ExecutorQuestion.isCurrent(executor)
    }
}

/// Asks the Swift runtime "does the calling code run on this executor?" in a way that answers no
/// instead of trapping, through public language features only.
///
/// `Actor.preconditionIsolated` and `assumeIsolated` trap when the answer is no, and Swift 6.3 has
/// no public question that returns it. A dynamic cast to a protocol whose conformance is isolated to
/// a global actor (SE-0470) succeeds only on that global actor's executor, and the runtime reads
/// the executor from the global actor's `sharedUnownedExecutor` at each cast. `AskedExecutor` is a
/// global actor whose executor is the one being asked about, set for the calling thread during the
/// cast. The bend: a global actor's executor is meant to be constant; this one's varies per thread
/// and per question, and nothing is ever isolated to it (no code of it runs; only casts ask it).
/// `ActorIsolationTests` fails the day a toolchain stops answering so.
enum ExecutorQuestion {
    /// Whether the calling code runs on `executor`.
    static func isCurrent(_ executor: UnownedSerialExecutor) -> Bool {
        let slot = AskedExecutor.slot()
        slot.executor = executor
        defer { slot.executor = nil }
        return conformsHere(IsolationWitness())
    }

    /// The cast, out of line so that the optimizer cannot answer it from the static types.
    @inline(never)
    private static func conformsHere(_ value: Any) -> Bool {
        value is any WitnessedOnAskedExecutor
    }
}

private protocol WitnessedOnAskedExecutor {}

private struct IsolationWitness {}

extension IsolationWitness: @AskedExecutor WitnessedOnAskedExecutor {}

/// The global actor of `ExecutorQuestion`: its executor is the one asked about on this thread.
@globalActor
enum AskedExecutor: GlobalActor {
    /// What the actor is when no question is being asked (required by `GlobalActor`; never used).
    actor Idle {}

    static let shared = Idle()

    static var sharedUnownedExecutor: UnownedSerialExecutor {
        slot().executor ?? shared.unownedExecutor
    }

    /// The executor being asked about on one thread.
    final class Slot {
        var executor: UnownedSerialExecutor?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { slot in
            #if canImport(Darwin)
                Unmanaged<Slot>.fromOpaque(slot).release()
            #else
                slot.map { Unmanaged<Slot>.fromOpaque($0).release() }
            #endif
        }
        precondition(created == 0, "pthread_key_create failed: \(created)")
        return key
    }()

    /// This thread's slot, made the first time.
    static func slot() -> Slot {
        if let existing = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(existing).takeUnretainedValue() }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }
}
