import Dispatch

/// A List's or MutableSet's objects seen through one of their properties: what
/// `@Projected(\Person.dogs.projectTo.name)` reads, live (each read reads the collection).
///
/// ```swift
/// @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
/// ```
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible {
    private let base: AnyObject
    private let countOfBase: () -> Int
    private let elementAt: (Int) -> Element
    /// The element key path's property path, dotted (for notifications).
    private let resolveElementPath: () throws(StoreError) -> String?
    /// Observes the List or MutableSet for the elements' projected property.
    private let observeBase:
        (DispatchQueue?, @escaping (CollectionChange<ProjectedCollection>) -> Void) throws(StoreError) ->
            NotificationToken

    init<Target: Object, Base: RandomAccessCollection & AnyObject>(
        _ collection: Base, keyPath: KeyPath<Target, Element>
    ) where Base.Element == Target, Base.Index == Int {
        base = collection
        countOfBase = { collection.count }
        elementAt = { collection[$0][keyPath: keyPath] }
        let resolve = { () throws(StoreError) -> String? in
            guard let path = KeyPathResolver.pathRead(keyPath, in: try ObjectSchema.of(Target.self))?.path else {
                return nil
            }
            return path.steps.map { $0.schema.properties[$0.property].name }.joined(separator: ".")
        }
        resolveElementPath = resolve
        observeBase = { (queue, block) throws(StoreError) -> NotificationToken in
            guard let path = try resolve() else {
                throw .invalidArgument("\(keyPath) reads no stored property of \(Target.self): nothing to observe")
            }
            if let list = collection as? List<Target> {
                return try list.observe(keyPaths: [path], on: queue) { change in
                    block(Self.mapped(change) { ProjectedCollection($0, keyPath: keyPath) })
                }
            }
            return try (collection as! MutableSet<Target>).observe(keyPaths: [path], on: queue) { change in
                block(Self.mapped(change) { ProjectedCollection($0, keyPath: keyPath) })
            }
        }
    }

    /// Observes the collection as its List's or MutableSet's `observe` does: `.initial`, then an
    /// `.update` for each write that changes which objects it holds, their order, or the projected
    /// property of one of them (a modification at its position).
    ///
    /// ```swift
    /// let token = try card.dogNames.observe { change in
    ///     if case .update(_, _, _, let modifications) = change { … }
    /// }
    /// ```
    /// - Throws: as `List.observe`: `.notManaged` for a collection of an unmanaged object,
    ///   `.wrongThread`, `.invalidated`; `.invalidArgument` when the element key path reads no stored
    ///   property.
    /// - Warning: Keep the token: notifications stop when it is deinitialised.
    public func observe(
        on queue: DispatchQueue? = nil, _ block: @escaping (CollectionChange<ProjectedCollection>) -> Void
    ) throws(StoreError) -> NotificationToken {
        try observeBase(queue, block)
    }

    private static func mapped<Base>(
        _ change: CollectionChange<Base>, _ projected: (Base) -> ProjectedCollection
    ) -> CollectionChange<ProjectedCollection> {
        switch change {
        case .initial(let base):
            .initial(projected(base))
        case .update(let base, let deletions, let insertions, let modifications):
            .update(projected(base), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error):
            .error(error)
        }
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The collection's count now.
    public var endIndex: Int { countOfBase() }

    /// The property of the object at `position`, read now.
    public subscript(position: Int) -> Element { elementAt(position) }

    /// `["Rex", "Fido"]`.
    public var description: String { "\(Array(self))" }
}

/// A `ProjectedCollection` seen without its element type (what a projection's schema resolves).
protocol ProjectedElements {
    var baseIdentity: ObjectIdentifier { get }
    func elementPath() throws(StoreError) -> String?
}

extension ProjectedCollection: ProjectedElements {
    var baseIdentity: ObjectIdentifier { ObjectIdentifier(base) }
    func elementPath() throws(StoreError) -> String? { try resolveElementPath() }
}

/// What `projectTo` returns: a key path step from a collection of objects to one property of each.
@dynamicMemberLookup
public struct ElementMapper<Target: Object> {
    /// A `List<Target>` or a `MutableSet<Target>`.
    private let base: AnyObject

    init(_ list: List<Target>) { base = list }
    init(_ set: MutableSet<Target>) { base = set }

    /// The collection's objects seen through `member`.
    public subscript<Value>(dynamicMember member: KeyPath<Target, Value>) -> ProjectedCollection<Value> {
        if let list = base as? List<Target> { return ProjectedCollection(list, keyPath: member) }
        return ProjectedCollection(base as! MutableSet<Target>, keyPath: member)
    }
}

extension List where Element: Object {
    /// A key path step to one property of each object: `\Person.dogs.projectTo.name`, for a
    /// `@Projected` property.
    public var projectTo: ElementMapper<Element> { ElementMapper(self) }
}

extension MutableSet where Element: Object {
    /// A key path step to one property of each object, as `List.projectTo`.
    public var projectTo: ElementMapper<Element> { ElementMapper(self) }
}
