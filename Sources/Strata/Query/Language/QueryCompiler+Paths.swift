import Foundation

/// The key paths of a query: names resolved to properties, through links and collections, and the
/// tests on links and string lengths that a path's end decides.
extension QueryCompiler {
    /// What a key path names, walked from `schema`.
    enum Target {
        /// A property (maybe through to-one links).
        case property(PropertyPath, PropertyType)
        /// The elements of a List or MutableSet, with the names after it (for elements that are
        /// links: a key path in the linked type).
        case elements(PropertyPath, element: PropertyType, rest: [String])
        /// `list.@count`, `list.@size`, `map.@count`.
        case count(PropertyPath)
        /// `map.@keys`, `map.@values`: the keys (strings) or the values of a Map, as elements.
        case mapElements(PropertyPath, CollectionCondition.MapPart, element: PropertyType)
        /// `list.@sum`, `list.@avg.age`…
        case aggregate(
            PropertyPath, CollectionCondition.Aggregate, element: PropertyType, property: (ObjectSchema, Int)?)
        /// A `LinkingObjects` property of the root type, with the names after it.
        case linking(origin: ObjectSchema, property: String, rest: [String])
        /// `name.@size`, `name.@count`: a String's or Data's length in bytes (Realm's).
        case length(PropertyPath)
    }

    func resolve(_ names: [String], in root: ObjectSchema, position: Int) throws(StoreError) -> Target {
        var schema = root
        var path = PropertyPath()
        var index = 0
        while index < names.count {
            let name = names[index]
            guard let property = schema.properties.firstIndex(where: { $0.name == name }) else {
                if let linking = schema.linkingProperties.first(where: { $0.name == name }) {
                    guard index == 0 else {
                        throw fail(
                            "\(name): LinkingObjects are queried on the type itself, not through a link", at: position)
                    }
                    guard let origin = try? ObjectSchema.of(linking.origin) else {
                        throw fail("\(name): its origin type cannot be read", at: position)
                    }
                    return .linking(origin: origin, property: linking.originProperty, rest: Array(names[1...]))
                }
                let known = schema.properties.map(\.name).joined(separator: ", ")
                throw fail("\(schema.name) has no property \"\(name)\" (it has \(known))", at: position)
            }
            path = path.appending(schema, property)
            let type = schema.properties[property].type
            let rest = Array(names[(index + 1)...])
            switch type {
            case .link(let target):
                guard !rest.isEmpty else { return .property(path, type) }
                schema = try linkedSchema(target, from: schema, position: position)
                index += 1
                continue
            case .list(let element), .set(let element):
                return try collection(path, element: element, rest: rest, from: schema, position: position)
            case .map(let value):
                if rest.count == 1, ["@count", "@size"].contains(rest[0].lowercased()) { return .count(path) }
                if rest.count == 1, rest[0].lowercased() == "@keys" {
                    return .mapElements(path, .keys, element: .string)
                }
                if rest.count == 1, rest[0].lowercased() == "@values" {
                    return .mapElements(path, .values, element: value)
                }
                if rest.count == 1, let key = QuerySyntax.mapKey(of: rest[0]) {
                    path.mapKey = key
                    return .property(path, value.isOptional ? value : .optional(value))
                }
                guard rest.isEmpty else {
                    throw fail(
                        "\(path) is a Map: read a value with \(path)['key'], its @keys, @values or @count", at: position
                    )
                }
                return .property(path, type)
            default:
                if rest.count == 1, Self.isLengthOperator(rest[0], of: type) { return .length(path) }
                guard rest.isEmpty else {
                    throw fail("\(path) is a \(type), it has no property \"\(rest[0])\"", at: position)
                }
                return .property(path, type)
            }
        }
        throw fail("an empty key path", at: position)
    }

    /// The test of `op value` on a link's stored key (a to-one link, or an element of a collection of
    /// links): `==`, `!=` and `IN` with stored objects of the link's type (Realm's `employer == $0`), or nil.
    func linkTest(_ op: QueryOperator, _ value: Any?, target: String, position: Int, property: String)
        throws(StoreError) -> ColumnTest
    {
        switch op {
        case .equal, .notEqual:
            let key = try linkKey(value, target: target, position: position, property: property)
            let wantsEqual = op == .equal
            return { bytes in
                guard let key else { return (bytes == nil) == wantsEqual }
                guard let bytes else { return !wantsEqual }
                return bytes.elementsEqual(key) == wantsEqual
            }
        case .in:
            guard let values = value as? [Any?] else {
                throw fail("IN needs a list {a, b} or an array argument for \(property)", at: position)
            }
            var keys: [[UInt8]?] = []
            for element in values {
                keys.append(try linkKey(element, target: target, position: position, property: property))
            }
            return { bytes in keys.contains { key in key.map { bytes?.elementsEqual($0) ?? false } ?? (bytes == nil) } }
        default:
            throw fail(
                "\(property) is a link: compare it with ==, != or IN and a stored \(target) or nil, or compare one "
                    + "of its properties", at: position)
        }
    }

    /// The stored key of `value`, an object of `target` that a Store holds (what a link to it stores);
    /// nil for nil.
    private func linkKey(_ value: Any?, target: String, position: Int, property: String) throws(StoreError)
        -> [UInt8]?
    {
        guard let value = DynamicValue.unwrap(value) else { return nil }
        guard let object = value as? Object else {
            throw fail(
                "\(property) links to \(target): compare it with a \(target) object or nil, not \(value)", at: position)
        }
        guard object.isManaged, let binding = object._tableBinding else {
            throw fail("the \(Swift.type(of: object)) given for \(property) is not stored: add it first", at: position)
        }
        guard binding.name == target else {
            throw fail("\(property) links to \(target), not to \(binding.name)", at: position)
        }
        return object._key.withBytes { Array($0) }
    }

    /// Whether `name` is `@size` or `@count` after a String or Data property (its length in bytes).
    static func isLengthOperator(_ name: String, of type: PropertyType) -> Bool {
        ["@size", "@count"].contains(name.lowercased()) && [.string, .data].contains(type.unwrapped)
    }

    /// The test of `op value` on the length in bytes of a String or Data column; nil (a null column,
    /// or nothing at the end of a path) never matches, as for any comparison through nil.
    func lengthTest(_ op: QueryOperator, _ value: Any?, options: QueryStringOptions, position: Int, property: String)
        throws(StoreError) -> ColumnTest
    {
        let count = try valueTest(.int64, op, value, options: options, position: position, property: property).test
        return { bytes in
            guard let bytes else { return false }
            var length = Int64(bytes.count).littleEndian
            return Swift.withUnsafeBytes(of: &length) { count($0) }
        }
    }

    func collection(
        _ path: PropertyPath, element: PropertyType, rest: [String], from schema: ObjectSchema, position: Int
    ) throws(StoreError) -> Target {
        guard let first = rest.first, first.hasPrefix("@") else {
            return .elements(path, element: element, rest: rest)
        }
        if ["@count", "@size"].contains(first.lowercased()) {
            guard rest.count == 1 else { throw fail("nothing may follow \(first)", at: position) }
            return .count(path)
        }
        guard let aggregate = CollectionCondition.Aggregate(operatorName: first) else {
            throw fail("unknown collection operator \(first)", at: position)
        }
        if case .link(let target) = element {
            guard rest.count == 2 else {
                throw fail("\(first) on \(path) needs a property: \(path).\(first).age", at: position)
            }
            let targetSchema = try linkedSchema(target, from: schema, position: position)
            guard let property = targetSchema.properties.firstIndex(where: { $0.name == rest[1] }),
                PredicateEvaluator.isNumeric(targetSchema.properties[property].type)
            else { throw fail("\(target) has no number property \"\(rest[1])\" for \(first)", at: position) }
            return .aggregate(path, aggregate, element: element, property: (targetSchema, property))
        }
        guard rest.count == 1, PredicateEvaluator.isNumeric(element) else {
            throw fail("\(first) needs a collection of numbers (\(path) holds \(element))", at: position)
        }
        return .aggregate(path, aggregate, element: element, property: nil)
    }

    func linkedSchema(_ name: String, from schema: ObjectSchema, position: Int) throws(StoreError)
        -> ObjectSchema
    {
        if schema.isStoredOnly {
            // A file's stored types (a DynamicStore's): their links name their targets.
            guard let linked = storedSchemas[name] else {
                throw fail("the linked type \(name) is unknown", at: position)
            }
            return linked
        }
        for type in schema.linkedTypes {
            if let linked = try? ObjectSchema.of(type), linked.name == name { return linked }
        }
        throw fail("the linked type \(name) is unknown", at: position)
    }
}
