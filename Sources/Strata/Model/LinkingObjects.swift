/// The objects that link to an object through one property: the inverse of a to-one link or a List.
/// Read-only and live; computed from the Store's backlink table, never stored in the row.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var dogs: List<Dog>
/// }
/// final class Dog: Object {
///     @Persisted var name: String
///     @Persisted(originProperty: "dogs") var walkers: LinkingObjects<Person>
/// }
/// print(rex.walkers.map(\.name))   // every Person whose `dogs` holds rex
/// ```
/// The origin type must declare `originProperty` as a link (`Self?`) or a `List<Self>`; opening a
/// Store throws `.schemaMismatch` otherwise. The objects come in the origin type's primary-key order.
/// An unmanaged object has no linking objects.
///
/// - Warning: Confined to its Store's thread, like its object.
public final class LinkingObjects<Origin: Object>: RandomAccessCollection {
    /// The property of `Origin` that links here.
    public let originProperty: String
    private(set) var core: ObjectContext?
    private unowned(unsafe) var ownerBinding: ObjectTable?
    private var ownerKey: RowKey = .integer(0)
    private var epoch: UInt64 = 0
    private var cachedKeys: [RowKey] = []
    private var cachedGeneration: UInt64 = 0

    /// The objects of `Origin` whose `property` links to the object declaring this.
    public init(fromType: Origin.Type = Origin.self, property: String) {
        originProperty = property
    }

    /// Binds the property of a managed object to its row (called when the object becomes managed).
    func bind(context core: ObjectContext, owner: ObjectTable, key: RowKey) {
        self.core = core
        ownerBinding = owner
        ownerKey = key
        epoch = core.epoch
        cachedGeneration = 0
    }

    /// The keys of the linking objects now.
    private func keys() -> [RowKey] {
        guard let core, let ownerBinding else { return [] }
        core.assertConfined()
        guard epoch == core.epoch else { preconditionFailure(TrapMessage.invalidated) }
        if cachedGeneration == core.generation { return cachedKeys }
        do {
            guard let keys = try core.backlinks(to: ownerKey, from: Origin.self, through: originProperty) else {
                preconditionFailure(
                    "Strata: \(Origin.storedTypeName).\(originProperty) is not a link to \(ownerBinding.name)")
            }
            cachedKeys = keys
        } catch {
            preconditionFailure(
                "\(TrapMessage.corrupted): the links to \(ownerBinding.location(of: ownerKey)): \(error)")
        }
        cachedGeneration = core.generation
        return cachedKeys
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of linking objects now (read from the backlink table).
    public var endIndex: Int { keys().count }
    /// The number of objects whose link or List points here now.
    public var count: Int { keys().count }

    /// The linking object at `position`, in the origin type's key order.
    ///
    /// - Warning: Traps off the Store's thread, as property reads do.
    public subscript(position: Int) -> Origin {
        let keys = keys()
        precondition(keys.indices.contains(position), "Strata: index \(position) out of range 0..<\(keys.count)")
        guard let object = linkingObject(keys[position]) else { preconditionFailure(TrapMessage.invalidated) }
        return object
    }

    private func linkingObject(_ key: RowKey) -> Origin? {
        guard let core else { return nil }
        core.assertConfined()
        do {
            return try core.object(Origin.self, key: key)
        } catch {
            preconditionFailure("\(TrapMessage.corrupted): \(Origin.self)[\(key)]: \(error)")
        }
    }

    /// Iterates the objects that linked here when the iteration began, as `Results` does: changing a
    /// link inside the loop (`for folder in bookmark.folders { folder.bookmarks.removeAll() }`) neither
    /// skips nor repeats one; objects deleted meanwhile are skipped.
    public func makeIterator() -> Iterator {
        Iterator(linkingObjects: self, keys: keys())
    }

    /// Visits the linking objects' keys taken when the iteration began.
    public struct Iterator: IteratorProtocol {
        private let linkingObjects: LinkingObjects
        private let keys: [RowKey]
        private var position = 0

        init(linkingObjects: LinkingObjects, keys: [RowKey]) {
            self.linkingObjects = linkingObjects
            self.keys = keys
        }

        /// The next linking object that still exists, or nil at the end.
        public mutating func next() -> Origin? {
            while position < keys.count {
                defer { position += 1 }
                if let object = linkingObjects.linkingObject(keys[position]) { return object }
            }
            return nil
        }
    }
}

/// `LinkingObjects` seen without its origin type.
protocol AnyLinkingObjects: AnyObject {
    var originProperty: String { get }
    func bind(context: ObjectContext, owner: ObjectTable, key: RowKey)
    /// Whether the `UnmanagedValue<Self>` at `address` (in a `@Persisted` wrapper) holds a value
    /// nothing else references.
    static func isUniquelyReferenced(unmanagedValueAt address: UnsafeMutableRawPointer) -> Bool
}

extension LinkingObjects: AnyLinkingObjects {
    static func isUniquelyReferenced(unmanagedValueAt address: UnsafeMutableRawPointer) -> Bool {
        let slot = address.assumingMemoryBound(to: UnmanagedValue<LinkingObjects>.self)
        guard case .value(var instance) = slot.pointee else { return true }
        slot.pointee = .unset  // so that the one reference counted here is the local's
        defer { slot.pointee = .value(instance) }
        return isKnownUniquelyReferenced(&instance)
    }
}

extension LinkingObjects: _Persistable {
    public static var _strataSchemaType: _SchemaType {
        _SchemaType(.link(Origin.storedTypeName), linkingOrigin: Origin.self)
    }

    /// Without an origin property: schema discovery reports it.
    public static func _strataZero() -> LinkingObjects { LinkingObjects(property: "") }

    /// Never handed out: a `LinkingObjects` has no column, so a recorder never reads one.
    public static func _strataProbe(_ round: Int) -> LinkingObjects { _strataZero() }
    public static func _strataIsProbe(_ value: LinkingObjects, _ round: Int) -> Bool { false }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        preconditionFailure("Strata: LinkingObjects has no column")
    }

    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> LinkingObjects {
        preconditionFailure("Strata: LinkingObjects has no column")
    }
}

extension Persisted {
    /// An inverse relationship: the objects whose `originProperty` links to this one.
    ///
    /// ```swift
    /// @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    /// ```
    public init<Origin>(originProperty: String) where Value == LinkingObjects<Origin> {
        self.init(value: LinkingObjects(property: originProperty), attributes: [])
    }
}

@available(*, unavailable, message: "LinkingObjects are confined to their Store's thread")
extension LinkingObjects: Sendable {}
