/// What an observer watches, before it is bound to a Store: the property paths its key paths name
/// (through links, `\.owner?.name` or `"dogs.name"`), or nil for Realm's default, every property of
/// the object and of the objects its links and Lists reach, `ObservedPaths.defaultDepth` links deep.
struct ObservationSpec {
    let paths: [PropertyPath]?

    /// From Swift key paths (empty: the default).
    ///
    /// - Throws: `.invalidArgument` naming a key path that names no stored property (or chain of links
    ///   ending in one).
    init<Root: Object>(keyPaths: [PartialKeyPath<Root>], schema: ObjectSchema) throws(StoreError) {
        guard !keyPaths.isEmpty else {
            paths = nil
            return
        }
        paths = try keyPaths.map { (keyPath) throws(StoreError) -> PropertyPath in
            guard let path = KeyPathResolver.path(keyPath, in: schema) else {
                throw .invalidArgument(KeyPathResolver.unresolvedMessage(keyPath, schema: schema))
            }
            return path
        }
    }

    /// From Realm's dotted names (`"owner.name"`, `"dogs.name"`; empty: the default). After a Map of
    /// values, the last part is a key: `"phones.home"` counts a change of that key's value only (its
    /// addition and removal included). After a Map of objects it is a property of the objects.
    ///
    /// - Throws: `.invalidArgument` naming a name the type lacks, a step past a value, or a Map key
    ///   that breaks the key rule.
    init(names: [String], schema root: ObjectSchema) throws(StoreError) {
        guard !names.isEmpty else {
            paths = nil
            return
        }
        paths = try names.map { (name) throws(StoreError) -> PropertyPath in
            var path = PropertyPath()
            var schema = root
            let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (position, part) in parts.enumerated() {
                if position > 0, path.mapKey == nil, let last = path.steps.last,
                    last.schema.properties[last.property].type.isMap,
                    last.schema.accessors[last.property].kind.schemaType.linkedType == nil
                {
                    if let problem = MapFormat.problem(withKey: part) {
                        throw .invalidArgument("\(root.name) key path \"\(name)\": \(problem)")
                    }
                    guard position == parts.count - 1 else {
                        throw .invalidArgument(
                            "\(root.name) key path \"\(name)\": a key of \(schema.name).\(schema.properties[last.property].name) holds a value, not an object"
                        )
                    }
                    path.mapKey = part
                    continue
                }
                guard let index = schema.properties.firstIndex(where: { $0.name == part }) else {
                    throw .invalidArgument("\(root.name) key path \"\(name)\": \(schema.name) has no property \(part)")
                }
                path = path.appending(schema, index)
                if position < parts.count - 1,
                    !schema.properties[index].type.isMap
                        || schema.accessors[index].kind.schemaType.linkedType != nil
                {
                    guard let linked = schema.accessors[index].kind.schemaType.linkedType else {
                        throw .invalidArgument(
                            "\(root.name) key path \"\(name)\": \(schema.name).\(part) is not a link or a List of objects"
                        )
                    }
                    schema = try ObjectSchema.of(linked)
                }
            }
            return path
        }
    }
}

/// A chain of links from an observed type to another type, and which of that type's columns count.
struct LinkRoute {
    /// Each link followed, with the type it starts from (whose backlinks lead back).
    let steps: [(origin: TableBinding, link: LinkBinding)]
    /// The type the chain ends at.
    let target: TableBinding
    /// Its stored columns whose change counts; nil: any.
    var columns: Set<Int>?

    /// The observed type's link property the chain starts with: the property a change is reported under.
    var firstProperty: String { steps[0].link.property }
}

/// An observer's watch, bound to one Store's tables: the observed type's own columns, and the
/// routes through links whose changes count as changes of the object that links.
struct ObservedPaths {
    /// How many links deep the default watch goes (Realm's default too).
    static let defaultDepth = 4
    /// A bound on the default watch's routes, for models where every type links to every other.
    static let maximumRoutes = 64

    /// The observed type's stored columns whose change counts; nil: every column.
    let columns: Set<Int>?
    let routes: [LinkRoute]
    /// Map columns of which only some keys count (`"phones.home"`); a column absent here counts whole.
    let mapKeys: [Int: Set<String>]

    /// - Throws: `.schemaMismatch` when a linked type is not in the Store's schema.
    init(_ spec: ObservationSpec, root: TableBinding, in core: StoreCore) throws(StoreError) {
        guard let paths = spec.paths else {
            columns = nil
            routes = try Self.defaultRoutes(from: root, in: core)
            mapKeys = [:]
            return
        }
        var columns = Set<Int>()
        var routes: [LinkRoute] = []
        var mapKeys: [Int: Set<String>] = [:]
        var wholeColumns = Set<Int>()
        for path in paths {
            let firstColumn = root.columnOfProperty[path.steps[0].property]
            columns.insert(firstColumn)
            if path.steps.count == 1, let key = path.mapKey {
                mapKeys[firstColumn, default: []].insert(key)
            } else {
                wholeColumns.insert(firstColumn)
            }
            var steps: [(origin: TableBinding, link: LinkBinding)] = []
            var binding = root
            for position in path.steps.indices.dropFirst() {
                let linkColumn = binding.columnOfProperty[path.steps[position - 1].property]
                guard let link = binding.links.first(where: { $0.column == linkColumn }) else {
                    throw .invalidArgument(
                        "\(path) goes past \(binding.name).\(binding.columnNames[linkColumn]), which is no link")
                }
                steps.append((binding, link))
                binding = try core.binding(for: path.steps[position].schema.type)
                let column = binding.columnOfProperty[path.steps[position].property]
                if let existing = routes.firstIndex(where: { $0.sameLinks(as: steps) }) {
                    routes[existing].columns?.insert(column)
                } else {
                    routes.append(LinkRoute(steps: steps, target: binding, columns: [column]))
                }
            }
        }
        self.columns = columns
        self.routes = routes
        self.mapKeys = mapKeys.filter { !wholeColumns.contains($0.key) }
    }

    /// Whether an observed column's change counts: for a Map watched by key, whether a watched key's
    /// value differs (damaged bytes count as a change: the read reports them).
    func counts(column: Int, old: [UInt8]?, new: [UInt8]?) -> Bool {
        guard old != new else { return false }
        guard let keys = mapKeys[column] else { return true }
        for key in keys {
            let needle = Array(key.utf8)
            guard let before = Self.entry(needle, in: old), let after = Self.entry(needle, in: new) else { return true }
            if before != after { return true }
        }
        return false
    }

    /// A stored map's entry for `key`, copied: absent, null or its value bytes; nil when damaged.
    private static func entry(_ key: [UInt8], in bytes: [UInt8]?) -> MapEntryState? {
        guard let bytes else { return .absent }  // a null column: no map
        return bytes.withBytes { (raw) -> MapEntryState? in
            guard let found = MapFormat.lookUp(key, in: raw) else { return nil }
            guard found.isPresent else { return .absent }
            return .present(found.value.map { Array($0) })
        }
    }

    private enum MapEntryState: Equatable {
        case absent
        case present([UInt8]?)
    }

    /// Every link and List of links, breadth first, `defaultDepth` deep, any column of what they reach.
    private static func defaultRoutes(from root: TableBinding, in core: StoreCore) throws(StoreError) -> [LinkRoute] {
        var routes: [LinkRoute] = []
        var frontier: [(steps: [(origin: TableBinding, link: LinkBinding)], type: TableBinding)] = [([], root)]
        for _ in 0..<defaultDepth {
            var next: [(steps: [(origin: TableBinding, link: LinkBinding)], type: TableBinding)] = []
            for (steps, type) in frontier {
                for link in type.links where routes.count < maximumRoutes {
                    let target = try core.tables.binding(named: link.target)
                    let extended = steps + [(type, link)]
                    routes.append(LinkRoute(steps: extended, target: target, columns: nil))
                    next.append((extended, target))
                }
            }
            frontier = next
        }
        return routes
    }

    /// Whether `span` may touch a type a route reaches.
    func touchesLinkedTypes(_ span: ChangeSpan) -> Bool {
        routes.contains { span.touches($0.target.name) }
    }

    /// The observed type's keys whose linked objects changed in `span`, with the link properties the
    /// changes came through: modified rows of each route's target, walked back through backlinks.
    func modifiedThroughLinks(in span: ChangeSpan, core: StoreCore) throws(StoreError) -> [RowKey: Set<String>] {
        var modified: [RowKey: Set<String>] = [:]
        for route in routes {
            guard let changes = span.tables[route.target.name], !changes.modified.isEmpty else { continue }
            var keys = Set<RowKey>()
            for (key, changed) in changes.modified
            where route.columns.map({ changed.contains(-1) || !changed.isDisjoint(with: $0) }) ?? true {
                keys.insert(key)
            }
            for step in route.steps.reversed() where !keys.isEmpty {
                var origins = Set<RowKey>()
                for key in keys {
                    origins.formUnion(try core.backlinks(to: key, through: step.link, origin: step.origin))
                }
                keys = origins
            }
            for key in keys { modified[key, default: []].insert(route.firstProperty) }
        }
        return modified
    }
}

extension LinkRoute {
    fileprivate func sameLinks(as other: [(origin: TableBinding, link: LinkBinding)]) -> Bool {
        steps.count == other.count
            && zip(steps, other).allSatisfy { $0.origin === $1.origin && $0.link.column == $1.link.column }
    }
}
