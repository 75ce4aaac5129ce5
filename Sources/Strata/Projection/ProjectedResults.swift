import Dispatch

/// A `Results` seen through a projection type: each element a projection of the object there, as
/// live and lazy as the Results.
///
/// ```swift
/// let views = store.objects(PersonView.self)
/// let adults = ProjectedResults<PersonView>(store.objects(Person.self).where { $0.age >= 18 })
/// ```
public struct ProjectedResults<Element: ProjectionObservable>: RandomAccessCollection, CustomStringConvertible {
    /// The objects projected.
    public let rootResults: Results<Element.Root>

    /// `results`' objects, projected.
    public init(_ results: Results<Element.Root>) {
        rootResults = results
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The Results' count now.
    public var endIndex: Int { rootResults.count }

    /// The projection of the object at `position`.
    ///
    /// - Warning: Traps as `Results`' subscript does (off the Store's thread, out of bounds).
    public subscript(position: Int) -> Element {
        Element(projecting: rootResults[position])
    }

    /// The projections of the objects matching `query` (a query on the root type).
    public func `where`(
        _ query: (Query<Element.Root>) -> Query<Bool>, file: StaticString = #fileID, line: UInt = #line
    ) -> ProjectedResults {
        ProjectedResults(rootResults.where(query, file: file, line: line))
    }

    /// The projections of the objects matching a query of the string language on the root type.
    ///
    /// - Throws: as `Results.where(_:_:)`.
    public func `where`(_ query: String, _ arguments: any Sendable...) throws(StoreError) -> ProjectedResults {
        ProjectedResults(try rootResults.where(query, arguments: arguments))
    }

    /// Sorted by a property of the root type.
    public func sorted<V: _QueryComparable>(by keyPath: KeyPath<Element.Root, V>, ascending: Bool = true)
        -> ProjectedResults
    {
        ProjectedResults(rootResults.sorted(by: keyPath, ascending: ascending))
    }

    /// Sorted by several properties of the root type, the first deciding first.
    public func sorted(by keys: [SortKey<Element.Root>]) -> ProjectedResults {
        ProjectedResults(rootResults.sorted(by: keys))
    }

    /// Whether the Results belongs to a frozen snapshot.
    public var isFrozen: Bool { rootResults.isFrozen }

    /// The projections of a frozen snapshot of the Results.
    ///
    /// - Throws: as `Results.freeze()`.
    public func freeze() throws(StoreError) -> ProjectedResults {
        ProjectedResults(try rootResults.freeze())
    }

    /// The projections of the live Results in this thread's Store.
    ///
    /// - Throws: as `Results.thaw()`.
    public func thaw() throws(StoreError) -> ProjectedResults {
        ProjectedResults(try rootResults.thaw())
    }

    /// Observes the projections: `.initial`, then an `.update` after every write that changes which
    /// objects the Results holds, their order, or a root property the named projected properties
    /// read (all of them when `keyPaths` is nil or empty); delivered as `Results.observe` delivers.
    ///
    /// - Throws: as `Results.observe`; `.invalidArgument` for a name the projection does not have.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (CollectionChange<ProjectedResults>) -> Void
    ) throws(StoreError) -> NotificationToken {
        let paths = try ProjectionSchema.of(Element.self).observed(keyPaths, of: Element.self).paths
        return try rootResults.observe(keyPaths: paths, on: queue) { change in
            switch change {
            case .initial(let results):
                block(.initial(ProjectedResults(results)))
            case .update(let results, let deletions, let insertions, let modifications):
                block(
                    .update(
                        ProjectedResults(results), deletions: deletions, insertions: insertions,
                        modifications: modifications))
            case .error(let error):
                block(.error(error))
            }
        }
    }

    /// `ProjectedResults<PersonView> (2)`.
    public var description: String { "ProjectedResults<\(Element.self)> (\(count))" }
}

extension Store {
    /// Every object of the projection's root type, projected: `store.objects(PersonView.self)`.
    ///
    /// - Warning: Traps as `objects(_:)` does (off the Store's thread, a type not in the schema).
    public func objects<P: ProjectionObservable>(_ type: P.Type) -> ProjectedResults<P> {
        ProjectedResults(objects(P.Root.self))
    }
}
