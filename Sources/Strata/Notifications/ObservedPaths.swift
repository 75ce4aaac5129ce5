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

    /// From Realm's dotted names (`"owner.name"`, `"dogs.name"`; empty: the default).
    ///
    /// - Throws: `.invalidArgument` naming a name the type lacks, or a step past a value.
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
                guard let index = schema.properties.firstIndex(where: { $0.name == part }) else {
                    throw .invalidArgument("\(root.name) key path \"\(name)\": \(schema.name) has no property \(part)")
                }
                path = path.appending(schema, index)
                if position < parts.count - 1 {
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

    /// - Throws: `.schemaMismatch` when a linked type is not in the Store's schema.
    init(_ spec: ObservationSpec, root: TableBinding, in core: StoreCore) throws(StoreError) {
        guard let paths = spec.paths else {
            columns = nil
            routes = try Self.defaultRoutes(from: root, in: core)
            return
        }
        var columns = Set<Int>()
        var routes: [LinkRoute] = []
        for path in paths {
            columns.insert(root.columnOfProperty[path.steps[0].property])
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
