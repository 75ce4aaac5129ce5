extension Store {
    /// Commits the open write transaction without telling the observers of `tokens` (of this Store)
    /// about it: their next change starts after this write (for a change the UI made itself). If it
    /// fails, nothing of it is stored.
    ///
    /// ```swift
    /// store.beginWrite()
    /// list.append(item)                       // the table view shows it already
    /// try store.commitWrite(withoutNotifying: [token])
    /// ```
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.mapFull`, `.storage` (e.g. `ENOSPC`),
    ///   `.invalidArgument` for a token of another Store.
    @available(*, noasync, message: "a write transaction must not span an await")
    public func commitWrite(withoutNotifying tokens: [NotificationToken]) throws(StoreError) {
        try core.commitWrite(withoutNotifying: tokens.map(\.state))
    }
}
