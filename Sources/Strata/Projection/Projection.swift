/// What every projection is: a light view model over one object (`Projection<Root>`). Strata's
/// generic APIs (`store.objects(_:)`, `ProjectedResults`) take any type of this protocol.
public protocol ProjectionObservable: AnyObject {
    /// The projected model type.
    associatedtype Root: Object
    /// The object projected.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// A view model made of key paths of one object, as Realm's: each `@Projected` property reads (and,
/// for a settable key path, writes) the root object through its key path, so a projection is as live
/// as its object, and is observed for the root properties its key paths read.
///
/// ```swift
/// final class PersonView: Projection<Person> {
///     @Projected(\Person.name) var name
///     @Projected(\Person.name.localizedUppercase) var shouting
///     @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
/// }
/// let views = store.objects(PersonView.self)  // ProjectedResults<PersonView>
/// let token = try views[0].observe(keyPaths: ["name"]) { change in … }
/// ```
/// A key path may go through links (`\Person.owner?.name`), transform the value it reads
/// (`\.name.count`), or map a List or MutableSet of objects to one property of each
/// (`\.dogs.projectTo.name`). Properties the projection does not name are not projected: changing
/// them notifies no observer of the projection.
///
/// - Warning: A projection is confined as its root object is: read it on the root's thread (or
///   freeze it).
open class Projection<Root: Object>: ProjectionObservable, Hashable, CustomStringConvertible {
    /// The object projected.
    public let rootObject: Root
    /// On a probe projection only (`observe(keyPaths: [PartialKeyPath])`): the root key paths of the
    /// projected properties read, in order. Nil otherwise, so a read costs one load.
    final var readKeyPaths: [AnyKeyPath]?

    /// A projection of `object` (managed or not).
    public required init(projecting object: Root) {
        rootObject = object
    }

    /// Whether both project the same stored object (or the same unmanaged instance).
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject == rhs.rootObject
    }

    /// Hashes the root object (as `==` compares it).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }

    /// `PersonView<Person> { name = "Ann"; dogNames = ["Rex"] }`.
    open var description: String {
        guard let schema = try? ProjectionSchema.of(type(of: self)) else { return "\(type(of: self))" }
        let values = schema.properties.map { property in
            "\(property.label) = \(property.describeValue(of: rootObject))"
        }
        return "\(type(of: self))<\(Root.self)> { \(values.joined(separator: "; ")) }"
    }

    /// Whether the root object was deleted (or its Store invalidated).
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// The Store managing the root object; nil when it is unmanaged.
    public var store: Store? { rootObject.store }

    /// Whether the root object belongs to a frozen snapshot.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// The projection of the root object frozen (see `Object.freeze()`).
    ///
    /// - Throws: as `Object.freeze()`.
    public func freeze() throws(StoreError) -> Self {
        Self(projecting: try rootObject.freeze())
    }

    /// The projection of the live root object in this thread's Store; nil when it was deleted.
    ///
    /// - Throws: as `Object.thaw()`.
    public func thaw() throws(StoreError) -> Self? {
        try rootObject.thaw().map { Self(projecting: $0) }
    }
}

extension Projection: ThreadConfined {
    /// Implementation detail: a projection is handed over as its root object is.
    public func _handoff() throws(StoreError) -> _Handoff {
        try rootObject._handoff()
    }

    /// Implementation detail: the projection of the root object the handoff names.
    public static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> Self? {
        try Root._resolve(handoff, in: store).map { Self(projecting: $0) }
    }
}

/// A projection that notes the root key paths its projected properties read (a probe of
/// `observe(keyPaths: [PartialKeyPath])`).
protocol RecordsProjectedReads: AnyObject {
    var readKeyPaths: [AnyKeyPath]? { get set }
}

extension Projection: RecordsProjectedReads {}
