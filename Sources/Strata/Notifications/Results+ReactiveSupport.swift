extension Results {
    /// `observe(keyPaths:_:)` whose `.initial` is delivered before this returns, so that no commit
    /// can fall between the value a caller has and the first update.
    ///
    /// - Throws: `.wrongThread`, `.invalidArgument` for a frozen Results, `.corrupted`, `.storage`.
    @_spi(StrataReactive)
    public func _observeStartingNow(
        keyPaths: [PartialKeyPath<Element>] = [], _ block: @escaping (CollectionChange<Results<Element>>) -> Void
    ) throws(StoreError) -> NotificationToken {
        try core.checkConfined()
        _ = try core.observers.foreignDeliveryQueue(nil)  // refuses a frozen Results
        let observed = try ObservedPaths(
            ObservationSpec(keyPaths: keyPaths, schema: binding.schema), root: binding, in: core)
        let state = ObserverState(core: core, everyCommit: false)
        let observer = ResultsObserver(results: self, observed: observed, state: state) { change, _ in block(change) }
        try core.observers.add(observer, startNow: true)
        return NotificationToken(state: state)
    }
}
