/// Waking on commits: a commit (this Store's or another's) reaches the Store on its queue.
extension StoreCore {
    /// A commit landed (this Store's or another's): on the Store's queue, move to it (`autorefresh`)
    /// and tell the observers. Inside a write nothing happens; the write's commit wakes again.
    func deliverChanges() {
        guard isConfined, session == nil else { return }
        // refresh delivers; when it fails (the snapshot cannot move), the observers still get what the Store shows.
        if autorefresh, (try? refresh()) != nil { return }
        observers.deliver()
        if !autorefresh { observers.newerVersionLanded() }
    }
}
