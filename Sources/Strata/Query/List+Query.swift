extension List where Element: Object {
    /// The list's objects that satisfy a type-safe query, in the list's order: a live `Results`
    /// (Realm's `List.where`), evaluated by the query engine like any Results.
    ///
    /// ```swift
    /// let puppies = person.dogs.where { $0.age < 2 }
    /// let byName = person.dogs.sorted(by: \.name)
    /// ```
    /// - Warning: The list must be managed (an unmanaged list has no Store to query: use `filter`);
    ///   an unmanaged one traps. Confined to the Store's thread.
    public func `where`(
        _ query: (Query<Element>) -> Query<Bool>, file: StaticString = #fileID, line: UInt = #line
    ) -> Results<Element> {
        members().where(query, file: file, line: line)
    }

    /// The objects that satisfy a query of the string language (`Results.where(_:_:)`), in the list's order.
    ///
    /// - Throws: `.invalidArgument` as `Results.where(_:_:)`.
    public func `where`(_ query: String, _ arguments: any Sendable...) throws(StoreError) -> Results<Element> {
        try members().where(query, arguments: arguments)
    }

    /// `where(_:_:)` with objects among the arguments (`Results.where(_:_:)` with `Any` arguments).
    ///
    /// - Throws: `.invalidArgument` as `Results.where(_:_:)`.
    public func `where`(_ query: String, _ arguments: Any...) throws(StoreError) -> Results<Element> {
        try members().where(query, arguments: arguments)
    }

    /// The list's objects sorted by one property, as a live `Results`.
    public func sorted<V: _QueryComparable>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element>
    {
        members().sorted(by: keyPath, ascending: ascending)
    }

    /// The list's objects sorted by several keys, as a live `Results`.
    public func sorted(by keys: [SortKey<Element>]) -> Results<Element> {
        members().sorted(by: keys)
    }

    /// The list's objects, in its order, as a live Results (an element the list holds twice appears twice).
    private func members() -> Results<Element> {
        guard case .managed(let owner, let column) = backing, let core = owner._core,
            let binding = try? core.binding(for: Element.self)
        else {
            preconditionFailure(
                "Strata: where/sorted on an unmanaged List: it has no Store to query (filter { } and sorted(by:) of Swift work)"
            )
        }
        return Results(core: core, binding: binding, stages: [.members(owner: owner, column: column)])
    }
}
