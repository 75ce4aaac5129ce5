import Observation

/// A Results of an observable type is observable: `withObservationTracking { notes.count }` calls its
/// `onChange` after a commit (of any thread, actor or process, once the Store shows it) changes the
/// count; reading its objects tracks which objects it holds and their order.
extension Results: Observable where Element: Observable {}

extension Results {
    /// The count was read (it was `value`): tracked when the element type is observable.
    @inline(__always)
    func observeCount(_ value: Int) {
        if _slowPath(binding.observation != nil) { observation()?.readCount(value) }
    }

    /// The objects were read (`.elements`), or values aggregated over them (`.contents`).
    @inline(__always)
    func observeElements(_ aspect: ResultsObservation.Aspects = .elements) {
        if _slowPath(binding.observation != nil) {
            observation()?.readElements(aspect, keys: stages.isEmpty ? nil : keys())
        }
    }

    /// The Results' observation, made and watched by the Store at the first read (none for frozen
    /// Results: they never change).
    private func observation() -> ResultsObservation? {
        guard !core.isFrozen else { return nil }
        if let observation = cache.observation { return observation }
        // The watch evaluates a Results of its own: holding this one's state would keep it alive.
        let evaluated = Results(core: core, binding: binding, stages: stages)
        let observation = ResultsObservation(
            table: binding.name, isWholeTable: stages.isEmpty,
            count: { () throws(StoreError) in try evaluated.currentCount() },
            keys: { () throws(StoreError) in try evaluated.currentKeys() })
        guard core.commitObservation.watch(observation) else { return nil }
        cache.observation = observation
        return observation
    }
}
