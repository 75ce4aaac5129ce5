import Observation

/// Observation of a model type that conforms to `Observable`, as its `@Persisted` accessors reach
/// it: reads are recorded for `withObservationTracking`; an unmanaged object's setters tell their
/// change at once, a managed object's changes are told when its Store moves to the commit that made
/// them (`ObjectContext.observeCommits(of:)`).
extension Object {
    private static let storeWatches: UInt8 = 1
    private static let typeLookedUp: UInt8 = 2

    /// A managed object's column was read (its type is observable).
    @usableFromInline
    final func _observed(_ column: Int, _ observation: Unmanaged<ColumnObservation>) {
        observation.takeUnretainedValue().access(self, column: column)
        watchForObservation()
    }

    /// Has the Store watch this managed accessor from now on (once): its commits are told.
    final func watchForObservation() {
        guard _observationFlags & Self.storeWatches == 0, let store = _store else { return }
        _observationFlags |= Self.storeWatches
        store.observeCommits(of: self)
    }

    /// Whether an unmanaged object's wrapper not marked with its property (`TypeObservation`) may
    /// need it: the type was not looked up yet, or is observable (and the object was managed since).
    @inlinable
    final var _mayBeObservedUnmanaged: Bool {
        _observationFlags & 2 == 0 || _unmanagedObservationType != nil
    }

    /// Looks the type up (once per object) and, when it is observable, marks every wrapper with its
    /// property's index.
    @usableFromInline
    final func _lookUpObservation() {
        if _observationFlags & Self.typeLookedUp == 0 {
            _observationFlags |= Self.typeLookedUp
            _unmanagedObservationType = TypeObservation.of(type(of: self))
        }
        _unmanagedObservationType?.stampProperties(of: self)
    }

    /// An unmanaged, observable object's property read.
    @usableFromInline
    final func _observedUnmanaged(property: Int) {
        _unmanagedObservationType?.access(self, property: property)
    }

    /// An unmanaged, observable object's property was set: Observation's `willSet` and `didSet`,
    /// both after the change (a setter told before it would run observers inside the wrapper's
    /// access, and one reading the property would overlap it).
    @usableFromInline
    static func _observedChange(_ object: Unmanaged<Object>, property: Int) {
        let object = object.takeUnretainedValue()
        object._unmanagedObservationType?.changed(object, property: property)
    }

    /// This object's registrar (made at first use).
    final var observationRegistrar: ObservationRegistrar {
        if let box = _observationRegistrar { return box.registrar }
        let box = RegistrarBox()
        _observationRegistrar = box
        return box.registrar
    }

    /// Whether the Store tells Observation of commits that change this accessor's row (it was read as
    /// an observable object): an iteration then does not re-point it at another row.
    final var isWatchedForObservation: Bool { _observationFlags & Self.storeWatches != 0 }

    /// Whether Observation may track this object already: a read made its registrar (an object
    /// tracked while unmanaged, then added, is watched from its add on).
    final var hasObservationRegistrar: Bool { _observationRegistrar != nil }

    /// Forgets the Store's watch (the object is unmanaged again).
    final func stopObservationWatch() {
        _observation = nil
        _observationFlags &= ~Self.storeWatches
    }
}

/// An object's `ObservationRegistrar`, behind a reference (`Object._observationRegistrar`).
final class RegistrarBox {
    let registrar = ObservationRegistrar()
}
