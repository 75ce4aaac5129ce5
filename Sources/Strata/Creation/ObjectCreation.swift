/// Makes objects from values (`ObjectValue`), as `Store.create(_:value:update:)` and
/// `Object(value:)` do, in two passes: `plan` converts and checks every value of the whole tree
/// (nested objects, lists, maps) and writes nothing; `make` then builds, adds or updates the objects,
/// the linked ones first.
///
/// In a Store (`core` set): a nested value that is an object this Store manages is linked as it is
/// (an embedded one is copied: it has one owner); any other nested value (a dictionary, an array, an
/// unmanaged object, an object of another Store) is created with the same update policy, and an
/// embedded one is built for its owner. Unmanaged (`core` nil): a nested object is linked as it is,
/// a nested dictionary or array becomes a new unmanaged object.
struct ObjectCreation {
    let core: StoreCore?
    let policy: Store.UpdatePolicy

    /// One object to make: the type, and either an object linked as it is or the values given.
    final class Plan {
        let schema: ObjectSchema
        /// An object linked as it is (managed here, or any object for an unmanaged owner).
        let existing: Object?
        /// The unmanaged object the given values were set on (its declared values elsewhere); what
        /// is added when no stored object has its primary key.
        let fresh: Object
        var values: [(index: Int, value: Planned)] = []
        /// The row key of `fresh`'s primary key (in a Store, for a type that has one).
        var key: RowKey?

        init(schema: ObjectSchema, existing: Object? = nil, into object: Object? = nil) {
            self.schema = schema
            self.existing = existing
            fresh = existing ?? object ?? schema.type.init()
        }
    }

    /// A property's given value: a value of its type, or the objects its links are to hold.
    enum Planned {
        case value(Any)
        case links([Plan?])
        case entries([(key: String, plan: Plan?)])
    }

    /// Objects of types with a primary key planned as new under `.error`, by type and key: a second
    /// one is a duplicate before anything is written.
    private var planned: Set<PlannedKey> = []
    /// How many objects `make` has added or changed: after a failure, whether the write holds part
    /// of the creation.
    private(set) var writes = 0

    private struct PlannedKey: Hashable {
        let type: ObjectIdentifier
        let key: RowKey
    }

    init(core: StoreCore?, policy: Store.UpdatePolicy) {
        self.core = core
        self.policy = policy
    }

    // MARK: Planning

    /// Converts and checks `value` as an object of `type`.
    ///
    /// - Throws: `.invalidArgument` for a value of the wrong kind or type (naming the property),
    ///   `.alreadyExists` (`.error`: the primary key is stored, or given twice), `.schemaMismatch`,
    ///   `.wrongThread` / `.invalidated` / `.deletedInAnotherThread` reading a managed object.
    mutating func plan(_ type: Object.Type, value: Any, into object: Object? = nil) throws(StoreError) -> Plan {
        let schema = try ObjectSchema.of(type)
        let source = try ObjectValue(value, of: schema)
        let plan = Plan(schema: schema, into: object)
        for index in schema.properties.indices {
            guard case .some(let given) = try source.given(index, of: schema) else { continue }
            let accessor = schema.accessors[index]
            if let target = accessor.kind.schemaType.linkedType {
                do {
                    plan.values.append((index, try planLinks(given, to: target, property: index, of: schema)))
                } catch .invalidArgument(let reason) {
                    throw .invalidArgument("\(schema.name).\(schema.properties[index].name): \(reason)")
                }
            } else {
                let converted = try PropertyValue.converted(given, property: index, of: schema)
                accessor.kind.setUnmanagedValue(converted, at: accessor.address(in: plan.fresh))
                plan.values.append((index, .value(converted)))
            }
        }
        if let core, let primaryKey = schema.primaryKeyIndex {
            let binding = try core.binding(for: type)
            plan.key = try key(of: plan.fresh, primaryKey: primaryKey, binding: binding)
            if policy == .error, let key = plan.key {
                let planned = PlannedKey(type: ObjectIdentifier(schema.type), key: key)
                guard try core.rows.fetchRow(binding, key: key) == nil, self.planned.insert(planned).inserted else {
                    throw .alreadyExists(
                        primaryKey: StoreError.PrimaryKey(binding.describe(key), typeName: binding.name))
                }
            }
        }
        return plan
    }

    /// The plans of a link property's targets (one for a to-one link).
    private mutating func planLinks(_ given: Any?, to target: Object.Type, property index: Int, of schema: ObjectSchema)
        throws(StoreError) -> Planned
    {
        let property = schema.properties[index]
        switch property.type {
        case .list, .set:
            guard let array = given.map({ $0 as? [Any] }) ?? [] else {
                throw .invalidArgument("a \(property.type) needs an array, not \(PropertyValue.describe(given))")
            }
            var plans: [Plan?] = []
            for element in array {
                guard let plan = try planTarget(PropertyValue.normalized(element), type: target) else {
                    throw .invalidArgument("a \(property.type) holds no nil")
                }
                plans.append(plan)
            }
            return .links(plans)
        case .map:
            guard let dictionary = given.map({ $0 as? [String: Any] }) ?? [:] else {
                throw .invalidArgument(
                    "a \(property.type) needs a [String: Any], not \(PropertyValue.describe(given))")
            }
            var entries: [(key: String, plan: Plan?)] = []
            for (key, element) in dictionary.sorted(by: { $0.key < $1.key }) {
                if let problem = MapFormat.problem(withKey: key) { throw .invalidArgument(problem) }
                entries.append((key, try planTarget(PropertyValue.normalized(element), type: target)))
            }
            return .entries(entries)
        default:
            return .links([try planTarget(given, type: target)])
        }
    }

    /// The plan of one link target: nil for nil.
    private mutating func planTarget(_ value: Any?, type target: Object.Type) throws(StoreError) -> Plan? {
        guard let value else { return nil }
        if let object = value as? Object {
            guard Swift.type(of: object) == target else {
                throw .invalidArgument("a link to \(target) cannot hold a \(Swift.type(of: object))")
            }
            if try isLinkedAsItIs(object) { return Plan(schema: try ObjectSchema.of(target), existing: object) }
        }
        return try plan(target, value: value)
    }

    /// Whether a nested object is linked rather than copied: any object for an unmanaged owner; in a
    /// Store, one it manages (not an embedded one, which has one owner).
    private func isLinkedAsItIs(_ object: Object) throws(StoreError) -> Bool {
        guard let core else { return true }
        guard object._store === core, !(object is EmbeddedObject) else { return false }
        _ = try core.currentRow(of: object)  // .invalidated, .deletedInAnotherThread
        return true
    }

    private func key(of object: Object, primaryKey index: Int, binding: TableBinding) throws(StoreError) -> RowKey? {
        let value = binding.schema.accessors[index].unmanagedValue(of: object)
        guard let core, let primaryKey = value as? any _PrimaryKeyValue else { return nil }
        guard let key = try core.rowKey(forPrimaryKey: primaryKey, binding: binding) else {
            throw .invalidArgument("\(primaryKey) cannot be a primary key of \(binding.name)")
        }
        return key
    }

    // MARK: Making

    /// Builds, adds or updates the object of `plan` (the objects it links to first): an unmanaged
    /// object without a Store, and for an embedded type (its owner stores it); else a managed one.
    ///
    /// - Throws: as `Store.add` and setting a property (`.alreadyExists` for a unique property).
    mutating func make(_ plan: Plan) throws(StoreError) -> Object {
        if let existing = plan.existing { return existing }
        var resolved: [(index: Int, value: Any)] = []
        // The plain values are on `fresh` already (`plan` set them); the links are made now.
        var links: [(index: Int, value: Any)] = []
        for (index, planned) in plan.values {
            let value = try value(of: planned, property: index, of: plan.schema)
            resolved.append((index, value))
            if case .value = planned { continue }
            links.append((index, value))
        }
        guard let core, !plan.schema.isEmbedded else {
            set(links, on: plan.fresh, schema: plan.schema)
            return plan.fresh
        }
        let binding = try core.binding(for: plan.schema.type)
        if policy != .error, let key = plan.key,
            let stored = try core.object(plan.schema.type, binding: binding, key: key)
        {
            for (index, value) in resolved where index != plan.schema.primaryKeyIndex {
                let kind = plan.schema.accessors[index].kind
                try core.changeColumnThrowing(
                    of: stored, column: binding.columnOfProperty[index],
                    linkedObjects: Object._linkedObjects(in: value),
                    unlessUnchanged: policy == .modified
                ) { (row) throws(StoreError) in try kind.encodeColumn(value, into: &row) }
                writes += 1
            }
            return stored
        }
        set(links, on: plan.fresh, schema: plan.schema)
        try core.add(plan.fresh, update: .error)
        writes += 1
        return plan.fresh
    }

    private mutating func value(of planned: Planned, property index: Int, of schema: ObjectSchema) throws(StoreError)
        -> Any
    {
        let kind = schema.accessors[index].kind
        let made: Any?
        switch planned {
        case .value(let value):
            return value
        case .links(let plans):
            var objects: [Object?] = []
            for plan in plans { objects.append(try plan.map { (plan) throws(StoreError) in try make(plan) }) }
            made = kind.linking(objects)
        case .entries(let entries):
            var objects: [(key: String, object: Object?)] = []
            for (key, plan) in entries {
                objects.append((key, try plan.map { (plan) throws(StoreError) in try make(plan) }))
            }
            made = kind.linking(entries: objects)
        }
        guard let made else {
            throw .invalidArgument("\(schema.name).\(schema.properties[index].name) cannot hold the objects given")
        }
        return made
    }

    private func set(_ values: [(index: Int, value: Any)], on object: Object, schema: ObjectSchema) {
        for (index, value) in values {
            let accessor = schema.accessors[index]
            accessor.kind.setUnmanagedValue(value, at: accessor.address(in: object))
        }
    }
}
