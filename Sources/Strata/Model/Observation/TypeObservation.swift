import Observation
@_spi(Reflection) import Swift

/// What Observation needs of one model type that conforms to `Observable` (`final class Note: Object,
/// Observable`): a key path per `@Persisted` property, where each property's wrapper lies, and the
/// generic calls into a registrar that the type's static type allows. Types that do not conform have
/// none, and their property reads make no call into Observation.
///
/// Each object has its own registrar (`Object.observationRegistrar`), made at first use, as the
/// `@Observable` macro gives each instance one: a registrar tells every observer of a key path,
/// whichever object it was read on. A property is tracked under a key path of its index among the
/// type's `@Persisted` properties (`\Note.[_observedProperty: 1]`), managed or not: the Store names a
/// commit's changes by column (`ColumnObservation`), and a property's own key path (`\Note.title`)
/// would cost a key-path object per read, made by the caller of the wrapper's accessor.
@usableFromInline
final class TypeObservation: @unchecked Sendable {  // immutable; metatypes and key paths are immutable
    private let calls: any ObservationCalls.Type
    /// The `@Persisted` properties' names, in declaration order (a property's index is its place here).
    let names: [String]
    /// Where each property's wrapper keeps its column, from the object's start (`stampProperties`).
    private let columnOffsets: [Int]
    let keyPaths: [AnyKeyPath]

    private init(calls: any ObservationCalls.Type, properties: [(name: String, columnOffset: Int)]) {
        self.calls = calls
        names = properties.map(\.name)
        columnOffsets = properties.map(\.columnOffset)
        keyPaths = properties.indices.map(calls.keyPath(ofProperty:))
    }

    private static let cache = Locked<[ObjectIdentifier: TypeObservation?]>([:])

    /// The observation of `type`, or nil when it does not conform to `Observable` (looked up once
    /// per type).
    static func of(_ type: Object.Type) -> TypeObservation? {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let found = (type as? any (Object & Observable).Type).map {
            TypeObservation(calls: calls(for: $0), properties: persistedProperties(of: type))
        }
        return cache.withLock { cache in
            if let known = cache[id] { return known }
            cache[id] = found
            return found
        }
    }

    private static func calls<T: Object & Observable>(for type: T.Type) -> any ObservationCalls.Type {
        ObservedType<T>.self
    }

    /// The `@Persisted` properties of `type`, as schema discovery finds them (`ObjectSchema`).
    private static func persistedProperties(of type: Object.Type) -> [(name: String, columnOffset: Int)] {
        var found: [(name: String, columnOffset: Int)] = []
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { fieldName, offset, fieldType, _ in
            if let kind = fieldType as? any PersistedPropertyKind.Type {
                var name = String(cString: fieldName)
                if name.hasPrefix("_") { name.removeFirst() }
                found.append((name, offset + kind.columnOffset))
            }
            return true
        }
        return found
    }

    /// Marks each `@Persisted` wrapper of an unmanaged `object` with its property's index (the
    /// column field holds `-2 - index`; -1 is an unmanaged wrapper not marked, a column ≥ 0 managed),
    /// so that its accessors name the property without a key path of their own.
    func stampProperties(of object: Object) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        for (index, offset) in columnOffsets.enumerated() where base.load(fromByteOffset: offset, as: Int.self) == -1 {
            (base + offset).storeBytes(of: -2 - index, as: Int.self)
        }
    }

    func access(_ object: Object, property: Int) {
        calls.access(object, keyPaths[property], object.observationRegistrar)
    }

    /// `property` changed: what `willSet` and then `didSet` tell the observers tracking it.
    func changed(_ object: Object, property: Int) {
        let registrar = object.observationRegistrar
        calls.willSet(object, keyPaths[property], registrar)
        calls.didSet(object, keyPaths[property], registrar)
    }
}

/// The calls into a registrar for one `Observable` model type (`ObservedType<T>`), reached from code
/// that only knows `Object`.
private protocol ObservationCalls {
    static func keyPath(ofProperty index: Int) -> AnyKeyPath
    static func access(_ object: Object, _ keyPath: AnyKeyPath, _ registrar: ObservationRegistrar)
    static func willSet(_ object: Object, _ keyPath: AnyKeyPath, _ registrar: ObservationRegistrar)
    static func didSet(_ object: Object, _ keyPath: AnyKeyPath, _ registrar: ObservationRegistrar)
}

private enum ObservedType<T: Object & Observable>: ObservationCalls {
    // The objects are `T`s (found by their own type, or made by a binding of `T`) and the key paths
    // are made below, so the downcasts cannot fail.
    static func keyPath(ofProperty index: Int) -> AnyKeyPath { \T.[_observedProperty: index] }

    static func access(_ object: Object, _ keyPath: AnyKeyPath, _ registrar: ObservationRegistrar) {
        registrar.access(unsafeDowncast(object, to: T.self), keyPath: unsafeDowncast(keyPath, to: KeyPath<T, Int>.self))
    }

    static func willSet(_ object: Object, _ keyPath: AnyKeyPath, _ registrar: ObservationRegistrar) {
        registrar.willSet(
            unsafeDowncast(object, to: T.self), keyPath: unsafeDowncast(keyPath, to: KeyPath<T, Int>.self))
    }

    static func didSet(_ object: Object, _ keyPath: AnyKeyPath, _ registrar: ObservationRegistrar) {
        registrar.didSet(unsafeDowncast(object, to: T.self), keyPath: unsafeDowncast(keyPath, to: KeyPath<T, Int>.self))
    }
}

/// The observation of a managed object's columns in one file: its type's observation, and the
/// property each stored column is (made once per table binding, not per read).
@usableFromInline
final class ColumnObservation: @unchecked Sendable {  // immutable
    let type: TypeObservation
    /// By column: the property's index in `type` (-1: a column the code does not declare).
    private let propertyOfColumn: [Int]

    init(type: TypeObservation, columnNames: [String]) {
        self.type = type
        propertyOfColumn = columnNames.map { type.names.firstIndex(of: $0) ?? -1 }
    }

    /// A managed object's column read: Observation records it when `withObservationTracking` runs.
    func access(_ object: Object, column: Int) {
        let property = propertyOfColumn[column]
        if property >= 0 { type.access(object, property: property) }
    }

    /// A commit changed `column` of `object`'s row (nil: every column).
    func changed(_ object: Object, column: Int?) {
        guard let column else {
            for property in type.keyPaths.indices { type.changed(object, property: property) }
            return
        }
        guard column < propertyOfColumn.count, propertyOfColumn[column] >= 0 else { return }
        type.changed(object, property: propertyOfColumn[column])
    }
}

extension Object {
    /// The key path a property is tracked under: its index among the `@Persisted` properties
    /// (Observation's `access` and `willSet` name a key path; see `TypeObservation`).
    subscript(_observedProperty index: Int) -> Int { index }
}
