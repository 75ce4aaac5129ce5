import Observation

/// The base class of model types. Subclass it and declare properties with `@Persisted`.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id = UUID()
///     @Persisted var name: String
///     @Persisted var owner: Person?
/// }
/// let dog = Dog()                       // unmanaged: a plain Swift object
/// dog.name = "Rex"
/// try store.write { try store.add(dog) } // managed from now on: reads and writes go to the store
/// ```
/// Every subclass keeps the `required init()`; write convenience initialisers on top of it.
///
/// A subclass that also conforms to `Observable` (`final class Note: Object, Observable`) works with
/// `withObservationTracking`: a tracked property's change calls `onChange` at once for an unmanaged
/// object, and when the Store moves to the commit that made it for a managed one. Types that do not
/// conform make no call into Observation.
///
/// - Warning: A managed object is confined to the thread (or serial queue) of the Store that manages
///   it. Hand it to another thread with `ThreadSafeReference`. Reading it on another thread, or after
///   it was deleted, traps with a message that starts with "Strata:".
open class Object {
    // Managed state, stored inline so that managing an object allocates nothing. A managed object is
    // used by one thread only, so these skip the dynamic exclusivity checks (a thread-local lookup each).
    @exclusivity(unchecked) @usableFromInline final var _store: ObjectContext?
    /// Not retained: the Store in `_store` keeps its tables alive. Set while the object has a key: when
    /// managed, and while an add under way stores it.
    @exclusivity(unchecked) unowned(unsafe) final var _binding: ObjectTable?
    @exclusivity(unchecked) final var _key: RowKey = .integer(0)
    /// The Store's epoch when this object became managed; `invalidate()` starts a new one.
    @exclusivity(unchecked) final var _epoch: UInt64 = 0
    /// The Store's deletion clock when this object became an accessor of its row (`OwnDeletions`):
    /// whether the Store's own write deleted the row since.
    @exclusivity(unchecked) final var _madeAt: UInt64 = 0
    /// The object's row in the Store's current snapshot, valid while `_rowGeneration` matches.
    @exclusivity(unchecked) @usableFromInline final var _row: RowView?
    @exclusivity(unchecked) @usableFromInline final var _rowGeneration: UInt64 = 0
    /// Observation of a managed object's columns, for a type that conforms to `Observable`; nil for
    /// other types, whose reads then make no call into Observation. Not retained (the Store's table
    /// binding holds it, as it holds `_binding`), and `Unmanaged` so that the read path's nil check
    /// makes no call into the runtime.
    @exclusivity(unchecked) @usableFromInline final var _observation: Unmanaged<ColumnObservation>?
    /// Whether the Store was asked to tell Observation of commits that change this object (once per
    /// accessor), and whether `_unmanagedObservation` was looked up.
    @exclusivity(unchecked) @usableFromInline final var _observationFlags: UInt8 = 0
    @exclusivity(unchecked) @usableFromInline unowned(unsafe) final var _unmanagedObservationType: TypeObservation?
    /// This object's registrar, made at its first tracked read (observable types only). Boxed:
    /// `ObservationRegistrar` is a resilient type, so an optional one held inline would be made and
    /// destroyed through value witnesses with every object, observable or not.
    @exclusivity(unchecked) final var _observationRegistrar: RegistrarBox?

    /// An unmanaged object with every property at its declared initial value; `Store.add` stores it.
    public required init() {}

    /// Groups of properties whose values together must be unique among the type's objects (SQL's
    /// `UNIQUE(a, b)`; what `@Persisted(unique: true)` is for one property). Realm has none.
    ///
    /// ```swift
    /// final class Booking: Object {
    ///     @Persisted(primaryKey: true) var id: Int
    ///     @Persisted var flight: String
    ///     @Persisted var seat: String
    ///     override class var uniqueKeys: [[String]] { [["flight", "seat"]] }
    /// }
    /// ```
    /// A second object with the same values of every property of a group makes `add`, `update` or a
    /// setter's write throw `.alreadyExists`, naming the properties and values (`"LH400, 12A"`), and
    /// nothing is written. An object with nil in any property of a group holds no value for it (as in
    /// SQL). Values compare as queries compare them (`Decimal128` 1 and 1.00 are one value). The
    /// first property of a group is indexed, and the check looks up its index: name the most selective
    /// property first. Changing the groups needs no schema version; opening the file checks the
    /// stored objects against new groups (`.alreadyExists`, nothing written).
    /// - Note: Each name must be a stored property of an indexable type (`.schemaMismatch` otherwise).
    open class var uniqueKeys: [[String]] { [] }

    /// Whether a Store manages this object.
    public final var isManaged: Bool { _store != nil }

    /// Whether the object was deleted, or its Store invalidated, so it can no longer be read.
    /// Always false for an unmanaged object.
    ///
    /// - Warning: Traps when called off the managing Store's thread.
    public final var isInvalidated: Bool {
        guard let store = _store else { return false }
        store.assertConfined()
        do {
            _ = try store.currentRow(of: self)
            return false
        } catch .invalidated, .deletedInAnotherThread {
            return true
        } catch {
            return false  // present, though damaged: reading it traps, `verify()` reports it
        }
    }

    /// Whether both refer to the same stored object (the same row of the same file), or are the same
    /// unmanaged instance.
    public final func isSameObject(as other: Object?) -> Bool {
        guard let other else { return false }
        if self === other { return true }
        guard let core = _store, let otherCore = other._store else { return false }
        return core.fileIdentity == otherCore.fileIdentity && _binding?.name == other._binding?.name
            && _key == other._key
    }
}

extension Object: Hashable {
    /// Whether both are the same stored object (the same row of the same file, as Realm's managed
    /// objects compare), or the same unmanaged instance.
    ///
    /// ```swift
    /// store.objects(Person.self).first == store.object(ofType: Person.self, forPrimaryKey: 1)   // true
    /// ```
    /// - Warning: An unmanaged object equals only itself, and hashes differently once a Store manages
    ///   it: do not keep it in a `Set` or as a dictionary key across `add`.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        lhs.isSameObject(as: rhs)
    }

    /// Hashes the row (file, type, key) of a managed object, or the identity of an unmanaged one.
    public func hash(into hasher: inout Hasher) {
        if let core = _store, let binding = _binding {
            hasher.combine(core.fileIdentity)
            hasher.combine(binding.name)
            hasher.combine(_key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

extension Object {
    /// The name a model type is stored under: its Swift name.
    static var storedTypeName: String { String(describing: self) }
}

/// An object is confined to the Store (thread, queue or actor) that manages it; a frozen one is read
/// anywhere but still not sent as is: hand over a `ThreadSafeReference`, or freeze and re-resolve.
@available(
    *, unavailable, message: "an Object is confined to its Store's thread; hand it over with ThreadSafeReference"
)
extension Object: Sendable {}
