#if Sync
    import Synchronization

    /// The current state of a sync, and the streams of everyone watching it (each gets the newest).
    final class StateBroadcast: Sendable {
        private struct Watchers {
            var state: StoreSync.State
            var continuations: [Int: AsyncStream<StoreSync.State>.Continuation] = [:]
            var nextID = 0
        }

        private let watchers: Mutex<Watchers>

        init(_ state: StoreSync.State) {
            watchers = Mutex(Watchers(state: state))
        }

        var current: StoreSync.State { watchers.withLock { $0.state } }

        func update(_ change: (inout StoreSync.State) -> Void) {
            let (state, continuations) = watchers.withLock {
                (watchers) -> (StoreSync.State?, [AsyncStream<StoreSync.State>.Continuation]) in
                var state = watchers.state
                change(&state)
                guard state != watchers.state else { return (nil, []) }
                watchers.state = state
                return (state, Array(watchers.continuations.values))
            }
            guard let state else { return }
            for continuation in continuations { continuation.yield(state) }
        }

        func subscribe() -> AsyncStream<StoreSync.State> {
            let (stream, continuation) = AsyncStream.makeStream(
                of: StoreSync.State.self, bufferingPolicy: .bufferingNewest(1))
            let id = watchers.withLock { (watchers) -> Int in
                let id = watchers.nextID
                watchers.nextID += 1
                watchers.continuations[id] = continuation
                continuation.yield(watchers.state)
                return id
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.watchers.withLock { $0.continuations.removeValue(forKey: id) }
            }
            return stream
        }
    }
#endif
