/// Keeps an observation alive: notifications stop when it is invalidated or deinitialised.
public final class NotificationToken: Sendable {
    let state: ObserverState

    init(state: ObserverState) {
        self.state = state
    }

    /// Stops the notifications (from any thread; a delivery under way on the Store's queue finishes).
    public func invalidate() {
        state.invalidate()
    }

    deinit {
        state.invalidate()
    }
}
