import Observation

/// A Results of an observable type is observable: `withObservationTracking { notes.count }` calls its
/// `onChange` after a commit (of any thread, actor or process, once the Store shows it) changes the
/// count; reading its objects tracks which objects it holds and their order.
extension Results: Observable where Element: Observable {}

extension Results {
    /// The count was read (it was `value`): tracked when the element type is observable.
    @inline(__always)
    func observeCount(_ value: Int) {
        if _slowPath(binding.observation != nil) {
            observation().map { $0.readCount(value, ahead: core.commitObservation.showsUndelivered) }
        }
    }

    /// The objects were read (`.elements`), or values aggregated over them (`.contents`).
    @inline(__always)
    func observeElements(_ aspect: ResultsObservation.Aspects = .elements) {
        if _slowPath(binding.observation != nil) {
            observation().map {
                $0.readElements(
                    aspect, keys: stages.isEmpty ? nil : keys(), ahead: core.commitObservation.showsUndelivered)
            }
        }
    }

    /// The Results' observation, made and watched by the Store at the first read (none for frozen
    /// Results: they never change). A whole table's is the Store's own, shared by all of its Results.
    private func observation() -> ResultsObservation? {
        guard !core.isFrozen else { return nil }
        if let observation = cache.observation { return observation }
        let observation: ResultsObservation
        if stages.isEmpty {
            let binding = binding
            let made = core.commitObservation.tableObservation(binding.name) { [unowned core] in
                // The core owns the observation and is the only one to call it: `unowned` keeps no cycle.
                ResultsObservation(
                    table: binding.name,
                    count: { () throws(StoreError) in
                        try StoreError.mapping { () throws(LMDBError) in try core.count(binding.table) }
                    },
                    keys: nil)
            }
            guard let made else { return nil }
            observation = made
        } else {
            // The watch evaluates a Results of its own: holding this one's state would keep it alive.
            let evaluated = Results(core: core, binding: binding, stages: stages)
            observation = ResultsObservation(
                table: binding.name, count: { () throws(StoreError) in try evaluated.currentCount() },
                keys: { () throws(StoreError) in try evaluated.currentKeys() })
            guard core.commitObservation.watch(observation) else { return nil }
        }
        cache.observation = observation
        return observation
    }
}
