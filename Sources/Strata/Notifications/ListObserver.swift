import Dispatch

extension List {
    /// Observes the list: `.initial` first, then an `.update` with the positions removed (old
    /// positions), inserted (new positions) and, for a list of objects, modified (new positions) by
    /// each write that changes it, as Realm's `List.observe`.
    ///
    /// ```swift
    /// let token = try person.dogs.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { … }
    /// }
    /// ```
    /// Positions come from a difference of the old and new elements (a moved element is a deletion
    /// and an insertion). For a list of objects, a change of an object it holds (of any property, or
    /// of those `keyPaths` names) is a modification at each of its positions. `queue` as for
    /// `Map.observe`. When the owner is deleted, the last update removes every element.
    ///
    /// - Throws: `.notManaged` for an unmanaged list, `.wrongThread`, `.invalidated` when its owner is
    ///   deleted, `.invalidArgument` for key paths of a list of values or a name the objects lack, or a
    ///   `queue` already known to be concurrent. Failing to open the Store on `queue` arrives as
    ///   `.error`.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil, _ block: @escaping (CollectionChange<List>) -> Void
    ) throws(StoreError) -> NotificationToken {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try ColumnObserver.register(owner: owner, column: column, keyPaths: keyPaths, on: queue) { owner in
            let list = List(owner: owner, column: column)
            return { event in Self.deliver(event, of: list, to: block) }
        }
    }

    private static func deliver(_ event: ColumnEvent, of list: List, to block: (CollectionChange<List>) -> Void) {
        do throws(RowDamage) {
            switch event {
            case .start: block(.initial(list))
            case .failed(let error): block(.error(error))
            case .deleted(let old):
                block(
                    .update(
                        list, deletions: Array(0..<(try storedElements(old).count)), insertions: [], modifications: []))
            case .change(let old, let new, let linkedModified):
                let before = try storedElements(old)
                let after = try storedElements(new)
                var deletions: [Int] = []
                var insertions: [Int] = []
                for change in after.difference(from: before) {
                    switch change {
                    case .remove(let offset, _, _): deletions.append(offset)
                    case .insert(let offset, _, _): insertions.append(offset)
                    }
                }
                let inserted = Set(insertions)
                let modifications =
                    linkedModified.isEmpty
                    ? []
                    : after.indices.filter { !inserted.contains($0) && after[$0].map(linkedModified.contains) == true }
                guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
                block(
                    .update(
                        list, deletions: deletions.sorted(), insertions: insertions.sorted(),
                        modifications: modifications))
            }
        } catch {
            block(.error(.corrupted("List<\(Element.self)>: \(error)")))
        }
    }

    /// A stored list's elements, copied out (nil: a null element).
    private static func storedElements(_ bytes: [UInt8]) throws(RowDamage) -> [[UInt8]?] {
        try bytes.withBytes { (raw) throws(RowDamage) in try ListFormat.elements(raw).map { $0.map { Array($0) } } }
    }
}
