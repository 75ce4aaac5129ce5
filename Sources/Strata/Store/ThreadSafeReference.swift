/// Hands a managed object, a Results or a List to another thread: make it on the source thread,
/// resolve it once on the destination with `Store.resolve(_:)`.
///
/// ```swift
/// let ref = try ThreadSafeReference(to: person)
/// DispatchQueue.global().async {
///     let store = try! Store(configuration: config)
///     guard let person = try? store.resolve(ref) else { return }   // nil: deleted meanwhile
///     print(person.name)
/// }
/// ```
/// The reference keeps no read transaction open and no object alive: it records the file, the key
/// (or the query) and the version it was made at. Resolving moves the destination Store up to that
/// version if it is older, so the object is never missing just because that Store lags behind.
public final class ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    private let handoff: Locked<_Handoff?>

    /// - Throws: `.notManaged` for an unmanaged object (or a List of one), `.deletedInAnotherThread`
    ///   for a deleted or invalidated object, `.wrongThread` off the object's thread,
    ///   `.invalidArgument` for a Results with a `filter` closure.
    public init(to confined: Confined) throws(StoreError) {
        handoff = Locked(try confined._handoff())
    }

    /// Takes the handoff out: a reference resolves once.
    fileprivate func take() throws(StoreError) -> _Handoff {
        guard let taken = handoff.withLock({ $0.take() }) else { throw .alreadyResolved }
        return taken
    }
}

extension Store {
    /// The instance `reference` names, confined to this Store; nil when it was deleted meanwhile.
    ///
    /// - Throws: `.alreadyResolved` on a second resolve, `.invalidArgument` for a reference to another
    ///   file, `.wrongThread`, `.storage`.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) throws(StoreError)
        -> Confined?
    {
        try core.checkConfined()
        let handoff = try reference.take()
        guard handoff.path == core.environment.path else {
            throw .invalidArgument("the reference belongs to \(handoff.path), not to this Store's file")
        }
        if try core.version() < handoff.version { try refresh() }
        return try Confined._resolve(handoff, in: self)
    }
}

extension Object: ThreadConfined {
    public func _handoff() throws(StoreError) -> _Handoff {
        guard let core = _core else { throw .notManaged }
        try core.checkConfined()
        try Self.checkHandedOver { () throws(StoreError) in _ = try core.currentRow(of: self) }
        return _Handoff(
            path: core.environment.path, version: try core.version(),
            payload: .object(type: ObjectIdentifier(type(of: self)), key: _key))
    }

    public static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> Self? {
        guard case .object(let type, let key) = handoff.payload, type == ObjectIdentifier(self) else {
            throw .invalidArgument("the reference is not to a \(self)")
        }
        return try store.core.object(self, key: key)
    }
}

extension Results: ThreadConfined {
    public func _handoff() throws(StoreError) -> _Handoff {
        try core.checkConfined()
        for stage in stages {
            if case .filter = stage { throw .invalidArgument("a Results with a filter closure cannot be handed over") }
        }
        return _Handoff(
            path: core.environment.path, version: try core.version(),
            payload: .results(type: ObjectIdentifier(Element.self), stages: stages))
    }

    public static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> Results? {
        guard case .results(let type, let stages) = handoff.payload, type == ObjectIdentifier(Element.self),
            let stages = stages as? [Stage]
        else { throw .invalidArgument("the reference is not to a Results<\(Element.self)>") }
        return Results(core: store.core, binding: try store.core.binding(for: Element.self), stages: stages)
    }
}

extension List: ThreadConfined {
    public func _handoff() throws(StoreError) -> _Handoff {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try CollectionHandoff.handoff(owner: owner, column: column)
    }

    public static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> List? {
        try CollectionHandoff.owner(of: handoff, in: store, kind: "List").map {
            List(owner: $0.owner, column: $0.column)
        }
    }
}

extension Map: ThreadConfined {
    public func _handoff() throws(StoreError) -> _Handoff {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try CollectionHandoff.handoff(owner: owner, column: column)
    }

    public static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> Map? {
        try CollectionHandoff.owner(of: handoff, in: store, kind: "Map").map { Map(owner: $0.owner, column: $0.column) }
    }
}

extension MutableSet: ThreadConfined {
    public func _handoff() throws(StoreError) -> _Handoff {
        guard case .managed(let owner, let column) = backing else { throw .notManaged }
        return try CollectionHandoff.handoff(owner: owner, column: column)
    }

    public static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> MutableSet? {
        try CollectionHandoff.owner(of: handoff, in: store, kind: "MutableSet").map {
            MutableSet(owner: $0.owner, column: $0.column)
        }
    }
}

/// Handing a List, Map or MutableSet over: its owner's type and key, and its column.
enum CollectionHandoff {
    static func handoff(owner: Object, column: Int) throws(StoreError) -> _Handoff {
        guard let core = owner._core else { throw .notManaged }
        try core.checkConfined()
        try Object.checkHandedOver { () throws(StoreError) in _ = try core.currentRow(of: owner) }
        return _Handoff(
            path: core.environment.path, version: try core.version(),
            payload: .list(ownerType: ObjectIdentifier(type(of: owner)), key: owner._key, column: column))
    }

    /// The owner in `store` (nil: deleted since) and the column.
    static func owner(of handoff: _Handoff, in store: Store, kind: String) throws(StoreError)
        -> (owner: Object, column: Int)?
    {
        guard case .list(let ownerType, let key, let column) = handoff.payload else {
            throw .invalidArgument("the reference is not to a \(kind)")
        }
        guard let binding = store.core.bindings.first(where: { ObjectIdentifier($0.schema.type) == ownerType }) else {
            throw .invalidArgument("the \(kind)'s owner type is not in this Store's schema")
        }
        let stored = binding.columnTypes.indices.contains(column) ? binding.columnTypes[column] : .bool
        let matches: Bool
        switch stored {
        case .list: matches = kind == "List"
        case .map: matches = kind == "Map"
        case .set: matches = kind == "MutableSet"
        default: matches = false
        }
        guard matches else { throw .invalidArgument("the reference is not to a \(kind)") }
        guard let row = try store.core.rows.fetchRow(binding, key: key) else { return nil }
        let owner = binding.schema.type.init()
        store.core.manage(owner, binding: binding, key: key, row: row)
        return (owner, column)
    }
}

extension Object {
    /// Runs `read` on the object handed over: a deleted object is `.deletedInAnotherThread` for the
    /// receiving thread; damage stays damage.
    static func checkHandedOver(_ read: () throws(StoreError) -> Void) throws(StoreError) {
        do {
            try read()
        } catch .invalidated {
            throw .deletedInAnotherThread
        }
    }
}
