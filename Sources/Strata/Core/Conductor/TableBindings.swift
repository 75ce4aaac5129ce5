/// The model types of a Store bound to their tables in its file, found by type (the last look-up is
/// kept: a loop of adds asks for one type again and again) or by stored name, with the links that
/// point to each.
final class TableBindings {
    let all: [TableBinding]
    private let byType: [ObjectIdentifier: TableBinding]
    private let byName: [String: TableBinding]
    /// Per binding (by ordinal): the link properties of every type that point to it.
    let incomingLinks: [[(origin: TableBinding, link: LinkBinding)]]
    /// Whether the last look-up is kept (not for a frozen Store, read from many threads at once).
    private let cachesLookups: Bool
    @exclusivity(unchecked) private var last: TableBinding?

    init(_ bindings: [TableBinding], cachesLookups: Bool) {
        all = bindings
        // Stored types' schemas (a DynamicStore's) share one class: they are found by name.
        let classBacked = bindings.filter { !$0.schema.isStoredOnly }
        byType = Dictionary(uniqueKeysWithValues: classBacked.map { (ObjectIdentifier($0.schema.type), $0) })
        byName = Dictionary(bindings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        incomingLinks = bindings.map { target in
            bindings.flatMap { origin in
                origin.links.filter { $0.target == target.name }.map { (origin: origin, link: $0) }
            }
        }
        self.cachesLookups = cachesLookups
    }

    /// - Throws: `.schemaMismatch` when the type is not in this Store's schema.
    func binding(for type: Object.Type) throws(StoreError) -> TableBinding {
        let id = ObjectIdentifier(type)
        if let last, ObjectIdentifier(last.schema.type) == id { return last }
        guard let binding = byType[id] else { throw .schemaMismatch(missing(type)) }
        if cachesLookups { last = binding }
        return binding
    }

    /// The binding of the type `schema` describes: by class, or by name for a stored type's schema
    /// with no class behind it (a `DynamicStore`'s).
    ///
    /// - Throws: `.schemaMismatch` when the type is not in this Store's schema.
    @inline(__always)
    func binding(for schema: ObjectSchema) throws(StoreError) -> TableBinding {
        schema.isStoredOnly ? try binding(named: schema.name) : try binding(for: schema.type)
    }

    /// - Throws: `.schemaMismatch` when no type of that stored name is in this Store's schema.
    func binding(named name: String) throws(StoreError) -> TableBinding {
        guard let binding = byName[name] else { throw .schemaMismatch("\(name) is not in this Store's schema") }
        return binding
    }

    /// The binding of the type stored under `name`, if the schema has one.
    func existingBinding(named name: String) -> TableBinding? {
        byName[name]
    }

    /// The binding of a type known to be in the schema (a snapshot of the Store's own configuration).
    func bindingOrTrap(for type: Object.Type) -> TableBinding {
        guard let binding = byType[ObjectIdentifier(type)] else { preconditionFailure("Strata: \(missing(type))") }
        return binding
    }

    /// Why `type` has no binding: not listed, or another class of the same name holds its stored name
    /// (`V0.Person` asked of a Store of `V1.Person`: both are stored as `Person`).
    private func missing(_ type: Object.Type) -> String {
        let name = type.storedTypeName
        guard let holder = byName[name] else {
            return "\(name) is not in this Store's schema; add it to Configuration.objectTypes"
        }
        return "\(String(reflecting: type)) is not in this Store's schema: another class, "
            + "\(String(reflecting: holder.schema.type)), holds its stored name \(name) there (a type is stored under "
            + "its bare name, so a Store has one class of each name); use that class, or a Store whose "
            + "objectTypes list this one"
    }
}

@available(*, unavailable, message: "a Store's bindings are confined with it (a frozen Store's never change)")
extension TableBindings: Sendable {}
