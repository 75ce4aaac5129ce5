@_spi(Reflection) import Swift

/// Where one `@Persisted` property lives in an instance, and how to operate on it there.
struct PropertyAccessor: @unchecked Sendable {  // metatypes are immutable
    /// Offset of the wrapper in the instance.
    let offset: Int
    let kind: any PersistedPropertyKind.Type
    /// Offsets, in the instance, of the wrapper's column and unmanaged value (an `UnmanagedValue`).
    let columnOffset: Int
    let valueOffset: Int
    let valueType: any _Persistable.Type

    init(offset: Int, kind: any PersistedPropertyKind.Type) {
        self.offset = offset
        self.kind = kind
        columnOffset = offset + kind.columnOffset
        valueOffset = offset + kind.valueOffset
        valueType = kind.valueType
    }

    @inline(__always)
    func address(in object: Object) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(object).toOpaque() + offset
    }

    /// Appends the property's unmanaged value as the row's next column.
    @inline(__always)
    func encodeUnmanagedValue(of object: Object, into row: inout _RowEncoder) throws(StoreError) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        // The value's own type encodes it (specialised code, no generic metadata per call); the
        // wrapper's generic code runs only to settle an initial value never read or set.
        if try valueType._strataEncodeUnmanaged(at: base + valueOffset, into: &row) { return }
        kind.settleUnmanagedValue(at: base + offset)
        guard try valueType._strataEncodeUnmanaged(at: base + valueOffset, into: &row) else {
            preconditionFailure("Strata: an initial value did not settle")
        }
    }

    /// The unmanaged value (settling a declared initial value first).
    func unmanagedValue(of object: Object) -> Any {
        kind.unmanagedValue(at: address(in: object))
    }
}

/// The schema of one model type as the code declares it: its `@Persisted` properties in declaration
/// order (superclass first), found once per type and cached for the process.
///
/// Discovery walks the type's stored fields with the standard library's reflection (`_forEachField`,
/// the metadata `Mirror` reads, plus each field's offset), and reads the attributes from one
/// throwaway instance.
final class ObjectSchema: @unchecked Sendable {  // immutable after init; metatypes are immutable
    let name: String
    let type: Object.Type
    let properties: [PropertySchema]
    let accessors: [PropertyAccessor]
    let primaryKeyIndex: Int?
    /// How this type's rows are keyed (a type without primary key uses increasing integer row ids).
    let keyKind: KeyKind
    let linkedTypes: [Object.Type]
    /// Whether the type is an `EmbeddedObject` (no primary key; links to it own it).
    let isEmbedded: Bool
    /// The `LinkingObjects` properties: computed from the origin type's links, no column.
    let linkingProperties: [LinkingProperty]
    /// `Object.uniqueKeys`, checked against the properties (the first of each group is indexed).
    let uniqueKeys: [[String]]
    /// Whether an iteration may re-point an accessor nothing else holds at the next row: only when
    /// every stored property of the type is `@Persisted` (another would carry one row's value to the
    /// next).
    let reusesAccessors: Bool
    /// Observation's registrar and calls, when the type conforms to `Observable`.
    let observation: TypeObservation?

    struct LinkingProperty {
        let name: String
        let origin: Object.Type
        let originProperty: String
        /// Where the wrapper lies in an instance, and its type.
        let accessor: PropertyAccessor
    }

    private static let cache = Locked<[ObjectIdentifier: ObjectSchema]>([:])

    /// The schema of a type as a file stores it, with no class behind it: what a `DynamicStore`
    /// compiles queries against and binds to the file's tables. Its `type` is `StoredRow`, which is
    /// never made; it has no accessors, and its links name their targets only (`linkedTypes` is
    /// empty: the query compiler finds them among the file's types).
    init(stored: StoredSchema.StoredType) {
        name = stored.name
        type = StoredRow.self
        properties = stored.properties
        accessors = []
        primaryKeyIndex = stored.properties.firstIndex(where: \.isPrimaryKey)
        keyKind = primaryKeyIndex.flatMap { stored.properties[$0].type.keyKind } ?? .integer
        linkedTypes = []
        isEmbedded = stored.isEmbedded
        linkingProperties = []
        uniqueKeys = stored.uniqueKeys
        reusesAccessors = false
        observation = nil
    }

    /// Whether this is a stored type's schema with no class behind it (`init(stored:)`).
    var isStoredOnly: Bool { type == StoredRow.self }

    /// The schema of `type`, discovered on first use.
    ///
    /// - Throws: `.schemaMismatch` when the type declares no `@Persisted` property, several primary keys,
    ///   or cannot be reflected.
    static func of(_ type: Object.Type) throws(StoreError) -> ObjectSchema {
        let id = ObjectIdentifier(type)
        if let schema = cache.withLock({ $0[id] }) { return schema }
        let schema = try ObjectSchema(discovering: type)  // outside the lock: it runs the type's init
        return cache.withLock { cache in
            if let existing = cache[id] { return existing }
            cache[id] = schema
            return schema
        }
    }

    private init(discovering type: Object.Type) throws(StoreError) {
        let name = type.storedTypeName
        var fields: [(name: String, accessor: PropertyAccessor)] = []
        var hasOtherStoredFields = false
        let objectFieldOffsets = Self.objectFieldOffsets
        let reflected = _forEachField(of: type, options: Self.classType) { fieldName, offset, fieldType, _ in
            if let kind = fieldType as? any PersistedPropertyKind.Type {
                var propertyName = String(cString: fieldName)
                if propertyName.hasPrefix("_") { propertyName.removeFirst() }
                fields.append((propertyName, PropertyAccessor(offset: offset, kind: kind)))
            } else if !objectFieldOffsets.contains(offset) {
                hasOtherStoredFields = true
            }
            return true
        }
        guard reflected else { throw .schemaMismatch("\(name) cannot be reflected (is it a class?)") }
        guard !fields.isEmpty else { throw .schemaMismatch("\(name) declares no @Persisted property") }

        let sample = type.init()
        var properties: [PropertySchema] = []
        var linkedTypes: [Object.Type] = []
        var primaryKeyIndex: Int?
        var linkingProperties: [LinkingProperty] = []
        var storedFields: [(name: String, accessor: PropertyAccessor)] = []
        for field in fields {
            guard let origin = field.accessor.kind.schemaType.linkingOrigin else {
                storedFields.append(field)
                continue
            }
            let value = field.accessor.unmanagedValue(of: sample) as? AnyLinkingObjects
            guard let originProperty = value?.originProperty, !originProperty.isEmpty else {
                throw .schemaMismatch("\(name).\(field.name): declare LinkingObjects with @Persisted(originProperty:)")
            }
            linkingProperties.append(
                LinkingProperty(
                    name: field.name, origin: origin, originProperty: originProperty, accessor: field.accessor))
            linkedTypes.append(origin)
        }
        guard !storedFields.isEmpty else { throw .schemaMismatch("\(name) declares no stored @Persisted property") }
        for (index, field) in storedFields.enumerated() {
            let attributes = field.accessor.kind.attributes(at: field.accessor.address(in: sample))
            let schemaType = field.accessor.kind.schemaType
            if attributes.contains(.primaryKey) {
                if let existing = primaryKeyIndex {
                    throw .schemaMismatch(
                        "\(name) declares two primary keys: \(storedFields[existing].name) and \(field.name)")
                }
                primaryKeyIndex = index
            }
            if let linked = schemaType.linkedType { linkedTypes.append(linked) }
            let ownsEmbedded = schemaType.linkedType is EmbeddedObject.Type && schemaType.linkingOrigin == nil
            properties.append(
                PropertySchema(
                    name: field.name, type: schemaType.type,
                    isPrimaryKey: attributes.contains(.primaryKey), isIndexed: attributes.contains(.indexed),
                    isUnique: attributes.contains(.unique), isOwning: attributes.contains(.owning) || ownsEmbedded,
                    fullText: FullTextSettings(attributes),
                    vector: VectorSettings(attributes)))
            try Self.checkSearchIndexes(of: properties[properties.count - 1], in: name)
        }
        withExtendedLifetime(sample) {}
        let uniqueKeys = try Self.checkedUniqueKeys(of: type, named: name, in: &properties)
        let isEmbedded = type is EmbeddedObject.Type
        if isEmbedded, let primaryKeyIndex {
            throw .schemaMismatch(
                "\(name) is an EmbeddedObject and declares a primary key (\(storedFields[primaryKeyIndex].name)): "
                    + "embedded objects have none")
        }

        self.isEmbedded = isEmbedded
        self.name = name
        self.type = type
        self.properties = properties
        accessors = storedFields.map(\.accessor)
        self.primaryKeyIndex = primaryKeyIndex
        keyKind = primaryKeyIndex.flatMap { properties[$0].type.keyKind } ?? .integer
        self.linkedTypes = linkedTypes
        self.linkingProperties = linkingProperties
        self.uniqueKeys = uniqueKeys
        reusesAccessors = !hasOtherStoredFields
        observation = TypeObservation.of(type)
    }

    /// Refuses a full-text index on anything but a String, and a vector index on anything but a
    /// `[Float]` or with settings out of range.
    private static func checkSearchIndexes(of property: PropertySchema, in type: String) throws(StoreError) {
        let name = "\(type).\(property.name)"
        if property.fullText != nil, property.type.unwrapped != .string {
            throw .schemaMismatch("\(name): a full-text index needs a String property, not \(property.type)")
        }
        guard let vector = property.vector else { return }
        guard property.type == .list(.float), property.fullText == nil else {
            throw .schemaMismatch("\(name): a vector index needs a [Float] property, not \(property.type)")
        }
        if let problem = vector.problem { throw .schemaMismatch("\(name): a vector index's \(problem)") }
    }

    /// The type's `uniqueKeys`, each name a stored property of an indexable type, no group empty or
    /// naming a property twice; the first property of each group becomes indexed (its index finds the
    /// objects to compare with).
    private static func checkedUniqueKeys(
        of type: Object.Type, named name: String, in properties: inout [PropertySchema]
    ) throws(StoreError) -> [[String]] {
        let groups = type.uniqueKeys
        for group in groups {
            guard !group.isEmpty, Set(group).count == group.count else {
                throw .schemaMismatch("\(name).uniqueKeys: \(group) must name one or more properties, each once")
            }
            for propertyName in group {
                guard let property = properties.first(where: { $0.name == propertyName }) else {
                    throw .schemaMismatch(
                        "\(name).uniqueKeys names \(propertyName), which is not a stored property of \(name)")
                }
                guard property.type.isIndexable else {
                    throw .schemaMismatch(
                        "\(name).uniqueKeys names \(propertyName), whose type (\(property.type)) cannot be indexed")
                }
            }
            if let first = properties.firstIndex(where: { $0.name == group[0] }) { properties[first].isIndexed = true }
        }
        return groups
    }

    private static let classType = _EachFieldOptions(rawValue: 1 << 0)

    /// Where `Object`'s own stored fields lie (every model type has them, first).
    private static let objectFieldOffsets: Set<Int> = {
        var offsets: Set<Int> = []
        _ = _forEachField(of: Object.self, options: classType) { _, offset, _, _ in
            offsets.insert(offset)
            return true
        }
        return offsets
    }()

    /// The stored name of a type: its unqualified name.

    var primaryKey: PropertySchema? {
        primaryKeyIndex.map { properties[$0] }
    }

    /// The schemas of `types` and of every type reachable from them through links, by name.
    ///
    /// - Throws: `.schemaMismatch` when two types share a name, and whatever discovery throws.
    static func closure(of types: [Object.Type]) throws(StoreError) -> [ObjectSchema] {
        var result: [ObjectSchema] = []
        var seen: [String: ObjectIdentifier] = [:]
        var pending = types
        while let type = pending.popLast() {
            let schema = try ObjectSchema.of(type)
            if let existing = seen[schema.name] {
                if existing != ObjectIdentifier(type) {
                    throw .schemaMismatch("two model types are named \(schema.name)")
                }
                continue
            }
            seen[schema.name] = ObjectIdentifier(type)
            result.append(schema)
            pending.append(contentsOf: schema.linkedTypes)
        }
        for schema in result {
            for linking in schema.linkingProperties {
                let origin = try ObjectSchema.of(linking.origin)
                let property = origin.properties.first { $0.name == linking.originProperty }
                guard let property, property.type.linkedTypeName == schema.name else {
                    throw .schemaMismatch(
                        "\(schema.name).\(linking.name): \(origin.name).\(linking.originProperty) is not a link or List of \(schema.name)"
                    )
                }
            }
        }
        return result.sorted { $0.name < $1.name }
    }
}
