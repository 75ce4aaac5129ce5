/// Calls its closure after each commit this process makes to a file, by any Store of it (on the
/// committing thread, after the commit is durable as its durability says), until cancelled.
/// Commits of other processes are not seen: they show in `Store.latestCommitVersion()`.
/// For StrataSync, which counts and pushes what each commit captured.
@_spi(StrataSync)
public final class CommitWatch: Sendable {
    private let hub: ChangeHub
    private let onCommit: @Sendable () -> Void

    init(hub: ChangeHub, onCommit: @escaping @Sendable () -> Void) {
        self.hub = hub
        self.onCommit = onCommit
    }

    func committed() { onCommit() }

    /// Stops the calls (a call under way may still finish). The file's Stores keep the watch until then.
    public func cancel() { hub.unregister(self) }
}
