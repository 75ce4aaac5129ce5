import Dispatch

extension SectionedResults {
    /// Observes the sections: `.initial`, then per change the sections inserted and deleted and the
    /// objects deleted (old index paths), inserted and modified (new index paths) in the sections
    /// that stayed, as Realm's `SectionedResults.observe`. Options and delivery as `Results.observe`.
    ///
    /// - Throws: as `Results.observe`.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [PartialKeyPath<Element>] = [], on queue: DispatchQueue? = nil,
        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void
    ) throws(StoreError) -> NotificationToken {
        var previous: [(key: Key, positions: [Int])] = []
        return try results.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let results):
                let sections = over(results)
                previous = sections.layout()
                block(.initial(sections))
            case .update(let results, let deletions, let insertions, let modifications):
                let sections = over(results)
                let current = sections.layout()
                block(
                    Self.change(
                        from: previous, to: current, sections: sections, deletions: deletions, insertions: insertions,
                        modifications: modifications))
                previous = current
            case .error(let error):
                block(.error(error))
            }
        }
    }
}
