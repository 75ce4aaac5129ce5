/// Declares a property of a `Projection`: the value the key path reads from the root object.
///
/// ```swift
/// @Projected(\Person.name) var name
/// @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
/// ```
/// Setting the property sets the root's property when the key path is settable
/// (`ReferenceWritableKeyPath`); a transformed value (`\.name.count`) is read-only.
///
/// - Warning: Setting a read-only projected property traps, as setting a stored property of a
///   managed object outside a write does.
@propertyWrapper
public struct Projected<Root: Object, Value> {
    let keyPath: KeyPath<Root, Value>

    /// The property reading `keyPath` of the root object.
    public init(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
    }

    @available(*, unavailable, message: "@Projected can only be used on properties of Projection subclasses")
    public var wrappedValue: Value {
        get { fatalError("Strata: @Projected outside of a Projection") }
        // swift-format-ignore
        set { fatalError("Strata: @Projected outside of a Projection") }
    }

    public static subscript<EnclosingSelf: Projection<Root>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Projected<Root, Value>>
    ) -> Value {
        get {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            projection.readKeyPaths?.append(keyPath)
            return projection.rootObject[keyPath: keyPath]
        }
        set {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Value> else {
                preconditionFailure("Strata: \(EnclosingSelf.self): \(keyPath) is read-only; it cannot be set")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}

/// A `@Projected` wrapper seen without its types (what `ProjectionSchema` reflects).
protocol AnyProjected {
    /// The dotted root property path the key path reads (`"owner.name"`, `"dogs.name"` for a
    /// `projectTo`), or nil when it reads no chain of stored properties.
    func observedPath() throws(StoreError) -> String?
    /// The key path it reads of the root.
    var rootKeyPath: AnyKeyPath { get }
    /// The value it reads from `root`, described.
    func describeValue(of root: Object) -> String
    /// The value it reads from `root` (an object of its root type).
    func value(of root: Object) -> Any
    /// Whether the key path is one stored property of the root, as it is (a change's old value is
    /// then the projected property's).
    func isPassthrough() throws(StoreError) -> Bool
}

extension Projected: AnyProjected {
    var rootKeyPath: AnyKeyPath { keyPath }

    func observedPath() throws(StoreError) -> String? {
        let schema = try ObjectSchema.of(Root.self)
        guard let read = KeyPathResolver.pathRead(keyPath, in: schema) else { return nil }
        var names = read.path.steps.map { $0.schema.properties[$0.property].name }
        if let projected = read.result as? any ProjectedElements, read.issued.contains(projected.baseIdentity) {
            guard let element = try projected.elementPath() else { return nil }
            names.append(element)
        }
        return names.joined(separator: ".")
    }

    func value(of root: Object) -> Any {
        (root as! Root)[keyPath: keyPath]
    }

    func isPassthrough() throws(StoreError) -> Bool {
        KeyPathResolver.path(keyPath, in: try ObjectSchema.of(Root.self))?.steps.count == 1
    }

    func describeValue(of root: Object) -> String {
        guard let root = root as? Root, !root.isInvalidated else { return "<invalidated>" }
        switch DynamicValue.unwrap(root[keyPath: keyPath]) {
        case let string as String: return "\"\(string)\""
        case let value?: return "\(value)"
        case nil: return "nil"
        }
    }
}

/// The `@Projected` properties of a projection type, in declaration order (superclass first), found
/// once per type: their names and what each observes of the root.
final class ProjectionSchema: @unchecked Sendable {  // immutable
    struct Property {
        let label: String
        let projected: any AnyProjected
        /// The root's property path it reads, dotted; nil when it reads none (a constant).
        let observedPath: String?
        /// Whether it is one stored property of the root as it is.
        let isPassthrough: Bool

        /// The root property a change notification names for it.
        var rootProperty: String? { observedPath.map { String($0.prefix { $0 != "." }) } }

        func describeValue(of root: Object) -> String { projected.describeValue(of: root) }
        func value(of root: Object) -> Any { projected.value(of: root) }
    }

    let properties: [Property]

    /// The root property paths (dotted) that `labels` of the projection read (every property's for
    /// nil or none), what its observers observe of the root.
    ///
    /// - Throws: `.invalidArgument` for a label the projection does not have, or properties that read
    ///   no stored property.
    func observed(_ labels: [String]?, of type: Any.Type) throws(StoreError) -> (
        properties: [Property], paths: [String]
    ) {
        var chosen = properties
        if let labels, !labels.isEmpty {
            for label in labels where !properties.contains(where: { $0.label == label }) {
                throw .invalidArgument("\(type) projects no property \(label)")
            }
            chosen = properties.filter { labels.contains($0.label) }
        }
        var paths: [String] = []
        for path in chosen.compactMap(\.observedPath) where !paths.contains(path) { paths.append(path) }
        guard !paths.isEmpty else { throw .invalidArgument("\(type): the properties observed read no stored property") }
        return (chosen, paths)
    }

    private static let cache = Locked<[ObjectIdentifier: ProjectionSchema]>([:])

    /// - Throws: `.schemaMismatch` when the root type is no model, `.invalidArgument` when a key path
    ///   reads no stored property of it.
    static func of<P: ProjectionObservable>(_ type: P.Type) throws(StoreError) -> ProjectionSchema {
        let id = ObjectIdentifier(type)
        if let schema = cache.withLock({ $0[id] }) { return schema }
        let schema = try ProjectionSchema(type)
        return cache.withLock { cache in
            if let existing = cache[id] { return existing }
            cache[id] = schema
            return schema
        }
    }

    private init<P: ProjectionObservable>(_ type: P.Type) throws(StoreError) {
        // The wrappers hold key paths only: a projection of a fresh unmanaged root shows them all.
        // `type`, not `P`: called with `type(of: projection)`, P is the static type, maybe a superclass.
        let sample = type.init(projecting: P.Root())
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: sample)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [Property] = []
        for child in mirrors.flatMap(\.children) {
            guard let projected = child.value as? any AnyProjected, var label = child.label else { continue }
            if label.hasPrefix("_") { label.removeFirst() }
            let path = try projected.observedPath()
            properties.append(
                Property(
                    label: label, projected: projected, observedPath: path, isPassthrough: try projected.isPassthrough()
                ))
        }
        self.properties = properties
    }
}
